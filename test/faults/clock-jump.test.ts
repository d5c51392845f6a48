import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { SIM_AGENT } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { resolveSettings } from '../../src/config/settings.js';
import { Store } from '../../src/store/index.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import type { Clock } from '../../src/supervisor/clock.js';
import type { LoopEvent } from '../../src/store/events.js';
import type { RunRow } from '../../src/store/runs.js';
import { integrity, makeWorkspace, type Workspace } from './helpers/loops.js';
import { recordRow, scale } from './helpers/results.js';

// Fault: the wall clock jumps an hour forward or back under running loops (NTP stepping a
// clock that was off, a person setting the date). Injected through the supervisor's clock:
// the wall side jumps, the monotonic side is the real one. Real agents (the simulated agent
// in real PTYs), a real database. Must hold: a +1 h jump does not end a 30-minute loop as
// `timeout` nor count as a step timeout (stall); a -1 h jump does not hold a timeout back;
// a crash's restart backoff is not cut or stretched; a quota reset the agent names is
// honoured on the wall clock, and the time waited is the real time.

const HOUR = 3_600_000;

/** The system's clocks, but the wall side may be moved. */
class JumpClock implements Clock {
  offset = 0;
  wall = (): number => Date.now() + this.offset;
  mono = (): number => performance.now();
}

interface Rig {
  ws: Workspace;
  store: Store;
  supervisor: Supervisor;
  clock: JumpClock;
  events: LoopEvent[];
  ended: Promise<RunRow>;
}

type Finished = (fn: () => Promise<void>) => void;

/** One supervisor on its own clock and workspace, torn down when its test ends (the tests run at once). */
function rig(finished: Finished, name: string, scenario: Record<string, unknown>, flags: Record<string, unknown> = {}): Rig & { dir: string } {
  const ws = makeWorkspace('autodeck-fault-clock-');
  const dir = ws.module(name, { scenario });
  const { value: settings, errors } = resolveSettings({
    flags: { db: ws.db, roots: [ws.root], agent: SIM_AGENT, heartbeatSeconds: 0.2, stepTimeoutMinutes: 10, ...flags }, env: ws.env, cwd: ws.dir,
  });
  expect(errors).toEqual([]);
  const store = Store.open(settings.db);
  const clock = new JumpClock();
  const supervisor = new Supervisor({ store, settings, env: ws.env, clock });
  const events: LoopEvent[] = [];
  supervisor.on('event', (e) => events.push(e));
  const ended = new Promise<RunRow>((res) => supervisor.on('ended', res));
  finished(async () => {
    supervisor.stopAll({ force: true });
    await Promise.race([supervisor.whenIdle(), new Promise((res) => setTimeout(res, 10_000))]);
    supervisor.close();
    store.close();
    ws.cleanup();
  });
  return { ws, store, supervisor, clock, events, ended, dir };
}

const kinds = (r: Rig, kind: string) => r.events.filter((e) => e.kind === kind);
const signals = (r: Rig) => kinds(r, 'signal').length;

