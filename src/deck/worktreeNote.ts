import type { DeckRow } from './deck.js';

/**
 * The branch a module's work is on, for the detail pane's title: its loop's worktree
 * branch, or the one its last run left with work in it; undefined when neither.
 */
export function worktreeNote(row: Pick<DeckRow, 'loop' | 'lastRun'>): string | undefined {
  if (row.loop) return row.loop.worktreeBranch ? `worktree ${row.loop.worktreeBranch}` : undefined;
  const run = row.lastRun;
  if (run?.worktreeBranch && run.worktreeState && run.worktreeState !== 'removed') return `worktree ${run.worktreeBranch} (${run.worktreeState})`;
  return undefined;
}
