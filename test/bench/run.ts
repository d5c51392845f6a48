/**
 * The supervisor benchmark: signal-file-to-database latency with 1 and 20 loops, the
 * supervisor's own CPU and memory with 20 idle loops; the heartbeat's cost per
 * session and the supervisor's CPU with 50 sessions at a 1 s heartbeat. Not part of `npm test`:
 * run `npm run bench` (or `node dist/test/bench/run.js` after `npm run build`).
 *
 * Environment: BENCH_SAMPLES (default 100 per latency row), BENCH_IDLE_SECONDS (default 60),
 * BENCH_SETTLE_SECONDS (default 5). Exit 0 every target met, 1 a target missed, 2 the bench failed.
 */
import { performance } from 'node:perf_hooks';
import { envNumber, machine, progress, sleep, table, verdict } from './report.js';
import { allAtOnce, oneAtATime, SAME_FILE_MS } from './latency.js';
import { clockTicksPerSecond, cpuTicks, memoryKiB } from './proc.js';
import { summarize, type Summary } from './stats.js';
import { BenchWorkspace, type StopReport } from './workspace.js';
import { heartbeatCost } from './heartbeat.js';

const LOOPS = 20;
const LATENCY_MEDIAN_MS = 50;
const LATENCY_P95_MS = 150;
const CPU_PERCENT = 1;
const RSS_MB = 100;
const START_TIMEOUT_MS = 180_000;
const BEAT_SESSIONS = 50;
const BEAT_CPU_PERCENT = 2;



/** Workspaces alive right now, so an interrupted bench leaves nothing behind. */
const live = new Set<BenchWorkspace>();

/** Runs `fn` against one `autodeck run` over `loops` idle loops, then stops it and removes everything. */
async function withLoops<T>(loops: number, settleMs: number, fn: (ws: BenchWorkspace) => Promise<T>, heartbeatSeconds = 60): Promise<{ result: T; stop: StopReport }> {
  const ws = new BenchWorkspace(loops, heartbeatSeconds);
  live.add(ws);
  try {
    ws.start();
    progress(`autodeck run (pid ${ws.pid}) over ${loops} loop(s); waiting for them to run`);
    await ws.waitRunning(START_TIMEOUT_MS);
    await sleep(settleMs);
    ws.assertUndisturbed();
    const result = await fn(ws);
    ws.assertUndisturbed();
    const stop = await ws.stop();
    progress(`stopped by ${stop.how} in ${stop.seconds.toFixed(1)} s`);
    return { result, stop };
  } catch (err) {
    await ws.stop().catch(() => ws.killNow());
    throw err;
  } finally {
    live.delete(ws);
  }
}

interface Idle {
  seconds: number;
  cpuSeconds: number;
  rssKiB: number;
  hwmKiB: number;
}

/** The supervisor's own CPU time over `seconds`, and its memory at the end. */
async function measureIdle(ws: BenchWorkspace, seconds: number): Promise<Idle> {
  const tick = clockTicksPerSecond();
  const c0 = cpuTicks(ws.pid);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const c1 = cpuTicks(ws.pid);
  const t1 = performance.now();
  const mem = memoryKiB(ws.pid);
  return { seconds: (t1 - t0) / 1000, cpuSeconds: (c1 - c0) / tick, rssKiB: mem.rss, hwmKiB: mem.hwm };
}

// ---- the table ----

const ms = (v: number): string => v.toFixed(1);



