import { describe, expect, it } from 'vitest';
import { activeMs, applySignal, endOutcome, limitReached, outcomeOfStopSignal, restartBackoffMs } from '../../src/supervisor/limits.js';
import type { Signal } from '../../src/protocol/signal.js';

const sig = (o: Partial<Signal>): Signal => ({ step: 'exec', result: '(done)', next: 'check', checkpoint: '', timestamp: '2026-11-22T05:00:00Z', ...o });
const T0 = Date.parse('2026-11-22T05:00:00Z');
const loop = (o: Partial<Parameters<typeof limitReached>[0]> = {}) => ({
  iteration: 0, recoveryStep: 2, restartCount: 1, startedAt: new Date(T0).toISOString(), quotaWaitMs: 0, quotaWaitSince: '',
  maxIterations: 20, timeoutMinutes: 30, ...o,
});

describe('applySignal', () => {
  const now = new Date(T0 + 1000);
  it.each([
    ['takes a larger iteration', 3, 5, 5, true],
    ['never goes down', 7, 5, 7, false],
    ['a repeated iteration is no progress', 5, 5, 5, false],
    ['counts one for a signal without iteration', 4, undefined, 5, true],
  ] as const)('%s', (_, before, given, after, grew) => {
    const r = applySignal({ iteration: before }, sig({ iteration: given }), now);
    expect(r.patch.iteration).toBe(after);
    expect(r.iterationGrew).toBe(grew);
    // progress resets the per-iteration recoveries and the restart count
    expect('recoveryStep' in r.patch).toBe(grew);
    if (grew) expect(r.patch).toMatchObject({ recoveryStep: 0, restartCount: 0 });
  });
  it('copies the step fields and stamps the time', () => {
    const r = applySignal({ iteration: 0 }, sig({ step: 'check', result: 'PASS', next: 'exec', checkpoint: 'post-plan', iteration: 1 }), now);
    expect(r.patch).toMatchObject({ step: 'check', result: 'PASS', next: 'exec', checkpoint: 'post-plan', lastSignalAt: now.toISOString() });
  });
});

describe('outcomes', () => {
  it.each([
    ['report', '(done)', 'complete'],
    ['check', 'BLOCKED', 'blocked'],
    ['exec', '(blocked)', 'blocked'],
    ['merge', 'conflict', 'merge_conflict'],
    ['check', 'PASS', 'stopped'],
  ] as const)('(stop) after %s %s is %s', (step, result, outcome) => {
    expect(outcomeOfStopSignal({ step, result })).toBe(outcome);
  });
  it('a force stop is killed whatever else happened', () => {
    expect(endOutcome({ forceStop: true, stopReason: 'user_stop', stopSignal: { step: 'report', result: '(done)' } })).toBe('killed');
  });
  it("the agent's own (stop) wins over a later stop file", () => {
    expect(endOutcome({ stopReason: 'timeout', stopSignal: { step: 'report', result: '(done)' } })).toBe('complete');
  });
  it("a stop file's reason names the outcome", () => {
    expect(endOutcome({ stopReason: 'max_iterations' })).toBe('max_iterations');
  });
});

describe('limits', () => {
  it('nothing reached at the start', () => {
    expect(limitReached(loop(), T0)).toBeUndefined();
  });
  it('the iteration limit at iteration == max', () => {
    expect(limitReached(loop({ iteration: 19 }), T0)).toBeUndefined();
    expect(limitReached(loop({ iteration: 20 }), T0)).toBe('max_iterations');
  });
  it('the timeout counts active time, decimals included', () => {
    const l = loop({ timeoutMinutes: 0.05 }); // three seconds
    expect(limitReached(l, T0 + 2999)).toBeUndefined();
    expect(limitReached(l, T0 + 3000)).toBe('timeout');
  });
  it('quota wait pauses the clock, past and present', () => {
    const l = loop({ timeoutMinutes: 1, quotaWaitMs: 20_000, quotaWaitSince: new Date(T0 + 50_000).toISOString() });
    // 70 s of wall time: 20 s of past wait and 20 s of current wait leave 30 s active
    expect(activeMs(l, T0 + 70_000)).toBe(30_000);
    expect(limitReached(l, T0 + 70_000)).toBeUndefined();
  });
});

describe('restartBackoffMs', () => {
  it('doubles from 1 s and stops at 60 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(restartBackoffMs)).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
  });
});
