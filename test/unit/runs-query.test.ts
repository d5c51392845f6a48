import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/index.js';
import type { NewRun, Outcome } from '../../src/store/runs.js';

const run = (taskDir: string, outcome: Outcome, iterations: number): NewRun => ({
  session: 's', taskDir, taskName: taskDir.slice(3), startedAt: '2026-11-22T05:00:00.000Z', endedAt: '2026-11-22T05:10:00.000Z',
  iterations, maxIterations: 20, timeoutMinutes: 30, outcome, stopReason: '', forced: false, recoveries: 0, restarts: 0,
  quotaWaitMs: 0, activeMs: 1000,
});

describe('RunStore queries for history', () => {
  it('lists one module\'s runs newest first, optionally of some outcomes only, and counts runs', () => {
    const store = Store.open(join(mkdtempSync(join(tmpdir(), 'autodeck-runs-')), 'state.db'));
    try {
      const outcomes: Outcome[] = ['complete', 'blocked', 'max_iterations', 'complete', 'timeout', 'user_stop', 'complete'];
      outcomes.forEach((o, i) => store.runs.insert(run('/t/a', o, i + 1)));
      store.runs.insert(run('/t/b', 'complete', 99));

      expect(store.runs.forTaskDir('/t/a').map((r) => r.iterations)).toEqual([7, 6, 5, 4, 3, 2, 1]);
      expect(store.runs.forTaskDir('/t/a', 2).map((r) => r.iterations)).toEqual([7, 6]);
      const useful = store.runs.forTaskDir('/t/a', 50, ['complete', 'max_iterations', 'timeout']);
      expect(useful.map((r) => `${r.outcome}:${r.iterations}`)).toEqual(['complete:7', 'timeout:5', 'complete:4', 'max_iterations:3', 'complete:1']);
      expect(store.runs.forTaskDir('/t/a', 2, ['complete']).map((r) => r.iterations)).toEqual([7, 4]);
      expect(store.runs.forTaskDir('/t/a', 10, [])).toEqual([]);
      expect(store.runs.forTaskDir('/t/none', 10, ['complete'])).toEqual([]);
      expect(useful[0]).toMatchObject({ taskDir: '/t/a', forced: false, maxIterations: 20, timeoutMinutes: 30 });

      expect(store.runs.count()).toBe(8);
      expect(store.runs.count('/t/a')).toBe(7);
      expect(store.runs.count('/t/none')).toBe(0);
      // the existing list is unchanged
      expect(store.runs.list(3).map((r) => r.iterations)).toEqual([99, 7, 6]);
    } finally {
      store.close();
    }
  });
});
