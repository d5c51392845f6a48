import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import { git, gitError, gitOut } from './git.js';
import { BASE_KEY, operationInProgress, START_KEY } from './create.js';
import { BRANCH_PREFIX, WORKTREES_DIR } from './names.js';

/**
 * What a loop worktree holds, and the one way autodeck removes one: `git worktree remove`
 * (which itself refuses a worktree with changes) of a worktree that is clean and has no
 * commit its base lacks. Its branch is never deleted, nothing is reset, checked out or
 * cleaned: work is kept, and said to be kept.
 */

export interface WorktreeState {
  path: string;
  /** The branch checked out there ('' when its HEAD is detached). */
  branch: string;
  exists: boolean;
  /** Changed or staged tracked files, and untracked files (ignored ones are not counted). */
  changed: number;
  untracked: number;
  /** Commits in the worktree's HEAD that its base lacks; undefined when the base is unknown. */
  ahead: number | undefined;
  /** It has commits of its own and its base holds them all (merged). */
  merged: boolean;
  /** git keeps it locked (`git worktree lock`). */
  locked: boolean;
  /** A rebase, merge … under way inside it. */
  inProgress: string | undefined;
  /** What it is compared with: its base as named when it was made. */
  base: string | undefined;
}

/** A worktree that holds nothing: clean, and nothing its base lacks. Only such a one may be removed. */
export function holdsNothing(s: WorktreeState): boolean {
  return s.exists && s.changed === 0 && s.untracked === 0 && s.ahead === 0 && !s.locked && s.inProgress === undefined;
}

/** The state in a few words: `dirty (2 changed, 1 untracked), 3 ahead`, `clean, merged`, `clean, nothing new`. */
export function stateWords(s: WorktreeState): string {
  if (!s.exists) return 'missing (its folder is gone; git worktree prune clears it)';
  const dirty = [s.changed > 0 ? `${s.changed} changed` : '', s.untracked > 0 ? `${s.untracked} untracked` : ''].filter(Boolean).join(', ');
  const parts = [dirty ? `dirty (${dirty})` : 'clean'];
  if (s.ahead === undefined) parts.push('base unknown');
  else if (s.ahead > 0) parts.push(`${s.ahead} ahead`);
  else parts.push(s.merged ? 'merged' : 'nothing new');
  if (s.inProgress) parts.push(`${s.inProgress} in progress`);
  if (s.locked) parts.push('locked');
  return parts.join(', ');
}

/** Counts of `git status --porcelain -z` entries: tracked changes and untracked files. */
export function countStatus(porcelainZ: string): { changed: number; untracked: number } {
  let changed = 0;
  let untracked = 0;
  const entries = porcelainZ.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.length < 3) continue;
    const code = e.slice(0, 2);
    if (code === '??') untracked++;
    else if (code !== '!!') changed++;
    if (code[0] === 'R' || code[0] === 'C') i++; // a rename's source path follows as its own entry
  }
  return { changed, untracked };
}

