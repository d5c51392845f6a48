import { describe, it, expect } from 'vitest';
import { LIFECYCLE_STATUSES, type LifecycleStatus } from '../../src/protocol/modules.js';
import { parseSignal, type Checkpoint, type Step } from '../../src/protocol/signal.js';
import {
  ROUTES, STEP_KEYS, STEP_N, defaultResult, entryStep, positionOf, resultsOf, resumeFrom, route, statusAtStop,
  statusDuring, stepKey, type Position,
} from '../../src/sim/routing.js';

// The auto loop's routing as the brief states it: [step, checkpoint, result, next, next checkpoint].
const EXPECTED: [Step, Checkpoint, string, string, Checkpoint][] = [
  ['plan', '', '(generated)', 'check', 'post-plan'],
  ['plan', '', '(annotations)', 'check', 'post-plan'],
  ['check', 'post-plan', 'PASS', 'exec', ''],
  ['check', 'post-plan', 'NEEDS_REVISION', 'plan', ''],
  ['check', 'post-plan', 'BLOCKED', '(stop)', ''],
  ['exec', '', '(step-0)', 'exec', ''],
  ['exec', '', '(step-3)', 'exec', ''],
  ['exec', '', '(step-12)', 'exec', ''],
  ['exec', '', '(mid-exec)', 'check', 'mid-exec'],
  ['exec', '', '(done)', 'check', 'post-exec'],
  ['exec', '', '(blocked)', '(stop)', ''],
  ['check', 'mid-exec', 'CONTINUE', 'exec', ''],
  ['check', 'mid-exec', 'NEEDS_FIX', 'exec', ''],
  ['check', 'mid-exec', 'REPLAN', 'plan', ''],
  ['check', 'mid-exec', 'BLOCKED', '(stop)', ''],
  ['check', 'post-exec', 'ACCEPT', 'merge', ''],
  ['check', 'post-exec', 'NEEDS_FIX', 'exec', ''],
  ['check', 'post-exec', 'REPLAN', 'plan', ''],
  ['check', 'post-exec', 'BLOCKED', '(stop)', ''],
  ['merge', '', 'success', 'report', ''],
  ['merge', '', 'conflict', '(stop)', ''],
  ['report', '', '(done)', '(stop)', ''],
];

describe('route', () => {
  it.each(EXPECTED)('%s@%s %s -> %s %s', (step, checkpoint, result, next, nextCheckpoint) => {
    expect(route(step, checkpoint, result)).toEqual({ next, checkpoint: nextCheckpoint });
  });

  it.each([
    ['plan', '', 'PASS'],
    ['check', 'post-plan', 'ACCEPT'],
    ['check', 'mid-exec', 'PASS'],
    ['check', 'post-exec', 'CONTINUE'],
    ['check', '', 'PASS'],
    ['exec', '', '(step-01)'],
    ['exec', 'post-exec', '(done)'],
    ['merge', '', '(done)'],
    ['report', '', 'success'],
  ] as [Step, Checkpoint, string][])('has no route for %s@%s %s', (step, checkpoint, result) => {
    expect(route(step, checkpoint, result)).toBeUndefined();
  });

  it('covers every row of the table with the expected list', () => {
    const listed = new Set(EXPECTED.map(([s, c, r]) => `${s}@${c} ${/^\(step-\d+\)$/.test(r) ? STEP_N : r}`));
    expect(new Set(ROUTES.map((row) => `${row.step}@${row.checkpoint} ${row.result}`))).toEqual(listed);
  });
});

describe('default path', () => {
  it('runs plan, check, exec, check, merge, report, then stops', () => {
    const visited: string[] = [];
    let pos: Position | undefined = { step: 'plan', checkpoint: '' };
    while (pos && visited.length < 20) {
      visited.push(stepKey(pos));
      const routed = route(pos.step, pos.checkpoint, defaultResult(pos));
      pos = routed && routed.next !== '(stop)' ? { step: routed.next, checkpoint: routed.checkpoint } : undefined;
    }
    expect(visited).toEqual(['plan', 'check@post-plan', 'exec', 'check@post-exec', 'merge', 'report']);
  });

  it.each([
    ['plan', '(generated)'], ['check@post-plan', 'PASS'], ['check@mid-exec', 'CONTINUE'], ['check@post-exec', 'ACCEPT'],
    ['exec', '(done)'], ['merge', 'success'], ['report', '(done)'],
  ] as const)('the default result of %s is %s', (key, result) => {
    expect(defaultResult(positionOf(key))).toBe(result);
  });
});

