import { describe, expect, it } from 'vitest';
import { percentile, roundUpIterations, roundUpMinutes, suggestLimits } from '../../src/history/suggest.js';
import type { Outcome, RunRow } from '../../src/store/runs.js';

const MIN = 60_000;
const DEFAULTS = { maxIterations: 20, timeoutMinutes: 30 };
let nextId = 1;
const run = (outcome: Outcome, iterations: number, activeMinutes: number, o: Partial<RunRow> = {}): RunRow => ({
  id: nextId++, session: 's', taskDir: '/t/m', taskName: 'm', startedAt: '2026-11-22T05:00:00.000Z',
  endedAt: '2026-11-22T06:00:00.000Z', iterations, maxIterations: 20, timeoutMinutes: 30, outcome, stopReason: '',
  forced: false, recoveries: 0, restarts: 0, quotaWaitMs: 0, activeMs: activeMinutes * MIN, tokens: null, costUsd: null, ...o,
});

describe('the limit suggestion', () => {
  it('is the defaults when there are no runs', () => {
    expect(suggestLimits([], DEFAULTS)).toEqual({ ...DEFAULTS, basis: 'defaults: no completed runs', fromRuns: 0 });
  });

  it('keeps the defaults with too few completed runs, and ignores outcomes that say nothing about limits', () => {
    const runs = [run('complete', 4, 3), run('blocked', 2, 1), run('user_stop', 9, 9), run('failed', 1, 0.1), run('killed', 7, 20)];
    expect(suggestLimits(runs, DEFAULTS)).toEqual({ ...DEFAULTS, basis: 'defaults: 1 completed run; a suggestion needs 2', fromRuns: 0 });
    // the defaults as given (a fractional timeout from --timeout stays as it is)
    expect(suggestLimits([], { maxIterations: 7, timeoutMinutes: 0.05 })).toMatchObject({ maxIterations: 7, timeoutMinutes: 0.05 });
  });

  it('with too few runs, still never goes below the largest completed run', () => {
    const s = suggestLimits([run('complete', 45, 50, { maxIterations: 60, timeoutMinutes: 90 })], DEFAULTS);
    expect(s).toMatchObject({ maxIterations: 45, timeoutMinutes: 50, fromRuns: 1 });
    expect(s.basis).toBe('defaults: 1 completed run; a suggestion needs 2; at least the largest completed run');
  });

  it('takes the p90 of completed runs plus 50%, rounded up to a readable step', () => {
    // iterations 1..10: p90 (nearest rank) = 9 -> 13.5 -> 15; minutes 2..20: p90 = 18 -> 27 -> 30
    const runs = Array.from({ length: 10 }, (_, k) => run('complete', k + 1, 2 * (k + 1)));
    const s = suggestLimits(runs, DEFAULTS);
    expect(s).toEqual({ maxIterations: 15, timeoutMinutes: 30, basis: 'p90 of 10 completed runs + 50%', fromRuns: 10 });
    // it may well go below the defaults: a tighter budget catches a runaway loop sooner
    const small = suggestLimits([run('complete', 3, 4), run('complete', 4, 5)], DEFAULTS);
    expect(small).toMatchObject({ maxIterations: 6, timeoutMinutes: 8, basis: 'p90 of 2 completed runs + 50%', fromRuns: 2 });
  });

  it('counts active time only (quota waits are already outside activeMs) and at least one minute', () => {
    const s = suggestLimits([run('complete', 2, 0.05, { quotaWaitMs: 300 * MIN }), run('complete', 3, 0.1)], DEFAULTS);
    expect(s.timeoutMinutes).toBe(1);
    expect(suggestLimits([run('complete', 0, 0), run('complete', 0, 0)], DEFAULTS)).toMatchObject({ maxIterations: 1, timeoutMinutes: 1 });
  });

  it('is never below the largest completed run, even when the p90 is', () => {
    // 20 runs of 2 iterations and one of 60: p90 = 2 -> 3, but 60 was needed once
    const runs = [...Array.from({ length: 20 }, () => run('complete', 2, 1)), run('complete', 60, 1, { maxIterations: 100 })];
    const s = suggestLimits(runs, DEFAULTS);
    expect(s.maxIterations).toBe(60);
    expect(s.basis).toBe('p90 of 21 completed runs + 50%; at least the largest completed run');
  });

  it('raises iterations above a max_iterations limit that a run hit', () => {
    const runs = [run('complete', 3, 2), run('complete', 4, 2), run('max_iterations', 20, 25, { maxIterations: 20 })];
    const s = suggestLimits(runs, DEFAULTS);
    expect(s.maxIterations).toBeGreaterThan(20);
    expect(s.maxIterations).toBe(30); // 20 * 1.5
    expect(s.timeoutMinutes).toBe(3); // time is not what was too low
    expect(s.basis).toBe('p90 of 2 completed runs + 50%; above the 20-iteration limit a run hit');
    expect(s.fromRuns).toBe(3);
    // with no completed run at all, too
    const alone = suggestLimits([run('max_iterations', 20, 10, { maxIterations: 20 })], DEFAULTS);
    expect(alone.maxIterations).toBeGreaterThan(20);
    expect(alone).toMatchObject({ timeoutMinutes: 30, fromRuns: 1 });
    expect(alone.basis).toBe('defaults: no completed runs; above the 20-iteration limit a run hit');
    // a hit below what the defaults give already changes nothing
    expect(suggestLimits([run('max_iterations', 5, 1, { maxIterations: 5 })], DEFAULTS)).toEqual(
      { ...DEFAULTS, basis: 'defaults: no completed runs', fromRuns: 0 });
  });

  it('raises the timeout above a timeout that a run hit, from the highest of several', () => {
    const runs = [run('timeout', 5, 30, { timeoutMinutes: 30 }), run('timeout', 6, 45, { timeoutMinutes: 45 }),
      run('complete', 5, 20), run('complete', 6, 25)];
    const s = suggestLimits(runs, DEFAULTS);
    expect(s.timeoutMinutes).toBeGreaterThan(45);
    expect(s.timeoutMinutes).toBe(75); // 45 * 1.5 = 67.5 -> 75 (steps of 15 from an hour)
    expect(s.maxIterations).toBe(9);
    expect(s.basis).toBe('p90 of 2 completed runs + 50%; above the 45-minute timeout 2 runs hit');
    expect(s.fromRuns).toBe(4);
  });

  it('clamps to the settings ranges: 1..1000 iterations, 1440 minutes', () => {
    const runs = [run('complete', 900, 1200, { maxIterations: 1000, timeoutMinutes: 1440 }),
      run('complete', 950, 1300, { maxIterations: 1000, timeoutMinutes: 1440 })];
    const s = suggestLimits(runs, DEFAULTS);
    expect(s).toMatchObject({ maxIterations: 1000, timeoutMinutes: 1440 });
    expect(s.basis).toBe('p90 of 2 completed runs + 50%; capped at 1000 iterations; capped at 1440 minutes');
    // a hit at the top of the range cannot be raised further
    const top = suggestLimits([run('max_iterations', 1000, 5, { maxIterations: 1000 })], DEFAULTS);
    expect(top.maxIterations).toBe(1000);
    expect(top.basis).toMatch(/above the 1000-iteration limit a run hit; capped at 1000 iterations/);
  });

  it('rounds up by steps that read well', () => {
    expect([0.2, 7.5, 9, 10, 13.5, 49.1, 50, 51, 199, 201, 999].map(roundUpIterations)).toEqual([1, 8, 9, 10, 15, 50, 50, 60, 200, 250, 1000]);
    expect([0.05, 2.5, 10.2, 59, 61, 239, 241].map(roundUpMinutes)).toEqual([1, 3, 15, 60, 75, 240, 270]);
    expect(roundUpIterations(0.1 * 3 * 10)).toBe(3); // float error adds no step
  });

  it('takes percentiles by nearest rank', () => {
    expect(percentile([5], 90)).toBe(5);
    expect(percentile([1, 2], 90)).toBe(2);
    expect(percentile([10, 1, 9, 2, 8, 3, 7, 4, 6, 5], 90)).toBe(9);
    expect(() => percentile([], 90)).toThrow();
  });
});
