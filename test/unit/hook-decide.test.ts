import { describe, expect, it } from 'vitest';
import { decide, GIVE_UP_AFTER_STALE, percent, prompt, PROMPT_TASK_LIMIT, WARN_AFTER_STALE, type HookFacts } from '../../src/hooks/decide.js';
import { SENTINEL } from '../../src/hooks/sentinel.js';
import { parseSignal } from '../../src/protocol/signal.js';
import { outcomeOfStopSignal } from '../../src/supervisor/limits.js';
import type { HookProgress } from '../../src/store/hookProgress.js';
import type { TaskSummary } from '../../src/hooks/tasks.js';

const NOW = new Date('2026-11-22T05:00:00.000Z');
const tasks = (completed: number, total: number): TaskSummary => ({
  total, completed, remaining: Array.from({ length: total - completed }, (_, i) => `task ${completed + i + 1}`),
});
const prev = (o: Partial<HookProgress> = {}): HookProgress => ({
  taskDir: '/p/AiTasks/m', session: 'auto-m-abc123', iteration: 3, completed: 2, staleIterations: 0, blocks: 3,
  updatedAt: '2026-11-22T04:59:00.000Z', ...o,
});
const facts = (o: Partial<HookFacts> = {}): HookFacts => ({
  taskDir: '/p/AiTasks/m', session: 'auto-m-abc123', stopFileExists: false, sentinelSeen: false, tasks: tasks(2, 5),
  progress: prev(), lock: 'mine', maxIterations: 20, now: NOW, ...o,
});

describe('decide: which rule answers', () => {
  it.each([
    // name, facts, decision, rule, endLoop, outcome, writes a signal, stop file, lock
    ['the stop file exists', { stopFileExists: true }, 'allow', 'stop_file', true, undefined, false, undefined, 'release'],
    ['the stop file wins over everything', { stopFileExists: true, sentinelSeen: true, lock: 'held-by-other', tasks: tasks(5, 5) },
      'allow', 'stop_file', true, undefined, false, undefined, 'release'],
    ['the loop is already ending (stopping row, or a (stop) signal)', { loopStopping: true, tasks: tasks(5, 5) },
      'allow', 'stopping', true, undefined, false, undefined, 'release'],
    ['another session holds the lock', { lock: 'held-by-other' }, 'allow', 'lock_held', false, undefined, false, undefined, 'leave'],
    ['a held lock wins over the sentinel', { lock: 'held-by-other', sentinelSeen: true }, 'allow', 'lock_held', false, undefined, false, undefined, 'leave'],
    ['the sentinel', { sentinelSeen: true }, 'allow', 'sentinel', true, 'complete', true, undefined, 'release'],
    ['the sentinel with no tasks at all', { sentinelSeen: true, tasks: tasks(0, 0) }, 'allow', 'sentinel', true, 'complete', true, undefined, 'release'],
    ['every task done', { tasks: tasks(5, 5) }, 'allow', 'all_done', true, 'complete', true, undefined, 'release'],
    ['no tasks is not "every task done"', { tasks: tasks(0, 0) }, 'block', 'continue', false, undefined, true, undefined, 'refresh'],
    ['the iteration limit', { progress: prev({ iteration: 19 }) }, 'allow', 'max_iterations', true, 'max_iterations', true, 'max_iterations', 'release'],
    ['the loop row is already at the limit', { progress: undefined, loopIteration: 19 }, 'allow', 'max_iterations', true, 'max_iterations', true, 'max_iterations', 'release'],
    ['completion wins over the limit', { progress: prev({ iteration: 19 }), tasks: tasks(5, 5) }, 'allow', 'all_done', true, 'complete', true, undefined, 'release'],
    [`${GIVE_UP_AFTER_STALE} stops without progress`, { progress: prev({ staleIterations: GIVE_UP_AFTER_STALE - 1 }) },
      'allow', 'stall_limit', true, 'stall_limit', true, 'stall_limit', 'release'],
    ['a lock to take over', { lock: 'take' }, 'block', 'continue', false, undefined, true, undefined, 'refresh'],
    ['otherwise', {}, 'block', 'continue', false, undefined, true, undefined, 'refresh'],
  ] as const)('%s', (_, o, decision, rule, endLoop, outcome, writesSignal, stopFile, lock) => {
    const d = decide(facts(o as Partial<HookFacts>));
    expect(d).toMatchObject({ decision, rule, endLoop, lock });
    expect(d.outcome).toBe(outcome);
    expect(d.signal !== undefined).toBe(writesSignal);
    expect(d.stopFile).toBe(stopFile);
  });

  it('writes nothing at all when the loop is ending or the lock is not ours', () => {
    for (const o of [{ stopFileExists: true }, { loopStopping: true }, { lock: 'held-by-other' as const }]) {
      const d = decide(facts(o));
      expect(d.signal).toBeUndefined();
      expect(d.stopFile).toBeUndefined();
      expect(d.nextProgress).toBeUndefined();
    }
  });
});