/** What the worktree at `path` holds (its branch's base read from the branch's config). */
export function worktreeState(path: string, opts: { branch?: string; locked?: boolean } = {}): WorktreeState {
  const none: WorktreeState = {
    path, branch: opts.branch ?? '', exists: false, changed: 0, untracked: 0, ahead: undefined, merged: false,
    locked: opts.locked ?? false, inProgress: undefined, base: undefined,
  };
  if (!existsSync(path)) return none;
  const head = gitOut(path, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  if (head === undefined) return { ...none, exists: true, changed: 1 }; // not a worktree git can read: treat as holding work
  const branch = gitOut(path, ['symbolic-ref', '-q', '--short', 'HEAD']) ?? '';
  const status = git(path, ['status', '--porcelain=v1', '-z', '--untracked-files=normal']);
  const counts = status.ok ? countStatus(status.stdout) : { changed: 1, untracked: 0 };
  // the agent may have switched branches in there: the loop's own branch keeps the record
  const named = [branch, opts.branch ?? ''].find((b) => b !== '' && gitOut(path, ['config', '--get', `branch.${b}.${START_KEY}`]) !== undefined);
  const configured = named ? gitOut(path, ['config', '--get', `branch.${named}.${BASE_KEY}`]) : undefined;
  const start = named ? gitOut(path, ['config', '--get', `branch.${named}.${START_KEY}`]) : undefined;
  const baseCommit = (configured && !configured.startsWith('-') ? gitOut(path, ['rev-parse', '--verify', '--quiet', `${configured}^{commit}`]) : undefined)
    ?? (start && !start.startsWith('-') ? gitOut(path, ['rev-parse', '--verify', '--quiet', `${start}^{commit}`]) : undefined);
  let ahead: number | undefined;
  if (baseCommit) {
    const n = gitOut(path, ['rev-list', '--count', `${baseCommit}..${head}`]);
    ahead = n !== undefined && /^\d+$/.test(n) ? Number(n) : undefined;
  }
  return {
    path, branch, exists: true, ...counts, ahead, merged: ahead === 0 && start !== undefined && head !== start,
    locked: opts.locked ?? false, inProgress: operationInProgress(path), base: configured ?? start,
  };
}

/** One entry of `git worktree list --porcelain -z`. */
export interface ListedWorktree {
  path: string;
  head: string;
  /** `refs/heads/…`, or '' when detached. */
  ref: string;
  bare: boolean;
  locked: boolean;
  prunable: boolean;
}

export function parseWorktreeList(out: string): ListedWorktree[] {
  const list: ListedWorktree[] = [];
  let cur: ListedWorktree | undefined;
  for (const field of out.split('\0')) {
    if (field === '') {
      if (cur) list.push(cur);
      cur = undefined;
      continue;
    }
    const space = field.indexOf(' ');
    const key = space < 0 ? field : field.slice(0, space);
    const value = space < 0 ? '' : field.slice(space + 1);
    if (key === 'worktree') cur = { path: value, head: '', ref: '', bare: false, locked: false, prunable: false };
    else if (!cur) continue;
    else if (key === 'HEAD') cur.head = value;
    else if (key === 'branch') cur.ref = value;
    else if (key === 'bare') cur.bare = true;
    else if (key === 'locked') cur.locked = true;
    else if (key === 'prunable') cur.prunable = true;
  }
  if (cur) list.push(cur);
  return list;
}

/** A loop worktree: on an `autodeck/` branch, or in a repository's `.autodeck/worktrees/`. */
export function isLoopWorktree(w: ListedWorktree): boolean {
  return w.ref.startsWith(`refs/heads/${BRANCH_PREFIX}`) || w.path.includes(`${sep}${WORKTREES_DIR.split('/').join(sep)}${sep}`);
}

/** The loop worktrees of the repository that holds `dir` (all of its working trees'). */
export function listLoopWorktrees(dir: string): { repo: string; worktrees: ListedWorktree[] } | { error: string } {
  const r = git(dir, ['worktree', 'list', '--porcelain', '-z']);
  if (!r.ok) return { error: gitError(r) };
  const all = parseWorktreeList(r.stdout);
  const main = all[0]?.path ?? dir;
  return { repo: main, worktrees: all.filter((w) => !w.bare && isLoopWorktree(w)) };
}

export type RemoveOutcome = { removed: true; state: WorktreeState } | { removed: false; state: WorktreeState; why: string };

/**
 * Removes a loop worktree that holds nothing (`git worktree remove`, never forced); keeps
 * any other, saying why. `repo`: any working tree of the same repository, to run git from.
 */
export function removeIfEmpty(repo: string, path: string, opts: { branch?: string; locked?: boolean } = {}): RemoveOutcome {
  const state = worktreeState(path, opts);
  if (!holdsNothing(state)) return { removed: false, state, why: stateWords(state) };
  const r = git(existsSync(repo) ? repo : join(path, '..'), ['worktree', 'remove', '--', path]);
  if (!r.ok) return { removed: false, state, why: `git refused to remove it: ${gitError(r)}` };
  return { removed: true, state };
}
