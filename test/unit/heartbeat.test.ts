import { describe, expect, it } from 'vitest';
import { COMPACTION_GRACE_MS, decideBeat, quotaWait, TRANSIENT_FIRST_MS, type BeatLimits, type BeatState, type Observation } from '../../src/supervisor/heartbeat.js';
import type { Classification } from '../../src/agents/classify.js';

const T0 = Date.parse('2026-11-22T05:00:00Z');
const limits: BeatLimits = { stallThreshold: 3, recoveryPerIteration: 3, recoveryTotal: 10, stepTimeoutMs: 600_000, quotaProbeMs: 900_000, timeZone: 'UTC' };
const fresh = (o: Partial<BeatState> = {}): BeatState => ({
  stallCount: 0, lastCaptureHash: '', recoveryStep: 0, recoveryTotal: 0, lastProgressAt: T0, quotaArmed: true, ...o,
});
const obs = (kind: Classification['kind'], o: Partial<Observation> = {}): Observation => ({
  now: T0 + 1000, hash: 'h', classification: { kind }, ...o,
});

/** Runs beats over the same screen and returns the last decision. */
function beats(n: number, state: BeatState, kind: Classification['kind'], o: Partial<Observation> = {}) {
  let s = state;
  let last = decideBeat(s, obs(kind, o), limits);
  for (let i = 0; i < n; i++) {
    last = decideBeat(s, obs(kind, { ...o, now: T0 + 1000 * (i + 1) }), limits);
    s = last.state;
  }
  return last;
}

describe('stall counting', () => {
  it('counts unchanged captures and resets on a change', () => {
    const a = decideBeat(fresh({ lastCaptureHash: 'h', stallCount: 1 }), obs('unknown'), limits);
    expect(a.state.stallCount).toBe(2);
    expect(a.action).toEqual({ type: 'none' });
    const b = decideBeat(a.state, obs('unknown', { hash: 'other' }), limits);
    expect(b.state.stallCount).toBe(0);
  });

  it.each([
    ['a yes/no prompt is answered', 'yes_no_prompt', ['y', '\r'], { type: 'recover', keys: ['y', '\r'] }],
    ['a permission menu is answered', 'permission_prompt', ['\r'], { type: 'recover', keys: ['\r'] }],
    ['a continuation prompt gets Enter', 'continue_prompt', ['\r'], { type: 'recover', keys: ['\r'] }],
    ['an idle agent gets the silent continue', 'idle', undefined, { type: 'recover', keys: 'continuation' }],
    ['anything else is unrecognised, sending nothing', 'unknown', undefined, { type: 'unrecognized' }],
    ['a busy screen that never changes is unrecognised too', 'busy', undefined, { type: 'unrecognized' }],
  ] as const)('at the threshold, %s', (_, kind, answer, action) => {
    const d = beats(4, fresh(), kind, { answer: answer ? [...answer] : undefined });
    expect(d.action).toMatchObject(action);
    // every recovery counts, and the stall count starts over
    expect(d.state).toMatchObject({ recoveryStep: 1, recoveryTotal: 1, stallCount: 0 });
  });

  it('stops at the per-iteration limit, and at the total limit', () => {
    const perIteration = decideBeat(fresh({ lastCaptureHash: 'h', stallCount: 2, recoveryStep: 3, recoveryTotal: 3 }), obs('idle'), limits);
    expect(perIteration.action).toMatchObject({ type: 'stall_limit' });
    const total = decideBeat(fresh({ lastCaptureHash: 'h', stallCount: 2, recoveryStep: 0, recoveryTotal: 10 }), obs('idle'), limits);
    expect(total.action).toMatchObject({ type: 'stall_limit' });
  });

  it('a step timeout is a suspected stall even while the screen changes', () => {
    const d = decideBeat(fresh({ lastCaptureHash: 'old' }), obs('unknown', { now: T0 + limits.stepTimeoutMs }), limits);
    expect(d.action).toMatchObject({ type: 'unrecognized', stepTimeout: true });
    // the recovery is progress: the next step timeout is a full period away
    expect(d.state.lastProgressAt).toBe(T0 + limits.stepTimeoutMs);
  });

  it('a blank screen (an agent not drawn yet) is no stall, but the step timeout still holds', () => {
    expect(beats(10, fresh(), 'unknown', { blank: true })).toMatchObject({ action: { type: 'none' }, state: { stallCount: 0, recoveryStep: 0 } });
    const late = decideBeat(fresh({ lastCaptureHash: 'h' }), obs('unknown', { blank: true, now: T0 + limits.stepTimeoutMs }), limits);
    expect(late.action).toMatchObject({ type: 'unrecognized', stepTimeout: true });
  });

  it('compaction is not a stall for 30 minutes, then it is', () => {
    let s = fresh({ lastCaptureHash: 'h', stallCount: 5 });
    const during = decideBeat(s, obs('compacting', { now: T0 + 1000 }), limits);
    expect(during.action).toEqual({ type: 'none' });
    s = { ...during.state, stallCount: 5 };
    const after = decideBeat(s, obs('compacting', { now: T0 + 1000 + COMPACTION_GRACE_MS }), limits);
    expect(after.action).toMatchObject({ type: 'unrecognized', kind: 'compacting' });
  });
});