describe('decide: the signals it writes', () => {
  it('a block is an exec step that continues, with the next iteration', () => {
    const d = decide(facts({ progress: prev({ iteration: 3 }) }));
    expect(d.signal).toEqual({ step: 'exec', result: 'CONTINUE', next: 'exec', checkpoint: '', iteration: 4, timestamp: NOW.toISOString() });
  });

  it('a completion is a report (done) that stops, which the supervisor reads as complete', () => {
    const d = decide(facts({ sentinelSeen: true }));
    expect(d.signal).toMatchObject({ step: 'report', result: '(done)', next: '(stop)', iteration: 4 });
    expect(outcomeOfStopSignal(d.signal!)).toBe('complete');
  });

  it('a limit keeps the exec signal (for the counters) and says why in the stop file; no (stop) signal', () => {
    for (const o of [{ progress: prev({ iteration: 19 }) }, { progress: prev({ staleIterations: 9 }) }]) {
      const d = decide(facts(o));
      expect(d.signal?.next).toBe('exec');
    }
  });

  it('every signal it writes is valid for the supervisor', () => {
    for (const o of [{}, { sentinelSeen: true }, { tasks: tasks(5, 5) }, { progress: prev({ iteration: 19 }) }]) {
      const d = decide(facts(o));
      expect(parseSignal(JSON.stringify(d.signal)).ok).toBe(true);
    }
  });

  it('the iteration never goes below the loop row, nor below its own count', () => {
    expect(decide(facts({ progress: undefined })).signal?.iteration).toBe(1);
    expect(decide(facts({ progress: undefined, loopIteration: 6 })).signal?.iteration).toBe(7);
    expect(decide(facts({ progress: prev({ iteration: 9 }), loopIteration: 6 })).signal?.iteration).toBe(10);
  });

  it('never blocks without a signal, and a block never ends the loop', () => {
    const d = decide(facts());
    expect(d.decision).toBe('block');
    expect(d.endLoop).toBe(false);
    expect(d.signal?.next).not.toBe('(stop)');
  });
});

