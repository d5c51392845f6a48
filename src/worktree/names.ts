import { randomBytes } from 'node:crypto';

/** Every loop branch lives under this prefix: `autodeck/<module>-<short id>`. */
export const BRANCH_PREFIX = 'autodeck/';
/** Loop worktrees go here, under the repository's top level (see docs/verify-and-worktrees.md). */
export const WORKTREES_DIR = '.autodeck/worktrees';

const MAX_SLUG = 40;

/**
 * A module name as one safe component of a branch and a folder name: only letters,
 * digits, `.`, `_` and `-`; no leading `-` or `.` (an option, a hidden name), no `..`,
 * no `.lock` at its end, at most 40 characters; `module` when nothing is left. Pure.
 */
export function nameSlug(name: string): string {
  let s = name.normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '-');
  s = s.replace(/\.{2,}/g, '.').replace(/-{2,}/g, '-');
  s = s.replace(/^[-.]+/, '').slice(0, MAX_SLUG);
  for (;;) {
    const next = s.replace(/[-.]+$/, '').replace(/\.lock$/i, '');
    if (next === s) break;
    s = next;
  }
  return s === '' ? 'module' : s;
}

/** Six hex digits, new for each worktree. */
export function shortId(random: () => Buffer = () => randomBytes(3)): string {
  return random().toString('hex').slice(0, 6);
}

export interface WorktreeNames {
  branch: string;
  /** The folder's name under WORKTREES_DIR. */
  dirName: string;
}

export function worktreeNames(moduleName: string, id: string): WorktreeNames {
  const base = `${nameSlug(moduleName)}-${id}`;
  return { branch: `${BRANCH_PREFIX}${base}`, dirName: base };
}
