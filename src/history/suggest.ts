/**
 * Limits to suggest for a module's next loop, learned from its past runs (`autodeck
 * history TASK_DIR`, the dashboard's start dialog). Pure, no I/O.
 *
 * The rule, for iterations and for active minutes alike:
 *
 * 1. Completed runs are the evidence of what the module needs. With at least
 *    {@link SUGGEST_MIN_RUNS} of them the suggestion is their p90 (nearest rank) times
 *    1.5 — 50% headroom, so a run a little longer than the usual ones is not cut short —
 *    rounded up to a step that reads well (see {@link roundUpIterations} and
 *    {@link roundUpMinutes}). With fewer it is the default: one run says too little.
 * 2. Never below the largest completed run (one run that needed 45 iterations is proof
 *    that 45 can be needed, even when it is the only one).
 * 3. A run that ended on `max_iterations` or `timeout` did not finish its work: that
 *    limit was too low. The suggestion goes above it, by the same 50%.
 * 4. Clamped to the settings' ranges: 1..1000 iterations, up to 1440 minutes
 *    (and at least 1 minute once learned from runs).
 *
 * Other outcomes (blocked, user_stop, stall_limit, killed, failed, ...) say nothing about
 * the limits and are ignored. Only active time counts: quota waits do not run the
 * timeout clock. Callers pass a window of the module's newest runs
 * ({@link SUGGEST_WINDOW}), so a limit hit long ago stops weighing once the module has
 * moved on.
 */
import type { RunRow } from '../store/runs.js';

export interface Limits {
  maxIterations: number;
  timeoutMinutes: number;
}

export interface LimitSuggestion extends Limits {
  /** A short human text: where the figures come from, e.g. `p90 of 7 completed runs + 50%`. */
  basis: string;
  /** How many past runs shaped the figures; 0 when they are the defaults unchanged. */
  fromRuns: number;
}

/** Fewer completed runs than this and the defaults stand (rule 1). */
export const SUGGEST_MIN_RUNS = 2;
export const SUGGEST_PERCENTILE = 90;
/** Headroom over the percentile, and over a limit a run hit. */
export const SUGGEST_HEADROOM = 1.5;
/** How many of a module's newest runs a caller should pass. */
export const SUGGEST_WINDOW = 50;
/** The settings' ranges. */
export const MAX_ITERATIONS_RANGE = { min: 1, max: 1000 } as const;
export const TIMEOUT_MINUTES_RANGE = { min: 1, max: 1440 } as const;

/** The p-th percentile by nearest rank: a value that was actually observed. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** Up to a multiple of `step`; a hair of float error (1.5 × 0.1) does not add a step. */
function roundUpTo(x: number, step: number): number {
  return Math.ceil(x / step - 1e-9) * step;
}

/** Iterations rounded up: by 1 below 10, 5 below 50, 10 below 200, else 50. */
export function roundUpIterations(x: number): number {
  const step = x < 10 ? 1 : x < 50 ? 5 : x < 200 ? 10 : 50;
  return roundUpTo(x, step);
}

/** Minutes rounded up: by 1 below 10, 5 below 60, 15 below 240, else 30. */
export function roundUpMinutes(x: number): number {
  const step = x < 10 ? 1 : x < 60 ? 5 : x < 240 ? 15 : 30;
  return roundUpTo(x, step);
}

const positive = (n: number): boolean => Number.isFinite(n) && n > 0;
const minutesOf = (ms: number): number => (Number.isFinite(ms) && ms > 0 ? ms / 60_000 : 0);
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

interface Dimension {
  value: number;
  /** Which rule set the value, beyond the percentile or the default. */
  raisedBy: 'largest' | 'limit' | undefined;
  capped: boolean;
}

