import type { Signal } from '../protocol/signal.js';
import type { StopReason } from '../protocol/stopFile.js';
import type { HookProgress } from '../store/hookProgress.js';
import type { Outcome } from '../store/runs.js';
import type { LockDecision } from './lock.js';
import { SENTINEL } from './sentinel.js';
import type { TaskSummary } from './tasks.js';

/** Stops in a row without a newly completed task before the prompt warns. */
export const WARN_AFTER_STALE = 5;
/** Stops in a row without a newly completed task that end the loop (`stall_limit`). */
export const GIVE_UP_AFTER_STALE = 10;
/** Remaining tasks listed in the prompt; the rest are counted. */
export const PROMPT_TASK_LIMIT = 10;
/** A task subject longer than this is cut in the prompt. */
export const PROMPT_SUBJECT_CHARS = 200;

/** Everything the Stop hook knows when it decides. */
export interface HookFacts {
  taskDir: string;
  /** The loop's session name (the `hook_progress` row's). */
  session: string;
  stopFileExists: boolean;
  /** The loop is already ending without a stop file: its row is `stopping`, or its last signal was a `(stop)`. */
  loopStopping?: boolean;
  /** The completion sentinel stands in the last 20 transcript lines. */
  sentinelSeen: boolean;
  tasks: TaskSummary;
  /** The previous Stop's counters of this loop; undefined at the first Stop. */
  progress: HookProgress | undefined;
  lock: LockDecision;
  maxIterations: number;
  /** The loop's iteration in the database: a signal never goes below it. */
  loopIteration?: number;
  now: Date;
}

/** Which rule decided, in the order they are tried. */
export type HookRule = 'stop_file' | 'stopping' | 'lock_held' | 'sentinel' | 'all_done' | 'max_iterations' | 'stall_limit' | 'continue';

export interface HookDecision {
  decision: 'allow' | 'block';
  rule: HookRule;
  /** The hook ends the supervised loop: a `(stop)` signal or a stop file (or one is already there). */
  endLoop: boolean;
  /** The loop's outcome when this decision sets it. */
  outcome?: Outcome;
  /** For a block: the prompt the agent gets as its next message. For an allow: why, for the event log. */
  reason: string;
  /** The counters to store; undefined leaves the row as it is. */
  nextProgress?: HookProgress;
  /** The signal to write, exactly as an agent's own loop would. */
  signal?: Signal;
  /** The stop file to write (before the signal): a limit no signal can say. */
  stopFile?: StopReason;
  /** What to do with `.autodeck.lock`: refresh it, remove it (the loop is over), or leave it (not ours). */
  lock: 'refresh' | 'release' | 'leave';
}

/**
 * The Stop hook's decision. Pure. Rules, first match wins:
 *
 * | rule           | when                                        | answer | writes                                   |
 * |----------------|---------------------------------------------|--------|------------------------------------------|
 * | stop_file      | `.auto-stop` exists                         | allow  | nothing (the supervisor is stopping)     |
 * | stopping       | the loop row is stopping / a (stop) signal  | allow  | nothing (the loop is already ending)     |
 * | lock_held      | another live session holds the lock         | allow  | nothing (not this session's loop)        |
 * | sentinel       | the completion sentinel was said            | allow  | signal report/(done)/(stop) → complete   |
 * | all_done       | total > 0 and every task is done            | allow  | signal report/(done)/(stop) → complete   |
 * | max_iterations | this Stop's iteration >= maxIterations      | allow  | stop file max_iterations, signal exec    |
 * | stall_limit    | 10 Stops in a row without a completed task  | allow  | stop file stall_limit, signal exec       |
 * | continue       | otherwise                                   | block  | signal exec/CONTINUE/exec, the prompt    |
 */