describe('quota', () => {
  const quota = (line: string): Classification => ({ kind: 'quota', quotaLine: line });

  it('a quota message enters the wait at once, with the reset time and its margin', () => {
    const d = decideBeat(fresh(), { now: T0, hash: 'h', classification: quota("You've hit your limit · resets 6am (UTC)") }, limits);
    expect(d.action).toMatchObject({ type: 'enter_quota' });
    expect(d.state.quota?.resetAt).toBe(Date.parse('2026-11-22T06:01:00Z'));
    expect(d.state.quotaArmed).toBe(false);
  });

  it('answers the agent\'s own menu about the limit', () => {
    const d = decideBeat(fresh(), { now: T0, hash: 'h', classification: quota('5-hour limit reached ∙ resets 9am'), answer: ['1'] }, limits);
    expect(d.action).toMatchObject({ type: 'enter_quota', keys: ['1'] });
  });

  it('pauses stall counting and resumes after the reset with the continuation', () => {
    const entered = decideBeat(fresh(), { now: T0, hash: 'h', classification: quota("You've hit your limit · resets 6am (UTC)") }, limits).state;
    const waiting = decideBeat({ ...entered, stallCount: 0 }, { now: T0 + 30 * 60_000, hash: 'h', classification: quota('x resets 6am') }, limits);
    expect(waiting.action).toEqual({ type: 'none' });
    expect(waiting.state.stallCount).toBe(0);
    const resumed = decideBeat(waiting.state, { now: Date.parse('2026-11-22T06:01:00Z'), hash: 'h', classification: quota('x') }, limits);
    expect(resumed.action).toMatchObject({ type: 'quota_resume', typeContinuation: true });
    expect(resumed.state.quota).toBeUndefined();
  });

  it('without a reset time, probes every quotaProbeMinutes', () => {
    const entered = decideBeat(fresh(), { now: T0, hash: 'h', classification: quota('API Error: 429 rate_limit_error') }, limits).state;
    expect(entered.quota).toMatchObject({ resetAt: undefined, nextProbeAt: T0 + limits.quotaProbeMs });
    const probe = decideBeat(entered, { now: T0 + limits.quotaProbeMs, hash: 'h', classification: quota('API Error: 429') }, limits);
    expect(probe.action).toEqual({ type: 'quota_probe' });
    expect(probe.state.quota?.nextProbeAt).toBe(T0 + 2 * limits.quotaProbeMs);
  });

  it('ends when the message is gone from the screen', () => {
    const entered = decideBeat(fresh(), { now: T0, hash: 'h', classification: quota('API Error: 429') }, limits).state;
    const gone = decideBeat(entered, obs('busy', { now: T0 + 5000 }), limits);
    expect(gone.action).toMatchObject({ type: 'quota_resume', typeContinuation: false, why: 'message gone' });
  });

  it('an old message still on screen after a resume does not start a new wait until it has left', () => {
    const s = fresh({ quotaArmed: false, lastCaptureHash: 'x' });
    const still = decideBeat(s, { now: T0, hash: 'y', classification: quota('API Error: 429') }, limits);
    expect(still.action).toEqual({ type: 'none' });
    const cleared = decideBeat(still.state, obs('busy', { hash: 'z' }), limits);
    expect(cleared.state.quotaArmed).toBe(true);
    const again = decideBeat(cleared.state, { now: T0 + 2000, hash: 'w', classification: quota('API Error: 429') }, limits);
    expect(again.action).toMatchObject({ type: 'enter_quota' });
  });

  it('a stall on a quota screen is a quota wait even when disarmed', () => {
    const s = fresh({ quotaArmed: false, lastCaptureHash: 'h', stallCount: 2 });
    const d = decideBeat(s, { now: T0, hash: 'h', classification: quota('API Error: 429') }, limits);
    expect(d.action).toMatchObject({ type: 'enter_quota' });
    expect(d.state.recoveryTotal).toBe(0);
  });
});