/** Rules 1–4 for one dimension. */
function decide(opts: {
  dflt: number;
  completed: number[];
  hitLimits: number[];
  enough: boolean;
  roundUp: (x: number) => number;
  range: { min: number; max: number };
}): Dimension {
  const { dflt, completed, hitLimits, enough, roundUp, range } = opts;
  let value = enough ? roundUp(percentile(completed, SUGGEST_PERCENTILE) * SUGGEST_HEADROOM) : dflt;
  let raisedBy: Dimension['raisedBy'];
  const largest = completed.length > 0 ? roundUp(Math.max(...completed)) : 0;
  if (largest > value) {
    value = largest;
    raisedBy = 'largest';
  }
  if (hitLimits.length > 0) {
    const above = roundUp(Math.max(...hitLimits) * SUGGEST_HEADROOM);
    if (above > value) {
      value = above;
      raisedBy = 'limit';
    }
  }
  const learned = enough || raisedBy !== undefined;
  let capped = false;
  if (learned) {
    if (value > range.max) {
      value = range.max;
      capped = true;
    }
    value = Math.max(range.min, value);
  }
  return { value, raisedBy, capped };
}

/**
 * The limits to suggest for a module's next loop from its past runs (any order, any
 * outcomes), or the defaults when they tell too little. See the rule at the top.
 */
export function suggestLimits(runs: readonly RunRow[], defaults: Limits): LimitSuggestion {
  const completed = runs.filter((r) => r.outcome === 'complete');
  const enough = completed.length >= SUGGEST_MIN_RUNS;
  const iterationHits = runs.filter((r) => r.outcome === 'max_iterations');
  const timeoutHits = runs.filter((r) => r.outcome === 'timeout');

  // The limit each such run ran under; an old row without one: at least what it used.
  const iterationLimits = iterationHits.map((r) => (positive(r.maxIterations) ? r.maxIterations : Math.max(0, r.iterations || 0)));
  const timeoutLimits = timeoutHits.map((r) => (positive(r.timeoutMinutes) ? r.timeoutMinutes : minutesOf(r.activeMs)));

  const it = decide({
    dflt: defaults.maxIterations,
    completed: completed.map((r) => Math.max(0, r.iterations || 0)),
    hitLimits: iterationLimits,
    enough,
    roundUp: roundUpIterations,
    range: MAX_ITERATIONS_RANGE,
  });
  const time = decide({
    dflt: defaults.timeoutMinutes,
    completed: completed.map((r) => minutesOf(r.activeMs)),
    hitLimits: timeoutLimits,
    enough,
    roundUp: roundUpMinutes,
    range: TIMEOUT_MINUTES_RANGE,
  });

  const byRuns = (n: number): string => (n === 1 ? 'a run' : `${n} runs`);
  const parts: string[] = [];
  if (enough) parts.push(`p${SUGGEST_PERCENTILE} of ${plural(completed.length, 'completed run')} + ${Math.round((SUGGEST_HEADROOM - 1) * 100)}%`);
  else if (completed.length === 0) parts.push('defaults: no completed runs');
  else parts.push(`defaults: ${plural(completed.length, 'completed run')}; a suggestion needs ${SUGGEST_MIN_RUNS}`);
  const largestCounted = it.raisedBy === 'largest' || time.raisedBy === 'largest';
  if (largestCounted) parts.push('at least the largest completed run');
  if (it.raisedBy === 'limit') parts.push(`above the ${Math.max(...iterationLimits)}-iteration limit ${byRuns(iterationHits.length)} hit`);
  if (time.raisedBy === 'limit') parts.push(`above the ${Math.max(...timeoutLimits)}-minute timeout ${byRuns(timeoutHits.length)} hit`);
  if (it.capped) parts.push(`capped at ${MAX_ITERATIONS_RANGE.max} iterations`);
  if (time.capped) parts.push(`capped at ${TIMEOUT_MINUTES_RANGE.max} minutes`);

  // The runs whose figures the rules used: the completed ones (when enough of them, or
  // when the largest raised a value) and the limit hits that raised one.
  const fromRuns = (enough || largestCounted ? completed.length : 0) +
    (it.raisedBy === 'limit' ? iterationHits.length : 0) + (time.raisedBy === 'limit' ? timeoutHits.length : 0);
  return { maxIterations: it.value, timeoutMinutes: time.value, basis: parts.join('; '), fromRuns };
}

/** The outcomes {@link suggestLimits} reads; a caller may fetch only these. */
export const SUGGEST_OUTCOMES = ['complete', 'max_iterations', 'timeout'] as const satisfies readonly RunRow['outcome'][];
