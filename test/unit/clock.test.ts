import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activeMsNow, anchorActive, monoOfWall, type Clock } from '../../src/supervisor/clock.js';
import { decideBeat, quotaWait, resetPassed, type BeatLimits, type BeatState } from '../../src/supervisor/heartbeat.js';
import { limitAfter } from '../../src/supervisor/limits.js';
import { Watchdog, type WatchdogHost } from '../../src/supervisor/watchdog.js';
import { PROFILES } from '../../src/agents/profiles.js';
import type { Session } from '../../src/sessions/session.js';
import type { LoopRow } from '../../src/store/loops.js';
import type { EventKind } from '../../src/store/events.js';

// Wall clock jumps: durations on the monotonic clock, the agent's reset times on
// the wall clock. A hand-turned clock whose wall side can jump while the monotonic side
// only moves with "real" time.

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-22T05:00:00Z');

function jumpClock() {
  let mono = 1_000;
  let offset = 0;
  const clock: Clock = { wall: () => T0 + mono + offset, mono: () => mono };
  return { clock, pass: (ms: number) => (mono += ms), jump: (ms: number) => (offset += ms) };
}

describe('a loop\'s active time', () => {
  const row = (o: Partial<LoopRow> = {}) => ({ startedAt: new Date(T0 + 1_000).toISOString(), quotaWaitMs: 0, ...o });

  it('does not move with the wall clock: +1 h does not end a 30-minute loop, -1 h does not hold it', () => {
    const c = jumpClock();
    const r = row();
    const anchor = anchorActive(r, c.clock);
    const limit = { iteration: 1, maxIterations: 10, timeoutMinutes: 30 };
    c.pass(10 * 60_000);
    c.jump(+HOUR);
    expect(activeMsNow(anchor, r, c.clock.mono())).toBe(10 * 60_000);
    expect(limitAfter(limit, activeMsNow(anchor, r, c.clock.mono()))).toBeUndefined();
    c.jump(-2 * HOUR);
    c.pass(20 * 60_000);
    expect(limitAfter(limit, activeMsNow(anchor, r, c.clock.mono()))).toBe('timeout');
  });

  it('an adopted loop carries the time its earlier owners ran it, less their quota waits', () => {
    const c = jumpClock();
    c.pass(50 * 60_000); // the wall says the loop started 50 min ago
    const r = row({ quotaWaitMs: 20 * 60_000 });
    const anchor = anchorActive(r, c.clock);
    expect(anchor.baseMs).toBe(30 * 60_000);
    c.pass(5 * 60_000);
    expect(activeMsNow(anchor, r, c.clock.mono())).toBe(35 * 60_000);
    // a wait that ends here adds to quotaWaitMs; only the part since the anchor comes off again
    c.pass(10 * 60_000);
    expect(activeMsNow(anchor, { quotaWaitMs: r.quotaWaitMs + 10 * 60_000 }, c.clock.mono())).toBe(35 * 60_000);
    // a wait under way comes off while it lasts
    expect(activeMsNow(anchor, r, c.clock.mono(), 10 * 60_000)).toBe(35 * 60_000);
  });

  it('a start time from a wall clock that ran ahead counts nothing negative', () => {
    const c = jumpClock();
    expect(anchorActive(row({ startedAt: new Date(T0 + 5 * HOUR).toISOString() }), c.clock).baseMs).toBe(0);
    expect(anchorActive(row({ startedAt: 'garbage' }), c.clock).baseMs).toBe(0);
  });

  it('a stored wall time reads as a monotonic one, as long ago as the wall says', () => {
    const c = jumpClock();
    c.pass(HOUR);
    expect(monoOfWall(c.clock.wall() - 60_000, c.clock)).toBe(c.clock.mono() - 60_000);
    expect(monoOfWall(c.clock.wall() + 60_000, c.clock)).toBe(c.clock.mono()); // from the future: now
  });
});

describe('a quota reset time', () => {
  const limits = { quotaProbeMs: 900_000 };

  it('comes on the wall clock: a wall clock set forward past it ends the wait', () => {
    const w = quotaWait(1_000, T0, 'limit', T0 + 30 * 60_000, limits);
    expect(w.resetMono).toBe(1_000 + 30 * 60_000);
    expect(resetPassed(w, 2_000, T0 + 1_000)).toBe(false);
    expect(resetPassed(w, 2_000, T0 + HOUR)).toBe(true);
  });

  it('a wall clock set back does not hold the wait past the real time that was left', () => {
    const w = quotaWait(1_000, T0, 'limit', T0 + 30 * 60_000, limits);
    expect(resetPassed(w, 1_000 + 30 * 60_000 - 1, T0 - HOUR)).toBe(false);
    expect(resetPassed(w, 1_000 + 30 * 60_000, T0 - HOUR)).toBe(true);
  });

  it('a wait without a reset time probes on the monotonic clock', () => {
    const w = quotaWait(1_000, T0, 'limit', undefined, limits);
    expect(w).toMatchObject({ since: 1_000, sinceWall: T0, nextProbeAt: 901_000 });
    expect(resetPassed(w, 10 * HOUR, T0 + 10 * HOUR)).toBe(false);
  });
});