describe.concurrent('fault: the wall clock jumps ±1 h', () => {
  it('+1 h, then -1 h: no timeout, no stall; a crash restarts after its backoff; the loop completes', async ({ onTestFinished }) => {
    const steps = scale(8, 24);
    const r = rig(onTestFinished, 'forward', { stepSeconds: 0.15, steps });
    r.supervisor.start(r.dir, { timeoutMinutes: 30, maxIterations: 1000 });
    await waitFor(() => signals(r) >= 2, 'two signals');
    r.clock.offset += HOUR;
    await waitFor(() => signals(r) >= 4, 'two more signals after the jump');
    // a crash after the jump: the 1 s backoff is a timer, the clock has no say in it
    const pid = r.supervisor.loopOf(r.dir)!.row.agentPid!;
    const killedAt = performance.now();
    process.kill(pid, 'SIGKILL');
    await waitFor(() => kinds(r, 'restart').length === 1, 'the restart');
    r.clock.offset -= 2 * HOUR; // and back past the start
    await waitFor(() => r.supervisor.loopOf(r.dir)?.row.agentPid && r.supervisor.loopOf(r.dir)!.row.agentPid !== pid, 'the new agent');
    const restartedMs = Math.round(performance.now() - killedAt);
    const run = await r.ended;
    const stalls = kinds(r, 'stall').length + kinds(r, 'stall_unrecognized').length;
    const pass = run.outcome === 'complete' && stalls === 0 && run.activeMs < 10 * 60_000 && integrity(r.ws.db) === 'ok';
    recordRow({ fault: 'wall clock +1 h then -1 h under a loop, a crash between', atRisk: 1, lost: run.outcome === 'complete' ? 0 : 1, doubled: 0, pass,
      note: `restart ${restartedMs} ms after the kill (backoff 1000 ms); active ${Math.round(run.activeMs)} ms` });
    expect(run).toMatchObject({ outcome: 'complete', restarts: 1 });
    expect(kinds(r, 'stop_requested')).toEqual([]);
    expect(stalls).toBe(0);
    expect(kinds(r, 'restart')[0]!.detail).toMatchObject({ attempt: 1, inMs: 1000 });
    // the backoff was waited in full, not cut by the clock going back (a lower bound: a slow machine only adds)
    expect(restartedMs).toBeGreaterThanOrEqual(950);
    expect(run.activeMs).toBeLessThan(10 * 60_000);
    expect(integrity(r.ws.db)).toBe('ok');
  });

  it('-1 h: a 3-second timeout still ends the loop after about 3 s of real time', async ({ onTestFinished }) => {
    const r = rig(onTestFinished, 'back', { stepSeconds: 0.2, steps: 1000 });
    r.supervisor.start(r.dir, { timeoutMinutes: 0.05, maxIterations: 1000 });
    await waitFor(() => signals(r) >= 1, 'a signal');
    r.clock.offset -= HOUR;
    const run = await r.ended;
    recordRow({ fault: 'wall clock -1 h under a 3 s timeout', atRisk: 1, lost: run.outcome === 'timeout' ? 0 : 1, doubled: 0, pass: run.outcome === 'timeout',
      note: `ended timeout after ${Math.round(run.activeMs)} ms active` });
    expect(run).toMatchObject({ outcome: 'timeout', stopReason: 'timeout' });
    expect(run.activeMs).toBeGreaterThanOrEqual(3000);
    expect(run.activeMs).toBeLessThan(60_000);
  });

  it('a quota reset 30 min ahead comes when the wall clock jumps past it; the wait counted is the real one', async ({ onTestFinished }) => {
    const r = rig(onTestFinished, 'quota', { stepSeconds: 0.15, steps: 4, quota: { atIteration: 2, message: 'Claude AI usage limit reached|{epoch+1800}', seconds: 600 } });
    r.supervisor.start(r.dir, { timeoutMinutes: 30, maxIterations: 1000 });
    await waitFor(() => kinds(r, 'quota_wait').length >= 1, 'the quota wait');
    expect(kinds(r, 'quota_wait')[0]!.detail.resetAt).toEqual(expect.any(String));
    r.clock.offset += HOUR;
    const run = await r.ended;
    const resume = kinds(r, 'quota_resume')[0]?.detail;
    const pass = run.outcome === 'complete' && resume?.why === 'reset time passed' && run.quotaWaitMs < 10 * 60_000;
    recordRow({ fault: 'wall clock +1 h past a quota reset time', atRisk: 1, lost: run.outcome === 'complete' ? 0 : 1, doubled: 0, pass,
      note: `resumed (${String(resume?.why)}) after ${Math.round(run.quotaWaitMs)} ms of real waiting` });
    expect(resume).toMatchObject({ why: 'reset time passed' });
    expect(run).toMatchObject({ outcome: 'complete' });
    expect(run.quotaWaitMs).toBeLessThan(10 * 60_000);
    expect(kinds(r, 'stall')).toEqual([]);
  });
});
