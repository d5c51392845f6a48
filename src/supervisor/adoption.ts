import type { LoopRow } from '../store/loops.js';

/**
 * What to do with an orphaned loop (SPEC 5.6): a `stopping` row was meant to end, so it
 * is finished; a `suspended` one resumes without counting a restart; any other counts
 * one restart and obeys the limit.
 */
export type Adoption =
  | { action: 'finish' }
  | { action: 'restart'; restartCount: number }
  | { action: 'fail'; restartCount: number };

export function planAdoption(row: Pick<LoopRow, 'status' | 'restartCount'>, restartLimit: number): Adoption {
  if (row.status === 'stopping') return { action: 'finish' };
  if (row.status === 'suspended') return { action: 'restart', restartCount: row.restartCount };
  const restartCount = row.restartCount + 1;
  return restartCount > restartLimit ? { action: 'fail', restartCount } : { action: 'restart', restartCount };
}