describe('transient rate limits and a resume the agent schedules itself', () => {
  it('a transient limit (no reset) probes after a back-off that doubles, up to quotaProbeMinutes', () => {
    const transient: Classification = { kind: 'quota', quotaLine: 'API Error: 429 Too Many Requests', quotaTransient: true };
    let s = decideBeat(fresh(), { now: T0, hash: 'h', classification: transient }, limits).state;
    expect(s.quota).toMatchObject({ transient: true, nextProbeAt: T0 + TRANSIENT_FIRST_MS });
    const gaps: number[] = [];
    let now = T0;
    for (let i = 0; i < 6; i++) {
      const before = s.quota!.nextProbeAt;
      // nothing before the probe is due
      expect(decideBeat(s, { now: before - 1, hash: 'h', classification: transient }, limits).action).toEqual({ type: 'none' });
      const d = decideBeat(s, { now: before, hash: 'h', classification: transient }, limits);
      expect(d.action).toEqual({ type: 'quota_probe' });
      gaps.push(before - now);
      now = before;
      s = d.state;
    }
    expect(gaps).toEqual([60_000, 120_000, 240_000, 480_000, 900_000, 900_000]);
  });

  it('a usage limit without a reset keeps the plain probe period', () => {
    const d = decideBeat(fresh(), { now: T0, hash: 'h', classification: { kind: 'quota', quotaLine: 'Claude usage limit reached' } }, limits);
    expect(d.state.quota).toMatchObject({ nextProbeAt: T0 + limits.quotaProbeMs });
    expect(d.state.quota?.transient).toBeUndefined();
  });

  it('"Continuing automatically at …": nothing typed at the reset; a probe period later, if still there, the continuation', () => {
    const self: Classification = { kind: 'quota', quotaLine: 'Usage limit reached · limit resets 6am', quotaReset: 'at 6am', quotaSelfResume: true };
    const entered = decideBeat(fresh(), { now: T0, wall: T0, hash: 'h', classification: self }, limits);
    expect(entered.action).toMatchObject({ type: 'enter_quota' });
    expect((entered.action as { keys?: string[] }).keys).toBeUndefined();
    const reset = Date.parse('2026-11-22T06:01:00Z');
    const atReset = decideBeat(entered.state, { now: reset, wall: reset, hash: 'h', classification: self }, limits);
    expect(atReset.action).toEqual({ type: 'none' });
    // Claude Code resumed by itself: the message is gone, nothing typed
    expect(decideBeat(atReset.state, { now: reset + 5000, wall: reset + 5000, hash: 'h2', classification: { kind: 'busy' } }, limits).action)
      .toMatchObject({ type: 'quota_resume', typeContinuation: false });
    // it did not: a probe period after the reset, autodeck types the continuation once
    const late = reset + limits.quotaProbeMs;
    expect(decideBeat(atReset.state, { now: late, wall: late, hash: 'h', classification: self }, limits).action)
      .toMatchObject({ type: 'quota_resume', typeContinuation: true });
  });

  it('a wait begun from the transcript learns from the screen that the agent resumes by itself', () => {
    const wait = quotaWait(T0, T0, "You've hit your session limit · resets 6am (UTC)", Date.parse('2026-11-22T06:01:00Z'), limits);
    const d = decideBeat(fresh({ quota: wait }), { now: T0 + 1000, hash: 'h', classification: { kind: 'quota', quotaSelfResume: true } }, limits);
    expect(d.state.quota?.selfResume).toBe(true);
  });
});
