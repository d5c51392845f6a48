import { gitTopLevel } from '../paths.js';
import type { TaskModule } from '../protocol/modules.js';
import type { EventKind } from '../store/events.js';
import type { LoopRow } from '../store/loops.js';
import type { RunRow } from '../store/runs.js';
import { createWorktree, cwdInWorktree, WorktreeRefused, type LoopWorktree } from '../worktree/create.js';
import { removeIfEmpty } from '../worktree/state.js';

/**
 * A loop's git worktree: made when the loop starts, released when the start does not
 * happen after all, closed at the loop's end — removed only when it holds nothing.
 */

export interface StartedWorktree extends LoopWorktree {
  /** Where the agent works in it. */
  cwd: string;
}

/** The loop's worktree on a new branch, or why there is none. */
export function loopWorktree(module: TaskModule, base: string | undefined, checkoutCwd: string): StartedWorktree | { error: string } {
  try {
    const wt = createWorktree({ from: module.dir, name: module.name, base });
    return { ...wt, cwd: cwdInWorktree(checkoutCwd, wt) };
  } catch (err) {
    if (err instanceof WorktreeRefused) return { error: `${module.name}: no worktree: ${err.message}` };
    throw err;
  }
}

/** A worktree made for a start that did not happen: removed (it is new and holds nothing); its branch stays. */
export function releaseWorktree(wt: StartedWorktree): void {
  try {
    removeIfEmpty(wt.repo, wt.path, { branch: wt.branch });
  } catch { /* kept: `autodeck worktrees` lists it */ }
}

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
