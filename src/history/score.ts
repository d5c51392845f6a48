/**
 * A run's score: one number, higher is better, in 0..1, for comparing finished runs of
 * a module (`autodeck history`). Pure, no I/O.
 *
 *   reward = (1 − i/(i+10))·0.6 + (1 − min(d/1h, 1))·0.4
 *
 * with i the run's iterations and d its active time (quota waits excluded). Fewer
 * iterations weigh more than less time: the iteration term halves at 10 iterations and
 * never quite reaches 0; the time term falls linearly to 0 at one hour. A run of 0
 * iterations in no time would score 1; 10 iterations in 30 minutes score 0.5.
 */
import type { Outcome, RunRow } from '../store/runs.js';

/** Iterations at which the iteration term is half its weight. */
export const SCORE_ITERATIONS_HALF = 10;
/** Active time at which the time term reaches 0. */
export const SCORE_TIME_CAP_MS = 60 * 60_000;
export const SCORE_ITERATION_WEIGHT = 0.6;
export const SCORE_TIME_WEIGHT = 0.4;

/** Negative or NaN inputs count as 0; infinite ones as endless (their term is 0). */
function clean(n: number): number {
  return Number.isNaN(n) || n < 0 ? 0 : n;
}

/**
 * The formula alone, in 0..1 (higher is better). It says how cheaply a run got where it
 * got, not whether it got there: use {@link scoreOf} for a finished run.
 */
export function runScore(run: { iterations: number; activeMs: number }): number {
  const i = clean(run.iterations);
  const d = clean(run.activeMs);
  const iterationTerm = Number.isFinite(i) ? 1 - i / (i + SCORE_ITERATIONS_HALF) : 0;
  const timeTerm = 1 - Math.min(d / SCORE_TIME_CAP_MS, 1);
  return iterationTerm * SCORE_ITERATION_WEIGHT + timeTerm * SCORE_TIME_WEIGHT;
}

/** The outcomes whose runs are scored by the formula. */
export const SCORED_OUTCOMES: readonly Outcome[] = ['complete'];

/**
 * The score of a finished run: the formula for a run that completed, 0 for any other.
 *
 * Why 0 and not the formula: a user sorting runs by score expects every completed run
 * above every run that did not finish its task. The formula rewards being quick, so a
 * loop that crashed after one iteration in ten seconds (~0.95) would beat any real
 * completion; a `max_iterations` or `timeout` run would even look better the lower its
 * limit was. 0 is the bottom of the range, keeps the score a number (sortable in
 * `--json`), and the outcome shown beside it says why. A completed run that was killed
 * after it reported (forced) still completed and keeps its score.
 */
export function scoreOf(run: Pick<RunRow, 'outcome' | 'iterations' | 'activeMs'>): number {
  return SCORED_OUTCOMES.includes(run.outcome) ? runScore(run) : 0;
}