async function main(): Promise<number> {
  const samples = Math.round(envNumber('BENCH_SAMPLES', 100, 20));
  const idleSeconds = envNumber('BENCH_IDLE_SECONDS', 60, 1);
  const settleMs = envNumber('BENCH_SETTLE_SECONDS', 5, 0) * 1000;
  const stops: StopReport[] = [];

  progress(`latency, 1 loop, ${samples} samples`);
  const one = await withLoops(1, settleMs, async (ws) => {
    await oneAtATime(ws, 5); // warm-up, not counted
    const spaced = await oneAtATime(ws, samples);
    const backToBack = await oneAtATime(ws, samples, 0);
    return { spaced, backToBack };
  });
  stops.push(one.stop);

  progress(`latency, ${LOOPS} loops, ${samples} samples round-robin and ${samples} all at once`);
  const many = await withLoops(LOOPS, settleMs, async (ws) => {
    await oneAtATime(ws, LOOPS); // warm-up: one signal per module, not counted
    const roundRobin = await oneAtATime(ws, samples);
    const together = await allAtOnce(ws, Math.ceil(samples / LOOPS));
    return { roundRobin, together };
  });
  stops.push(many.stop);

  progress(`CPU and memory, ${LOOPS} idle loops, ${idleSeconds} s`);
  const idle = await withLoops(LOOPS, settleMs, (ws) => measureIdle(ws, idleSeconds));
  stops.push(idle.stop);

  progress('heartbeat cost per session: capture + hash + classify, real PTY, captured Claude Code screens');
  const costs = [];
  for (const fixture of ['idle.txt', 'busy.txt', 'permission-prompt.txt', 'quota-subscriber.txt']) costs.push(await heartbeatCost(fixture, 2000));

  progress(`CPU with ${BEAT_SESSIONS} sessions at a 1 s heartbeat, ${idleSeconds} s`);
  const beating = await withLoops(BEAT_SESSIONS, settleMs, (ws) => measureIdle(ws, idleSeconds), 1);
  stops.push(beating.stop);

  // ---- report ----
  const latencyRows: [string, Summary, boolean][] = [
    ['1 loop, one signal at a time', summarize(one.result.spaced), true],
    [`${LOOPS} loops, round-robin`, summarize(many.result.roundRobin), true],
    [`${LOOPS} loops, all ${LOOPS} at the same moment`, summarize(many.result.together), true],
    ['1 loop, writes ~30 ms apart (*)', summarize(one.result.backToBack), false],
  ];
  let missed = false;
  const lat = [['Signal file -> database latency', 'samples', 'median ms', 'p95 ms', 'max ms', '> 100 ms', 'target', 'result']];
  for (const [name, s, targeted] of latencyRows) {
    const ok = s.median < LATENCY_MEDIAN_MS && s.p95 < LATENCY_P95_MS;
    if (targeted && !ok) missed = true;
    lat.push([name, String(s.count), ms(s.median), ms(s.p95), ms(s.max), String(s.slow),
      targeted ? `median < ${LATENCY_MEDIAN_MS}, p95 < ${LATENCY_P95_MS}` : '(none)', targeted ? verdict(ok) : '-']);
  }

  const r = idle.result;
  const cpuShare = r.cpuSeconds / r.seconds; // fraction of one core
  const rssMB = r.rssKiB / 1024;
  const hwmMB = r.hwmKiB / 1024;
  const cpuOk = cpuShare * 100 < CPU_PERCENT;
  const rssOk = rssMB < RSS_MB;
  if (!cpuOk || !rssOk) missed = true;
  const res = [
    [`Supervisor, ${LOOPS} idle loops, ${r.seconds.toFixed(0)} s`, 'value', 'target', 'result'],
    ['CPU time (utime+stime)', `${(cpuShare * 100).toFixed(2)} % of one core = ${(cpuShare * 60).toFixed(2)} s per minute`, `< ${CPU_PERCENT} %`, verdict(cpuOk)],
    ['resident memory (VmRSS)', `${rssMB.toFixed(1)} MB`, `< ${RSS_MB} MB`, verdict(rssOk)],
    ['peak resident memory (VmHWM)', `${hwmMB.toFixed(1)} MB`, `(info)`, ''],
  ];

  const beatRows = [['Heartbeat, one session (capture + hash + classify)', 'beats', 'median µs', 'p95 µs', 'target', 'result']];
  for (const c of costs) {
    const sum = summarize(c.microseconds);
    beatRows.push([`screen: ${c.screen}`, String(sum.count), sum.median.toFixed(0), sum.p95.toFixed(0), '(info)', '']);
  }
  const b = beating.result;
  const beatShare = (b.cpuSeconds / b.seconds) * 100;
  const beatOk = beatShare < BEAT_CPU_PERCENT;
  if (!beatOk) missed = true;
  beatRows.push([`supervisor CPU, ${BEAT_SESSIONS} sessions, 1 s heartbeat, ${b.seconds.toFixed(0)} s`, '-', `${beatShare.toFixed(2)} % of one core`, '-',
    `< ${BEAT_CPU_PERCENT} %`, verdict(beatOk)]);
  beatRows.push([`  resident memory with ${BEAT_SESSIONS} sessions`, '-', `${(b.rssKiB / 1024).toFixed(1)} MB`, '-', '(info)', '']);

  const leftovers = stops.reduce((n, s) => n + s.leftoverAgents, 0);
  const agents = stops.reduce((n, s) => n + s.agents, 0);
  const hows = [...new Set(stops.map((s) => `${s.how} (exit ${s.exitCode})`))].join(', ');
  const slowest = Math.max(...stops.map((s) => s.seconds));

  console.log(`autodeck benchmark: ${machine({ clockTicks: true })}`);
  console.log('');
  console.log(table(lat, ['l', 'r', 'r', 'r', 'r', 'r', 'l', 'l']));
  console.log('');
  console.log(table(res, ['l', 'l', 'l', 'l']));
  console.log('');
  console.log(table(beatRows, ['l', 'r', 'r', 'r', 'l', 'l']));
  console.log('');
  console.log(`Each write is 30 ms after the previous sample was seen and >= ${SAME_FILE_MS} ms after the previous write to the same ` +
    'file; the time runs from before the write of .auto-signal.tmp to the first read that shows the new iteration_count.');
  console.log('(*) Without the same-file spacing: chokidar drops a change of a path within 50 ms of the previous one, so such a ' +
    'write is found by the supervisor\'s trailing poll 60 ms after the event (informational; agents write one signal per step).');
  console.log(`Only the supervisor process is counted (the ${LOOPS} simulated agents are separate processes). ` +
    'MB = 1024 KiB; p95 by nearest rank.');
  console.log(`Cleanup: ${stops.length} supervisors stopped by ${hows}, slowest in ${slowest.toFixed(1)} s; ` +
    `${agents} agents, ${leftovers === 0 ? 'none outlived its supervisor' : `${leftovers} outlived their supervisor and were killed`}; temp folders removed.`);
  if (leftovers > 0) return 2;
  return missed ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    process.stderr.write(`bench: interrupted; killing ${live.size} supervisor(s) and their agents\n`);
    for (const ws of live) ws.killNow();
    process.exit(130);
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
    for (const ws of live) ws.killNow();
    process.exitCode = 2;
  },
);
