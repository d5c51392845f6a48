import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic.js';
import { targetTemplate } from './target.js';

/** Longest module name and title `autodeck new` takes. */
export const MODULE_NAME_MAX = 64;
export const TITLE_MAX = 200;

/**
 * Why `name` cannot be a new module's folder, or undefined when it can: one path segment
 * of letters, digits, `.`, `_` and `-`, starting with a letter or digit (so no `..`, no
 * hidden folder, nothing that reads as a flag).
 */
export function moduleNameError(name: string): string | undefined {
  if (name === '') return 'the module name is empty';
  if (name.includes('/') || name.includes('\\')) return `a module name is one folder name, without "/" (got ${JSON.stringify(name.slice(0, 80))})`;
  if (name.length > MODULE_NAME_MAX) return `a module name is at most ${MODULE_NAME_MAX} characters (got ${name.length})`;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
    return `a module name is letters, digits, ".", "_" and "-", starting with a letter or digit (got ${JSON.stringify(name.slice(0, 80))})`;
  }
  return undefined;
}

/** Why `title` cannot be a module's title, or undefined: one line of printable text. */
export function titleError(title: string): string | undefined {
  if (title.trim() === '') return 'the title is empty';
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(title)) return 'the title is one line of text, without control characters';
  if (title.length > TITLE_MAX) return `the title is at most ${TITLE_MAX} characters (got ${title.length})`;
  return undefined;
}

/** The `.index.json` of a new module. */
export function newIndex(title: string, now: Date): Record<string, string> {
  return { title, status: 'draft', created_at: now.toISOString() };
}

export type CreateResult = { ok: true; dir: string; files: string[] } | { ok: false; exists: true; dir: string };

/**
 * Creates `<root>/<name>` with `.index.json` (draft) and the `.target.md` template, making
 * the root if it is missing. A folder or file of that name already there is left alone.
 * The name and title must have passed moduleNameError and titleError.
 */
export function createModule(root: string, name: string, title: string, now: Date, write = writeFileAtomic): CreateResult {
  mkdirSync(root, { recursive: true });
  const dir = join(root, name);
  try {
    mkdirSync(dir); // not recursive: fails on anything already there, however it got there
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return { ok: false, exists: true, dir };
    throw err;
  }
  const files = ['.index.json', '.target.md'];
  try {
    write(join(dir, '.target.md'), targetTemplate(title.trim()));
    write(join(dir, '.index.json'), `${JSON.stringify(newIndex(title.trim(), now), null, 2)}\n`);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true }); // ours alone: made a moment ago
    throw err;
  }
  return { ok: true, dir, files };
}
