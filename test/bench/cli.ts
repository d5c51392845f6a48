/**
 * The CLI latency benchmark: `node dist/test/bench/cli.js` after `npm run build`.
 * BENCH_CLI_SAMPLES sets the samples per command (default 20). Exit 0 every target met,
 * 1 a target missed, 2 a command failed. A command this build lacks (`hook`) is reported
 * as not available and counts as neither.
 */
import { cliLatency } from './cli-latency.js';

const raw = process.env.BENCH_CLI_SAMPLES;
const samples = raw ? Number(raw) : 20;
if (!Number.isInteger(samples) || samples < 1) {
  process.stderr.write(`BENCH_CLI_SAMPLES must be a whole number >= 1 (got ${JSON.stringify(raw)})\n`);
  process.exit(2);
}

cliLatency({ samples }).then(
  (report) => {
    console.log(report.text);
    process.exitCode = report.failed ? 2 : report.missed ? 1 : 0;
  },
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
