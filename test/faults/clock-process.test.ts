import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, runFlags, startCli, type CliRun } from '../helpers/cli.js';
import { eventsOf, loopRow, readDb, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { integrity, makeWorkspace, type Workspace } from './helpers/loops.js';
import { recordRow } from './helpers/results.js';

// Fault: the wall clock of the whole process jumps (clock-jump.test.ts moves the
// supervisor's own Clock in-process; this one moves the system's, under a real `run`).
// libfaketime, preloaded into `autodeck run` and its agents, reads the offset from a file
// the test rewrites mid-run; the monotonic clock stays the real one, as when NTP steps a
// clock. Must hold: a -1 h jump does not hold a 3 s timeout back; +1 h then back does not
// end a 30-minute loop as `timeout` nor count a stall.

/** libfaketime's thread-safe build where Debian (`apt-get install faketime`) and others put it. */
const LIB = [
  process.env.AUTODECK_LIBFAKETIME,
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/faketime/libfaketimeMT.so.1',
  '/usr/local/lib/faketime/libfaketimeMT.so.1',
].find((p): p is string => Boolean(p && existsSync(p)));

let ws: Workspace | undefined;
const children: CliRun[] = [];
afterEach(async () => {
  await killLeftovers(children);
  ws?.cleanup();
  ws = undefined;
});

/** `autodeck run` on one module with its clock behind a libfaketime offset file; `jump` rewrites the offset. */
function fakedRun(name: string, scenario: Record<string, unknown>, flags: string[]) {
  const w = (ws = makeWorkspace('autodeck-fault-faketime-'));
  const dir = w.module(name, { scenario });
  const offsetFile = join(w.dir, 'faketime.rc');
  writeFileSync(offsetFile, '+0\n');
  const env = {
    LD_PRELOAD: LIB!,
    FAKETIME_TIMESTAMP_FILE: offsetFile,
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
    FAKETIME_NO_CACHE: '1',
  };
  const run = startCli(w, ['run', dir, ...runFlags(w, flags)], { env });
  children.push(run);
  const signals = () => (loopRow(w.db, dir)?.iteration_count ?? 0);
  return { w, dir, run, signals, jump: (offset: string) => writeFileSync(offsetFile, `${offset}\n`) };
}

/** When each event of the module was logged, by the run's own (faked) wall clock, ms. */
function eventTimes(db: string, dir: string): { kind: string; at: number }[] {
  return (readDb(db, (d) => d.prepare('SELECT kind, at FROM events WHERE task_dir = ? ORDER BY id').all(dir) as { kind: string; at: string }[]) ?? [])
    .map((e) => ({ kind: e.kind, at: Date.parse(e.at) }));
}
const MINUTE = 60_000;

describe.skipIf(!LIB)(`fault: the process's wall clock jumps (libfaketime${LIB ? '' : ': not installed, apt-get install faketime'})`, () => {
  it('-1 h under `run`: a 3-second timeout still ends the loop after about 3 s of real time', async () => {
    const r = fakedRun('back', { stepSeconds: 0.2, steps: 1000 }, ['--timeout', '0.05']);
    await waitFor(() => r.signals() >= 1, 'a signal', 30_000);
    r.jump('-1h');
    const code = await r.run.exited;
    const [run] = runsOf(r.w.db, r.dir);
    recordRow({ fault: 'process wall clock -1 h under a 3 s timeout (libfaketime, `run`)', atRisk: 1, lost: run?.outcome === 'timeout' ? 0 : 1, doubled: 0,
      pass: run?.outcome === 'timeout', note: `ended ${run?.outcome} after ${run?.active_ms} ms active` });
    expect(code, r.run.stderr()).toBe(1);
    // the jump did reach the process: it logged its end an hour before its start
    const times = eventTimes(r.w.db, r.dir);
    expect(times.find((e) => e.kind === 'started')!.at - times.find((e) => e.kind === 'ended')!.at).toBeGreaterThan(55 * MINUTE);
    expect(run).toMatchObject({ outcome: 'timeout', stop_reason: 'timeout' });
    expect(run!.active_ms).toBeGreaterThanOrEqual(3000);
    expect(run!.active_ms).toBeLessThan(60_000);
    expect(integrity(r.w.db)).toBe('ok');
  }, 90_000);

  it('+1 h, then back, under `run`: a 30-minute loop is not timed out, no stall counted, it completes', async () => {
    const r = fakedRun('forward', { stepSeconds: 0.2, steps: 10 }, ['--timeout', '30', '--max-iterations', '1000']);
    await waitFor(() => r.signals() >= 2, 'two signals', 30_000);
    r.jump('+1h');
    await waitFor(() => r.signals() >= 5, 'three more signals after the jump', 30_000);
    r.jump('+0');
    const code = await r.run.exited;
    const [run] = runsOf(r.w.db, r.dir);
    const kinds = eventsOf(r.w.db, r.dir).map((e) => e.kind);
    const stalls = kinds.filter((k) => k === 'stall' || k === 'stall_unrecognized' || k === 'stop_requested').length;
    const pass = run?.outcome === 'complete' && stalls === 0;
    recordRow({ fault: 'process wall clock +1 h then back under a loop (libfaketime, `run`)', atRisk: 1, lost: run?.outcome === 'complete' ? 0 : 1, doubled: 0, pass,
      note: `ended ${run?.outcome} after ${run?.active_ms} ms active; ${stalls} stalls or stop requests` });
    expect(code, r.run.stderr()).toBe(0);
    // the jump did reach the process: some signals were logged an hour after its start
    const times = eventTimes(r.w.db, r.dir);
    const started = times.find((e) => e.kind === 'started')!.at;
    expect(times.filter((e) => e.kind === 'signal' && e.at - started > 55 * MINUTE).length).toBeGreaterThan(0);
    expect(run).toMatchObject({ outcome: 'complete' });
    expect(stalls).toBe(0);
    expect(run!.active_ms).toBeLessThan(10 * 60_000);
    expect(integrity(r.w.db)).toBe('ok');
  }, 90_000);
});
