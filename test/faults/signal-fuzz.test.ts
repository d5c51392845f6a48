import { afterEach, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli } from '../helpers/cli.js';
import { loopRow, readDb, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { integrity, iterationOf, makeWorkspace, type Workspace } from './helpers/loops.js';
import { HOSTILE_KINDS, plant, plantValid, rng, type HostileKind } from './helpers/hostile.js';
import { alive, rssKiB } from './helpers/procs.js';
import { recordRow, scale } from './helpers/results.js';

// Fault: an agent writes thousands of hostile signal (and stop) files: random bytes, huge
// files, deep nesting, wrong types, huge / negative / fractional iterations, a FIFO, a
// directory, a link to /dev/zero, a link to a valid signal. Must hold: the supervisor
// never blocks or crashes, its memory stays bounded, the loop's iteration is the highest
// VALID one, and the same bad signal rewritten many times adds one row to `events`.

let ws: Workspace;
afterEach(() => ws?.cleanup());

/** Kinds that may sit at `.auto-stop` without meaning "stop" (any regular file does). */
const STOP_KINDS: HostileKind[] = ['fifo', 'directory', 'dev-zero-link', 'link-to-valid'];
const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 2));

function invalidRows(db: string, dir: string): { rows: number; repeats: number } {
  return readDb(db, (d) => d.prepare("SELECT count(*) AS rows, coalesce(sum(repeats), 0) AS repeats FROM events WHERE task_dir = ? AND kind = 'signal_invalid'").get(dir) as { rows: number; repeats: number })!;
}

describe('fault: hostile signal files', () => {
  it('never blocks or crashes the supervisor; memory bounded; iteration the highest valid; events coalesced', async () => {
    const writes = scale(400, 10_000);
    const rand = rng(14);
    ws = makeWorkspace('autodeck-fault-');
    const dir = ws.module('fuzzed');
    const flags = ['--db', ws.db, '--root', ws.root, '--agent', 'sleep 3600', '--heartbeat', '0.5', '--stall-threshold', '1000000', '--max-iterations', '1000', '--grace', '0.5'];
    const run = startCli(ws, ['run', dir, ...flags]);
    const pid = run.child.pid!;
    await waitFor(() => loopRow(ws.db, dir)?.agent_pid, 'the agent');
    const baseRss = rssKiB(pid);
    let maxRss = baseRss;
    let highest = 0;
    let backwards = 0;
    let lastSeen = 0;
    const counts: Partial<Record<HostileKind, number>> = {};
    for (let i = 0; i < writes; i++) {
      if (rand() < 0.05) {
        highest++;
        plantValid(dir, highest);
      } else if (rand() < 0.1) {
        plant(dir, '.auto-stop', STOP_KINDS[Math.floor(rand() * STOP_KINDS.length)]!, rand);
      } else {
        const kind = HOSTILE_KINDS[Math.floor(rand() * HOSTILE_KINDS.length)]!;
        counts[kind] = (counts[kind] ?? 0) + 1;
        plant(dir, '.auto-signal', kind, rand, scale(8, 128) * 1024 * 1024);
      }
      if (i % 10 === 0) {
        await tick();
        maxRss = Math.max(maxRss, rssKiB(pid));
        const n = iterationOf(ws.db, dir) ?? 0;
        if (n < lastSeen) backwards++;
        lastSeen = Math.max(lastSeen, n);
      }
    }
    // The last word is a valid signal: the loop must come to exactly that iteration.
    highest++;
    plantValid(dir, highest);
    await waitFor(() => iterationOf(ws.db, dir) === highest, `iteration ${highest}`, 30_000);

    // The same bad signal, rewritten as fast as an agent can: one row, counted.
    const before = invalidRows(ws.db, dir);
    // One bad rewrite every 25 ms, the pace that made 1.6 million rows a day.
    const sameBad = scale(80, 2000);
    for (let i = 0; i < sameBad; i++) {
      plant(dir, '.auto-signal', 'wrong-types', rand);
      await new Promise((r) => setTimeout(r, 25));
    }
    // The supervisor reads the newest file when it looks (the file is a snapshot): it sees some of them.
    await waitFor(() => invalidRows(ws.db, dir).repeats >= before.repeats + 3, 'the repeats counted');
    const after = invalidRows(ws.db, dir);

    // Still answering: a clean stop ends the loop.
    rmSync(join(dir, '.auto-stop'), { recursive: true, force: true });
    const stop = await runCli(ws, ['stop', dir, '--force', '--db', ws.db, '--root', ws.root]);
    const code = await run.exited;
    const [result] = runsOf(ws.db, dir);
    const grewKiB = maxRss - baseRss;
    const pass = alive(pid) === false && code === 1 && result?.iterations === highest && backwards === 0 &&
      after.rows - before.rows <= 1 && grewKiB < 200 * 1024 && integrity(ws.db) === 'ok';
    recordRow({
      fault: `hostile signal fuzzer: ${writes} files (${Object.keys(counts).length} kinds, FIFO / dir / /dev/zero at .auto-stop too), then the same bad one x${sameBad}`,
      atRisk: 1, lost: result ? 0 : 1, doubled: 0, pass,
      note: `RSS +${Math.round(grewKiB / 1024)} MiB at most; iteration ${result?.iterations} = highest valid ${highest}; ${after.rows} signal_invalid rows for ${after.repeats} invalid reads`,
    });
    expect(stop.code, stop.stderr).toBe(0);
    expect(code, run.stderr()).toBe(1);
    expect(result).toMatchObject({ outcome: 'killed', iterations: highest });
    expect(backwards).toBe(0);
    expect(after.rows - before.rows).toBeLessThanOrEqual(1);
    expect(grewKiB).toBeLessThan(200 * 1024);
    expect(integrity(ws.db)).toBe('ok');
  });
});