describe('decide: progress counting', () => {
  it.each([
    // name, previous progress, completed now, stale after
    ['the first Stop is the baseline, whatever is done', undefined, 3, 0],
    ['a newly completed task resets the count', { completed: 2, staleIterations: 4 }, 3, 0],
    ['the same count is one more stale stop', { completed: 2, staleIterations: 4 }, 2, 5],
    ['fewer done (a task reopened) is no progress', { completed: 3, staleIterations: 1 }, 2, 2],
    ['a stored row before any count (-1) is the baseline', { completed: -1, staleIterations: 0 }, 0, 0],
  ] as const)('%s', (_, p, completed, stale) => {
    const d = decide(facts({ progress: p === undefined ? undefined : prev(p), tasks: tasks(completed, 8) }));
    expect(d.nextProgress?.staleIterations).toBe(stale);
    expect(d.nextProgress?.completed).toBe(completed);
  });

  it('counts blocks in a row, and an allow resets them', () => {
    expect(decide(facts({ progress: prev({ blocks: 3 }) })).nextProgress?.blocks).toBe(4);
    expect(decide(facts({ progress: undefined })).nextProgress?.blocks).toBe(1);
    expect(decide(facts({ sentinelSeen: true })).nextProgress?.blocks).toBe(0);
  });

  it('stores the loop, the time and the iteration', () => {
    expect(decide(facts()).nextProgress).toMatchObject({ taskDir: '/p/AiTasks/m', session: 'auto-m-abc123', iteration: 4, updatedAt: NOW.toISOString() });
  });

  it(`gives up exactly at the ${GIVE_UP_AFTER_STALE}th stop without progress, and warns from the ${WARN_AFTER_STALE}th`, () => {
    let progress: HookProgress | undefined;
    const seen: string[] = [];
    for (let stop = 0; stop <= GIVE_UP_AFTER_STALE; stop++) {
      const d = decide(facts({ progress, tasks: tasks(1, 4) }));
      seen.push(d.rule === 'continue' ? (/Warning/.test(d.reason) ? 'warn' : 'block') : d.rule);
      progress = d.nextProgress;
    }
    // stop 0 sets the baseline; stops 1..4 block, 5..9 warn, 10 gives up
    expect(seen).toEqual(['block', 'block', 'block', 'block', 'block', 'warn', 'warn', 'warn', 'warn', 'warn', 'stall_limit']);
  });
});

describe('the prompt', () => {
  it('says the progress, the iteration and the task module, and asks for the sentinel', () => {
    const d = decide(facts({ tasks: { total: 7, completed: 3, remaining: ['write the parser', 'test it', 'document it', 'ship'] } }));
    const lines = d.reason.split('\n');
    expect(lines[0]).toBe('autodeck: 3/7 tasks complete (42%), iteration 4 of 20.');
    expect(d.reason).toContain('Task module: /p/AiTasks/m');
    expect(d.reason).toContain('Remaining tasks:\n- write the parser\n- test it\n- document it\n- ship');
    expect(d.reason).toContain(SENTINEL);
    expect(d.reason).not.toMatch(/Warning/);
  });

  it(`lists at most ${PROMPT_TASK_LIMIT} remaining tasks and counts the rest`, () => {
    const text = prompt({ tasks: tasks(0, 25), iteration: 1, maxIterations: 20, staleIterations: 0, taskDir: '/m' });
    expect(text.split('\n').filter((l) => l.startsWith('- task '))).toHaveLength(PROMPT_TASK_LIMIT);
    expect(text).toContain(`- …and ${25 - PROMPT_TASK_LIMIT} more`);
  });

  it('cuts a very long subject', () => {
    const text = prompt({ tasks: { total: 1, completed: 0, remaining: ['x'.repeat(5000)] }, iteration: 1, maxIterations: 20, staleIterations: 0, taskDir: '/m' });
    expect(text.length).toBeLessThan(1000);
  });

  it('without tasks, says how to write them', () => {
    const text = prompt({ tasks: tasks(0, 0), iteration: 1, maxIterations: 20, staleIterations: 0, taskDir: '/m' });
    expect(text).toMatch(/^autodeck: 0\/0 tasks complete \(0%\)/);
    expect(text).toMatch(/No task list found.*\.plan\.md/);
  });

  it(`warns after ${WARN_AFTER_STALE} iterations without progress and suggests splitting the work or another approach`, () => {
    const quiet = prompt({ tasks: tasks(1, 3), iteration: 6, maxIterations: 20, staleIterations: WARN_AFTER_STALE - 1, taskDir: '/m' });
    const warned = prompt({ tasks: tasks(1, 3), iteration: 7, maxIterations: 20, staleIterations: WARN_AFTER_STALE, taskDir: '/m' });
    expect(quiet).not.toMatch(/Warning/);
    expect(warned).toMatch(/Warning: no task has been completed in the last 5 iterations/);
    expect(warned).toMatch(/Split the current task into smaller steps, or try another approach/);
  });

  it.each([[0, 0, 0], [1, 3, 33], [2, 3, 66], [99, 100, 99], [3, 3, 100], [4, 3, 100]])('%i of %i is %i%%', (c, t, p) => {
    expect(percent(c, t)).toBe(p);
  });
});