describe('the step timeout', () => {
  const limits: BeatLimits = { stallThreshold: 3, recoveryPerIteration: 3, recoveryTotal: 10, stepTimeoutMs: 600_000, quotaProbeMs: 900_000 };
  const state: BeatState = { stallCount: 0, lastCaptureHash: '', recoveryStep: 0, recoveryTotal: 0, lastProgressAt: 1_000, quotaArmed: true };

  it('is measured on the monotonic clock: a wall clock an hour ahead is no stall', () => {
    const d = decideBeat(state, { now: 2_000, wall: T0 + HOUR, hash: 'a', classification: { kind: 'busy' } }, limits);
    expect(d.action).toEqual({ type: 'none' });
    const late = decideBeat(state, { now: 601_000, wall: T0 - HOUR, hash: 'a', classification: { kind: 'busy' } }, limits);
    expect(late.action).toMatchObject({ stepTimeout: true });
  });
});

/** A watchdog over a fake session whose screen shows a quota message, on a jumping clock. */
function quotaRig(message: string) {
  const dir = mkdtempSync(join(tmpdir(), 'autodeck-clock-'));
  mkdirSync(join(dir, '.working'));
  const c = jumpClock();
  let screen = ['● Working…', message];
  const details: { kind: EventKind; detail: Record<string, unknown> }[] = [];
  const writes: string[] = [];
  let row = { taskDir: dir, status: 'running', stallCount: 0, lastCaptureHash: '', recoveryStep: 0, recoveryTotal: 0, quotaWaitSince: '', quotaWaitMs: 0, startedAt: new Date(c.clock.wall()).toISOString(), agentArgv: [] } as unknown as LoopRow;
  const session = { exited: false, screen: () => screen, write: (d: string) => writes.push(d) } as unknown as Session;
  const host: WatchdogHost = {
    taskDir: dir, now: () => c.clock.mono(), wall: () => c.clock.wall(), session: () => session, row: () => row,
    patch: (p) => (row = { ...row, ...p }), patchLater: (p) => (row = { ...row, ...p }), event: (kind, detail) => details.push({ kind, detail }),
    requestStop: () => undefined, fail: () => undefined, later: (_ms, fn) => fn(),
  };
  const dog = new Watchdog(host, PROFILES.generic, { stallThreshold: 2, recoveryPerIteration: 3, recoveryTotal: 10, stepTimeoutMs: HOUR, quotaProbeMs: 60_000, timeZone: 'UTC' }, undefined);
  return { c, dog, details, writes, row: () => row, setScreen: (s: string[]) => (screen = s) };
}

describe('a quota wait in the watchdog', () => {
  it('ends when the wall clock passes the named reset; the time waited is the monotonic time', () => {
    const resetAt = Math.floor((T0 + 1_000 + 30 * 60_000) / 1000); // the epoch form: reset in 30 min
    const r = quotaRig(`Claude AI usage limit reached|${resetAt}`);
    r.dog.beat();
    expect(r.row()).toMatchObject({ status: 'quota_wait', quotaWaitSince: new Date(T0 + 1_000).toISOString() });
    expect(r.dog.inQuotaWait).toBe(true);
    r.c.pass(2 * 60_000);
    r.dog.beat();
    expect(r.dog.inQuotaWait).toBe(true);
    expect(r.dog.quotaWaitingMs()).toBe(2 * 60_000);
    r.c.jump(+HOUR);
    r.c.pass(1_000);
    r.dog.beat();
    expect(r.dog.inQuotaWait).toBe(false);
    expect(r.details.find((d) => d.kind === 'quota_resume')!.detail).toMatchObject({ why: 'reset time passed', waitedMs: 2 * 60_000 + 1_000 });
    expect(r.row()).toMatchObject({ status: 'running', quotaWaitMs: 2 * 60_000 + 1_000 });
    expect(r.writes).toContain(PROFILES.generic.continuationMessage);
  });

  it('a wall clock set back an hour does not keep it an hour longer', () => {
    const resetAt = Math.floor((T0 + 1_000 + 10 * 60_000) / 1000);
    const r = quotaRig(`Claude AI usage limit reached|${resetAt}`);
    r.dog.beat();
    expect(r.dog.inQuotaWait).toBe(true);
    r.c.jump(-HOUR);
    // the parser adds a margin past the named time; well past that, real time says it has come
    r.c.pass(10 * 60_000 + 5 * 60_000);
    r.dog.beat();
    expect(r.dog.inQuotaWait).toBe(false);
    expect(r.row().quotaWaitMs).toBe(15 * 60_000);
  });
});