describe('emitted signals', () => {
  const combos = EXPECTED.map(([step, checkpoint, result]) => ({ step, checkpoint, result }));
  it.each(combos)('$step@$checkpoint $result validates with parseSignal', ({ step, checkpoint, result }) => {
    const routed = route(step, checkpoint, result)!;
    const text = JSON.stringify({ step, result, next: routed.next, checkpoint, iteration: 7, timestamp: new Date(0).toISOString() });
    const parsed = parseSignal(text);
    expect(parsed.ok ? parsed.signal : parsed.reason).toMatchObject({ step, result, next: routed.next, checkpoint, iteration: 7 });
  });

  it('every step key maps to a position and back', () => {
    for (const key of STEP_KEYS) expect(stepKey(positionOf(key))).toBe(key);
    for (const key of STEP_KEYS) expect(resultsOf(positionOf(key)).length).toBeGreaterThan(0);
  });
});

describe('entryStep', () => {
  const expected: Record<LifecycleStatus, string | undefined> = {
    draft: 'plan', planning: 'plan', 're-planning': 'plan', unknown: 'plan', evolving: 'plan',
    review: 'check@post-plan', executing: 'exec', blocked: 'check@mid-exec',
    complete: 'report', satisfied: 'report', cancelled: undefined,
  };
  it.each([...LIFECYCLE_STATUSES, 'unknown' as const])('%s', (status) => {
    const at = entryStep(status);
    expect(at && stepKey(at)).toBe(expected[status]);
  });
});

describe('resumeFrom', () => {
  it.each([
    [{ step: 'plan', checkpoint: '', result: '(generated)', next: 'check' }, 'check@post-plan'],
    [{ step: 'exec', checkpoint: '', result: '(done)', next: 'check' }, 'check@post-exec'],
    [{ step: 'exec', checkpoint: '', result: '(mid-exec)', next: 'check' }, 'check@mid-exec'],
    [{ step: 'check', checkpoint: 'post-exec', result: 'NEEDS_FIX', next: 'exec' }, 'exec'],
    [{ step: 'merge', checkpoint: '', result: 'success', next: 'report' }, 'report'],
    [{ step: 'report', checkpoint: '', result: '(done)', next: '(stop)' }, undefined],
    [{ step: 'merge', checkpoint: '', result: 'conflict', next: '(stop)' }, undefined],
    // Not in the table (written by hand): its own next is followed.
    [{ step: 'exec', checkpoint: '', result: '(done)', next: 'merge' }, 'check@post-exec'],
    [{ step: 'merge', checkpoint: '', result: 'PASS', next: 'check' }, 'check@post-plan'],
    [{ step: 'report', checkpoint: '', result: 'PASS', next: '(stop)' }, undefined],
  ] as const)('%o resumes at %s', (signal, key) => {
    const at = resumeFrom(signal);
    expect(at && stepKey(at)).toBe(key);
  });
});

describe('lifecycle status', () => {
  it('follows the step', () => {
    expect(statusDuring(positionOf('plan'))).toBe('planning');
    expect(statusDuring(positionOf('plan'), 'REPLAN')).toBe('re-planning');
    expect(statusDuring(positionOf('check@post-plan'))).toBe('review');
    expect(statusDuring(positionOf('exec'))).toBe('executing');
    expect(statusDuring(positionOf('merge'))).toBe('executing');
  });

  it('ends complete after a report and blocked after a block or conflict', () => {
    expect(statusAtStop(positionOf('report'), '(done)')).toBe('complete');
    expect(statusAtStop(positionOf('check@post-exec'), 'BLOCKED')).toBe('blocked');
    expect(statusAtStop(positionOf('exec'), '(blocked)')).toBe('blocked');
    expect(statusAtStop(positionOf('merge'), 'conflict')).toBe('blocked');
  });
});
