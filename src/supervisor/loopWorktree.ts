import { gitTopLevel } from '../paths.js';
import type { EventKind } from '../store/events.js';
import type { LoopRow } from '../store/loops.js';
import type { RunRow } from '../store/runs.js';
import { removeIfEmpty } from '../worktree/state.js';

/**
 * A loop's worktree at the loop's end: removed only when it holds nothing (clean, no
 * commit its base lacks); otherwise kept, and the event and the run say what it holds
 * and where. Never throws: a worktree autodeck cannot read is kept.
 */
export function closeWorktree(
  row: Pick<LoopRow, 'taskDir' | 'worktreePath' | 'worktreeBranch'>,
  event: (kind: EventKind, detail: Record<string, unknown>) => void,
): Pick<RunRow, 'worktreePath' | 'worktreeBranch' | 'worktreeState'> {
  const path = row.worktreePath ?? '';
  if (path === '') return {};
  const branch = row.worktreeBranch ?? '';
  let state: string;
  try {
    const repo = gitTopLevel(row.taskDir) ?? path;
    const r = removeIfEmpty(repo, path, { branch });
    state = r.removed ? 'removed' : `kept: ${r.why}`;
    event('worktree', r.removed
      ? { action: 'removed', path, branch, why: 'clean, nothing its base lacks' }
      : { action: 'kept', path, branch, state: r.why });
  } catch (err) {
    state = `kept: ${(err as Error).message}`;
    event('worktree', { action: 'kept', path, branch, state: `could not be read (${(err as Error).message})` });
  }
  return { worktreePath: path, worktreeBranch: branch, worktreeState: state };
}
