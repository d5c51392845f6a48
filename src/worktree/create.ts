import { existsSync, lstatSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { git, gitError, gitOut } from './git.js';
import { shortId, worktreeNames, WORKTREES_DIR } from './names.js';

/**
 * A new git worktree for one loop: `git worktree add` on a new branch from the current
 * HEAD (or a named base), in `.autodeck/worktrees/` of the repository. It refuses, with a
 * sentence that says why and what to do, where a worktree would surprise or lose
 * something: no repository, a bare one, a rebase or merge under way, submodules.
 */

/** Why a worktree was not made; the message is for a person. */
export class WorktreeRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorktreeRefused';
  }
}

export interface LoopWorktree {
  /** The worktree's folder (absolute, real). */
  path: string;
  branch: string;
  /** What it started from: the base as named (a branch's full ref, or a commit), and its commit. */
  base: string;
  baseCommit: string;
  /** The working tree it was made from (its top level). */
  repo: string;
  /** That working tree had changes not in HEAD (they are not in the worktree). */
  sourceDirty: boolean;
}

/** Git config keys on the loop's branch: what it started from (read by worktree state). */
export const BASE_KEY = 'autodeckbase';
export const START_KEY = 'autodeckstart';

/** The operations a repository can be in the middle of, by the file git keeps for each. */
const IN_PROGRESS: readonly [string, string][] = [
  ['rebase-merge', 'a rebase'], ['rebase-apply', 'a rebase (or git am)'], ['MERGE_HEAD', 'a merge'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick'], ['REVERT_HEAD', 'a revert'], ['BISECT_LOG', 'a bisect'],
];

/** What `dir`'s working tree is in the middle of, in words; undefined when nothing. */
export function operationInProgress(dir: string): string | undefined {
  for (const [name, what] of IN_PROGRESS) {
    const path = gitOut(dir, ['rev-parse', '--git-path', name]);
    if (path !== undefined && existsSync(isAbsolute(path) ? path : join(dir, path))) return what;
  }
  return undefined;
}

/** The working tree's top level that holds `dir`, or a refusal. */
export function repositoryOf(dir: string): string {
  const inside = git(dir, ['rev-parse', '--is-inside-work-tree']);
  if (!inside.ok || inside.stdout.trim() !== 'true') {
    if (gitOut(dir, ['rev-parse', '--is-bare-repository']) === 'true') {
      throw new WorktreeRefused(`${dir} is inside a bare repository: a loop worktree needs a working tree to start from`);
    }
    throw new WorktreeRefused(`${dir} is not in a git repository: a loop worktree needs one (git init, and a first commit)`);
  }
  const top = gitOut(dir, ['rev-parse', '--show-toplevel']);
  if (!top) throw new WorktreeRefused(`${dir}: git could not name its top level`);
  return realpathSync.native(top);
}

export interface CreateOptions {
  /** A folder inside the repository (the task module). */
  from: string;
  /** The module's name (made safe for the branch and folder). */
  name: string;
  /** A branch, tag or commit to start from; HEAD when empty. */
  base?: string | undefined;
  /** For tests: the short id. */
  id?: () => string;
}

/** Refuses a repository where a new worktree would miss or disturb something. */
function checkRepository(top: string): void {
  const superproject = gitOut(top, ['rev-parse', '--show-superproject-working-tree']);
  if (superproject) {
    throw new WorktreeRefused(`${top} is a submodule of ${superproject}: autodeck does not make loop worktrees inside submodules; start the loop without a worktree`);
  }
  const busy = operationInProgress(top);
  if (busy) {
    throw new WorktreeRefused(`${top}: ${busy} is in progress; finish it or abort it (git status says how) before a loop gets a worktree`);
  }
  if (git(top, ['cat-file', '-e', 'HEAD:.gitmodules']).ok) {
    const paths = gitOut(top, ['config', '--blob', 'HEAD:.gitmodules', '--get-regexp', '^submodule\\..*\\.path$']);
    if (paths) {
      throw new WorktreeRefused(`${top} has submodules: a new worktree would have them empty, so autodeck does not make one; start the loop without a worktree`);
    }
  }
}

/** The commit to start from and its name as the user gave it (a full ref, or the commit itself). */
function resolveBase(top: string, base: string | undefined): { base: string; commit: string } {
  const wanted = base && base.trim() !== '' ? base.trim() : 'HEAD';
  // no ref name starts with `-`: such a base could only be read as an option
  const commit = wanted.startsWith('-') ? undefined : gitOut(top, ['rev-parse', '--verify', '--quiet', `${wanted}^{commit}`]);
  if (!commit) {
    if (wanted === 'HEAD') throw new WorktreeRefused(`${top} has no commit yet: a loop worktree starts from one (make a first commit)`);
    throw new WorktreeRefused(`the worktree base ${JSON.stringify(wanted.slice(0, 80))} is not a branch, tag or commit of ${top}`);
  }
  const named = wanted === 'HEAD' ? gitOut(top, ['symbolic-ref', '-q', 'HEAD']) : gitOut(top, ['rev-parse', '--symbolic-full-name', wanted]);
  return { base: named && named.startsWith('refs/') ? named : commit, commit };
}

/** `.autodeck/worktrees` under the top level, made with a `.gitignore` that keeps it out of the repository's status. */
function worktreesFolder(top: string): string {
  const own = join(top, '.autodeck');
  if (existsSync(own) && !lstatSync(own).isDirectory()) {
    throw new WorktreeRefused(`${own} exists and is not a folder: autodeck keeps loop worktrees there`);
  }
  const dir = join(top, WORKTREES_DIR);
  mkdirSync(dir, { recursive: true });
  const ignore = join(own, '.gitignore');
  if (!existsSync(ignore)) writeFileSync(ignore, '# autodeck: loop worktrees (see `autodeck worktrees`)\n*\n');
  return dir;
}

/** Makes the loop's worktree. Throws WorktreeRefused. */
export function createWorktree(opts: CreateOptions): LoopWorktree {
  const top = repositoryOf(opts.from);
  checkRepository(top);
  const { base, commit } = resolveBase(top, opts.base);
  const sourceDirty = (gitOut(top, ['status', '--porcelain', '--untracked-files=no']) ?? '') !== '';
  const folder = worktreesFolder(top);
  for (let tries = 0; tries < 5; tries++) {
    const { branch, dirName } = worktreeNames(opts.name, (opts.id ?? shortId)());
    const path = join(folder, dirName);
    if (existsSync(path) || git(top, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`]).ok) continue;
    const add = git(top, ['worktree', 'add', '--quiet', '-b', branch, '--', path, commit]);
    if (!add.ok) throw new WorktreeRefused(`git worktree add failed in ${top}: ${gitError(add)}`);
    // What the branch started from, on the branch itself: `autodeck worktrees` reads it there.
    git(top, ['config', `branch.${branch}.${BASE_KEY}`, base]);
    git(top, ['config', `branch.${branch}.${START_KEY}`, commit]);
    return { path: realpathSync.native(path), branch, base, baseCommit: commit, repo: top, sourceDirty };
  }
  throw new WorktreeRefused(`could not find a free name for a worktree of ${opts.name} in ${folder}`);
}

/** Where the agent works inside the worktree: the same place relative to the top level as `cwd` is in the repository. */
export function cwdInWorktree(cwd: string, worktree: Pick<LoopWorktree, 'path' | 'repo'>): string {
  const rel = relative(worktree.repo, cwd);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return worktree.path;
  const inside = join(worktree.path, rel);
  return existsSync(inside) ? inside : worktree.path;
}
