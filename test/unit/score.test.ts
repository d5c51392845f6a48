import { describe, expect, it } from 'vitest';
import { runScore, scoreOf } from '../../src/history/score.js';
import { OUTCOMES } from '../../src/store/runs.js';

const MIN = 60_000;

describe('the run score', () => {
  it('follows the formula (1 - i/(i+10))*0.6 + (1 - min(d/1h, 1))*0.4', () => {
    expect(runScore({ iterations: 0, activeMs: 0 })).toBe(1);
    expect(runScore({ iterations: 10, activeMs: 30 * MIN })).toBeCloseTo(0.5, 12);
    expect(runScore({ iterations: 10, activeMs: 0 })).toBeCloseTo(0.7, 12);
    expect(runScore({ iterations: 0, activeMs: 60 * MIN })).toBeCloseTo(0.6, 12);
    expect(runScore({ iterations: 5, activeMs: 15 * MIN })).toBeCloseTo((1 - 5 / 15) * 0.6 + 0.75 * 0.4, 12);
    expect(runScore({ iterations: 30, activeMs: 6 * MIN })).toBeCloseTo(0.25 * 0.6 + 0.9 * 0.4, 12);
  });

  it('stays in 0..1: time is capped at an hour, iterations only approach 0', () => {
    expect(runScore({ iterations: 0, activeMs: 10 * 60 * MIN })).toBeCloseTo(0.6, 12);
    const huge = runScore({ iterations: 1e9, activeMs: 1e12 });
    expect(huge).toBeGreaterThan(0);
    expect(huge).toBeLessThan(1e-8);
    for (const i of [0, 1, 3, 10, 100, 1000]) {
      for (const d of [0, 1, MIN, 59 * MIN, 60 * MIN, 600 * MIN]) {
        const s = runScore({ iterations: i, activeMs: d });
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
      }
    }
  });

  it('higher is better: fewer iterations or less time never score lower', () => {
    expect(runScore({ iterations: 3, activeMs: 10 * MIN })).toBeGreaterThan(runScore({ iterations: 4, activeMs: 10 * MIN }));
    expect(runScore({ iterations: 3, activeMs: 10 * MIN })).toBeGreaterThan(runScore({ iterations: 3, activeMs: 11 * MIN }));
    // past an hour only iterations tell runs apart
    expect(runScore({ iterations: 3, activeMs: 70 * MIN })).toBe(runScore({ iterations: 3, activeMs: 90 * MIN }));
  });

  it('treats negative or NaN inputs as 0 and infinite ones as endless and never leaves 0..1', () => {
    expect(runScore({ iterations: -5, activeMs: -1 })).toBe(1);
    expect(runScore({ iterations: Number.NaN, activeMs: Number.NaN })).toBe(1);
    expect(runScore({ iterations: 0, activeMs: Number.POSITIVE_INFINITY })).toBeCloseTo(0.6, 12);
    expect(runScore({ iterations: Number.POSITIVE_INFINITY, activeMs: 0 })).toBeCloseTo(0.4, 12);
  });

  it('scores a completed run by the formula and every other outcome 0', () => {
    const run = { iterations: 2, activeMs: 5 * MIN };
    expect(scoreOf({ ...run, outcome: 'complete' })).toBe(runScore(run));
    for (const outcome of OUTCOMES.filter((o) => o !== 'complete')) expect(scoreOf({ ...run, outcome }), outcome).toBe(0);
    // so any completed run ranks above a quick failure
    expect(scoreOf({ iterations: 200, activeMs: 300 * MIN, outcome: 'complete' }))
      .toBeGreaterThan(scoreOf({ iterations: 1, activeMs: 1000, outcome: 'failed' }));
  });
});