export function decide(f: HookFacts): HookDecision {
  if (f.stopFileExists) {
    return { decision: 'allow', rule: 'stop_file', endLoop: true, reason: 'the stop file exists: the loop is stopping', lock: 'release' };
  }
  if (f.loopStopping) {
    return { decision: 'allow', rule: 'stopping', endLoop: true, reason: 'the loop is already ending', lock: 'release' };
  }
  if (f.lock === 'held-by-other') {
    return { decision: 'allow', rule: 'lock_held', endLoop: false, reason: 'another agent session holds the loop\'s lock', lock: 'leave' };
  }

  const iteration = Math.max(f.progress?.iteration ?? 0, f.loopIteration ?? 0) + 1;
  const { completed, total } = f.tasks;
  const previous = f.progress?.completed ?? -1;
  // The first Stop sets the baseline; after it, only a newly completed task is progress.
  const staleIterations = previous < 0 || completed > previous ? 0 : (f.progress?.staleIterations ?? 0) + 1;
  const progress = (blocks: number): HookProgress => ({
    taskDir: f.taskDir, session: f.session, iteration, completed, staleIterations, blocks, updatedAt: f.now.toISOString(),
  });
  const signal = (s: Pick<Signal, 'step' | 'result' | 'next'>): Signal =>
    ({ ...s, checkpoint: '', iteration, timestamp: f.now.toISOString() });
  const exec = signal({ step: 'exec', result: 'CONTINUE', next: 'exec' });
  const done = signal({ step: 'report', result: '(done)', next: '(stop)' });

  if (f.sentinelSeen) {
    return { decision: 'allow', rule: 'sentinel', endLoop: true, outcome: 'complete', reason: 'the agent said the completion sentinel',
      nextProgress: progress(0), signal: done, lock: 'release' };
  }
  if (total > 0 && completed >= total) {
    return { decision: 'allow', rule: 'all_done', endLoop: true, outcome: 'complete', reason: `all ${total} tasks are complete`,
      nextProgress: progress(0), signal: done, lock: 'release' };
  }
  if (iteration >= f.maxIterations) {
    return { decision: 'allow', rule: 'max_iterations', endLoop: true, outcome: 'max_iterations',
      reason: `iteration ${iteration} reached the limit of ${f.maxIterations}`, nextProgress: progress(0), signal: exec,
      stopFile: 'max_iterations', lock: 'release' };
  }
  if (staleIterations >= GIVE_UP_AFTER_STALE) {
    return { decision: 'allow', rule: 'stall_limit', endLoop: true, outcome: 'stall_limit',
      reason: `no task completed in ${staleIterations} iterations`, nextProgress: progress(0), signal: exec,
      stopFile: 'stall_limit', lock: 'release' };
  }
  return { decision: 'block', rule: 'continue', endLoop: false,
    reason: prompt({ tasks: f.tasks, iteration, maxIterations: f.maxIterations, staleIterations, taskDir: f.taskDir }),
    nextProgress: progress((f.progress?.blocks ?? 0) + 1), signal: exec, lock: 'refresh' };
}

export interface PromptFacts {
  tasks: TaskSummary;
  iteration: number;
  maxIterations: number;
  staleIterations: number;
  taskDir: string;
}

/** The message that sends the agent back to work. Pure. */
export function prompt(p: PromptFacts): string {
  const { total, completed, remaining } = p.tasks;
  const lines = [`autodeck: ${completed}/${total} tasks complete (${percent(completed, total)}%), iteration ${p.iteration} of ${p.maxIterations}.`];
  lines.push(`Task module: ${p.taskDir}`);
  if (total === 0) {
    lines.push('No task list found: write the tasks as "- [ ] ..." lines in .plan.md (or .checklist.json) and check them off as you finish them.');
  } else if (remaining.length > 0) {
    lines.push('Remaining tasks:');
    for (const subject of remaining.slice(0, PROMPT_TASK_LIMIT)) lines.push(`- ${cut(subject)}`);
    if (remaining.length > PROMPT_TASK_LIMIT) lines.push(`- …and ${remaining.length - PROMPT_TASK_LIMIT} more`);
  }
  if (p.staleIterations >= WARN_AFTER_STALE) {
    lines.push(`Warning: no task has been completed in the last ${p.staleIterations} iterations; autodeck ends the loop after ` +
      `${GIVE_UP_AFTER_STALE}. Split the current task into smaller steps, or try another approach.`);
  }
  lines.push(`Continue with the next task. When every task is done and checked, end your reply with ${SENTINEL} (only then).`);
  return lines.join('\n');
}

/** Rounded down, so an unfinished list never shows 100%. */
export function percent(completed: number, total: number): number {
  return total > 0 ? Math.floor((100 * Math.min(completed, total)) / total) : 0;
}

function cut(s: string): string {
  return s.length > PROMPT_SUBJECT_CHARS ? `${s.slice(0, PROMPT_SUBJECT_CHARS - 1)}…` : s;
}
