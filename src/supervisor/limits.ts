import type { Signal } from '../protocol/signal.js';
import type { StopReason } from '../protocol/stopFile.js';
import type { LoopRow } from '../store/loops.js';
import type { Outcome } from '../store/runs.js';

/** The fields of a loop that the pure deciders read. */
export type LoopCounters = Pick<LoopRow, 'iteration' | 'recoveryStep' | 'restartCount' | 'startedAt' | 'quotaWaitMs' | 'quotaWaitSince' | 'maxIterations' | 'timeoutMinutes'>;

export interface SignalUpdate {
  patch: Pick<LoopRow, 'iteration' | 'step' | 'result' | 'next' | 'checkpoint' | 'lastSignalAt'> & Partial<Pick<LoopRow, 'recoveryStep' | 'restartCount'>>;
  iterationGrew: boolean;
}

/**
 * What a valid signal changes: the iteration is the largest seen and never
 * goes down; a signal without one counts one; progress resets the per-iteration
 * recovery count and the restart count.
 */
export function applySignal(loop: Pick<LoopRow, 'iteration'>, signal: Signal, now: Date): SignalUpdate {
  const iteration = signal.iteration === undefined ? loop.iteration + 1 : Math.max(loop.iteration, signal.iteration);
  const iterationGrew = iteration > loop.iteration;
  const patch: SignalUpdate['patch'] = {
    iteration, step: signal.step, result: signal.result, next: signal.next, checkpoint: signal.checkpoint,
    lastSignalAt: now.toISOString(),
  };
  if (iterationGrew) Object.assign(patch, { recoveryStep: 0, restartCount: 0 });
  return { patch, iterationGrew };
}

/** The outcome of a loop that ended with a `(stop)` signal. */
export function outcomeOfStopSignal(signal: Pick<Signal, 'step' | 'result'>): Outcome {
  if (signal.result === 'BLOCKED' || signal.result === '(blocked)') return 'blocked';
  if (signal.result === 'conflict') return 'merge_conflict';
  if (signal.step === 'report') return 'complete';
  return 'stopped';
}

/** Time the loop has been working: wall time since start less the time spent waiting on quota. */
export function activeMs(loop: Pick<LoopRow, 'startedAt' | 'quotaWaitMs' | 'quotaWaitSince'>, now: number): number {
  return activeMsSince(activeBase(loop), now);
}

/** What activeMs reckons from, parsed once: the start, the quota waits ended, the one under way. */
export interface ActiveBase {
  startedMs: number;
  quotaWaitMs: number;
  /** When the quota wait under way began; undefined when none is. */
  quotaSinceMs: number | undefined;
}

export function activeBase(loop: Pick<LoopRow, 'startedAt' | 'quotaWaitMs' | 'quotaWaitSince'>): ActiveBase {
  return { startedMs: Date.parse(loop.startedAt), quotaWaitMs: loop.quotaWaitMs, quotaSinceMs: loop.quotaWaitSince ? Date.parse(loop.quotaWaitSince) : undefined };
}

export function activeMsSince(base: ActiveBase, now: number): number {
  const waiting = base.quotaSinceMs !== undefined ? Math.max(0, now - base.quotaSinceMs) : 0;
  return Math.max(0, now - base.startedMs - base.quotaWaitMs - waiting);
}

/** A limit the loop has reached, or undefined. The iteration limit comes first. */
export function limitReached(loop: LoopCounters, now: number): StopReason | undefined {
  return limitAfter(loop, activeMs(loop, now));
}

/** The same, given the active time (a running loop reckons it on the monotonic clock: clock.ts). */
export function limitAfter(loop: Pick<LoopRow, 'iteration' | 'maxIterations' | 'timeoutMinutes'>, active: number): StopReason | undefined {
  if (loop.iteration >= loop.maxIterations) return 'max_iterations';
  if (active >= loop.timeoutMinutes * 60_000) return 'timeout';
  return undefined;
}

/** Backoff before restart number `attempt` (1-based): 1 s, 2 s, 4 s … at most 60 s. */
export function restartBackoffMs(attempt: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

export interface EndFacts {
  /** The `(stop)` signal the agent wrote, if it ended on its own. */
  stopSignal?: Pick<Signal, 'step' | 'result'> | undefined;
  /** Why a stop file was written, if one was. */
  stopReason?: StopReason | undefined;
  /** The stop file asked for a force stop. */
  forceStop?: boolean;
}

/**
 * The outcome once the agent is gone. A `(stop)` the agent wrote wins over a later
 * stop file, except a force stop; the stop file's reason names why otherwise.
 */
export function endOutcome(facts: EndFacts): Outcome {
  if (facts.forceStop) return 'killed';
  if (facts.stopSignal) return outcomeOfStopSignal(facts.stopSignal);
  if (facts.stopReason) return facts.stopReason;
  return 'stopped';
}

export const RESTART_LIMIT_MESSAGE = 'auto loop exceeded restart limit — likely crash loop, manual intervention required';
