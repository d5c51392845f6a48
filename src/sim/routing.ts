import type { Checkpoint, Next, Signal, Step } from '../protocol/signal.js';
import type { LifecycleStatus } from '../protocol/modules.js';

/** Where a loop is: a step, and for `check` the checkpoint it checks at ("" otherwise). */
export interface Position {
  step: Step;
  checkpoint: Checkpoint;
}

/** Where a result sends the loop; `checkpoint` belongs to the next step. */
export interface Routed {
  next: Next;
  checkpoint: Checkpoint;
}

/** One row of the auto loop's routing table. */
export interface RouteRow {
  step: Step;
  checkpoint: Checkpoint;
  /** `(step-N)` stands for every progress result `(step-0)`, `(step-1)`, … */
  result: string;
  next: Next;
  nextCheckpoint: Checkpoint;
}

export const STEP_N = '(step-N)';
const STEP_N_RE = /^\(step-(0|[1-9][0-9]*)\)$/;

const r = (step: Step, checkpoint: Checkpoint, result: string, next: Next, nextCheckpoint: Checkpoint = ''): RouteRow =>
  ({ step, checkpoint, result, next, nextCheckpoint });

/** The auto loop's routing, as data: the first row of each position is its well-behaved result. */
export const ROUTES: readonly RouteRow[] = [
  r('plan', '', '(generated)', 'check', 'post-plan'),
  r('plan', '', '(annotations)', 'check', 'post-plan'),
  r('check', 'post-plan', 'PASS', 'exec'),
  r('check', 'post-plan', 'NEEDS_REVISION', 'plan'),
  r('check', 'post-plan', 'BLOCKED', '(stop)'),
  r('exec', '', '(done)', 'check', 'post-exec'),
  r('exec', '', STEP_N, 'exec'),
  r('exec', '', '(mid-exec)', 'check', 'mid-exec'),
  r('exec', '', '(blocked)', '(stop)'),
  r('check', 'mid-exec', 'CONTINUE', 'exec'),
  r('check', 'mid-exec', 'NEEDS_FIX', 'exec'),
  r('check', 'mid-exec', 'REPLAN', 'plan'),
  r('check', 'mid-exec', 'BLOCKED', '(stop)'),
  r('check', 'post-exec', 'ACCEPT', 'merge'),
  r('check', 'post-exec', 'NEEDS_FIX', 'exec'),
  r('check', 'post-exec', 'REPLAN', 'plan'),
  r('check', 'post-exec', 'BLOCKED', '(stop)'),
  r('merge', '', 'success', 'report'),
  r('merge', '', 'conflict', '(stop)'),
  r('report', '', '(done)', '(stop)'),
];

/** Names of positions, as used by a scenario's `results` overrides. */
export const STEP_KEYS = ['plan', 'check@post-plan', 'check@mid-exec', 'check@post-exec', 'exec', 'merge', 'report'] as const;
export type StepKey = (typeof STEP_KEYS)[number];

export function stepKey(pos: Position): StepKey {
  return (pos.step === 'check' ? `check@${pos.checkpoint}` : pos.step) as StepKey;
}

export function positionOf(key: StepKey): Position {
  const [step, checkpoint = ''] = key.split('@') as [Step, Checkpoint?];
  return { step, checkpoint };
}

function rowsOf(pos: Position): RouteRow[] {
  return ROUTES.filter((row) => row.step === pos.step && row.checkpoint === pos.checkpoint);
}

/** The results a position may produce, as listed in the table (`(step-N)` unexpanded). */
export function resultsOf(pos: Position): string[] {
  return rowsOf(pos).map((row) => row.result);
}

/** The well-behaved result of a position. */
export function defaultResult(pos: Position): string {
  const row = rowsOf(pos)[0];
  if (!row) throw new Error(`no route from ${stepKey(pos)}`);
  return row.result;
}

/** Where `result` of `step` at `checkpoint` leads, or undefined when the table has no such route. */
export function route(step: Step, checkpoint: Checkpoint, result: string): Routed | undefined {
  const wanted = STEP_N_RE.test(result) ? STEP_N : result;
  const row = rowsOf({ step, checkpoint }).find((x) => x.result === wanted);
  return row && { next: row.next, checkpoint: row.nextCheckpoint };
}

/**
 * The step a loop starts at for a lifecycle status; undefined when there is nothing to
 * do (cancelled). A blocked module is re-checked at mid-exec, the checkpoint whose
 * results can go on, re-plan or stay blocked.
 */
export function entryStep(status: LifecycleStatus): Position | undefined {
  switch (status) {
    case 'review': return { step: 'check', checkpoint: 'post-plan' };
    case 'executing': return { step: 'exec', checkpoint: '' };
    case 'blocked': return { step: 'check', checkpoint: 'mid-exec' };
    case 'complete':
    case 'satisfied': return { step: 'report', checkpoint: '' };
    case 'cancelled': return undefined;
    default: return { step: 'plan', checkpoint: '' }; // draft planning re-planning evolving unknown
  }
}

/**
 * Where a restarted agent picks up after the signal it left: the routed next step, or
 * undefined when that signal ended the loop. A signal whose combination the table lacks
 * (written by hand, say) still names its next step; its checkpoint is inferred.
 */
export function resumeFrom(signal: Pick<Signal, 'step' | 'result' | 'next' | 'checkpoint'>): Position | undefined {
  const routed = route(signal.step, signal.checkpoint, signal.result) ?? { next: signal.next, checkpoint: inferCheckpoint(signal) };
  if (routed.next === '(stop)') return undefined;
  return { step: routed.next, checkpoint: routed.next === 'check' ? routed.checkpoint || 'post-plan' : '' };
}

function inferCheckpoint(signal: Pick<Signal, 'step' | 'result' | 'next'>): Checkpoint {
  if (signal.next !== 'check') return '';
  if (signal.step === 'plan') return 'post-plan';
  if (signal.step === 'exec') return signal.result === '(done)' ? 'post-exec' : 'mid-exec';
  return 'post-plan';
}

/** The lifecycle status an agent reports while running a step; `after` is the previous result. */
export function statusDuring(pos: Position, after?: string): LifecycleStatus {
  if (pos.step === 'plan') return after === 'REPLAN' || after === 'NEEDS_REVISION' ? 're-planning' : 'planning';
  if (pos.step === 'check' && pos.checkpoint === 'post-plan') return 'review';
  return 'executing';
}

/** The lifecycle status a loop leaves behind when `result` of `pos` stopped it. */
export function statusAtStop(pos: Position, result: string): LifecycleStatus {
  if (pos.step === 'report') return 'complete';
  if (result === 'BLOCKED' || result === '(blocked)' || result === 'conflict') return 'blocked';
  return statusDuring(pos);
}
