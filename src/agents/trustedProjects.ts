import { appendFileSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { writeFileAtomic } from '../protocol/atomic.js';
import { dirname, join } from 'node:path';
import { xdgStateHome } from '../paths.js';

/**
 * The projects the user said autodeck may work in unattended: `autodeck init`, run by the
 * user in a project, records it here. Only in such a project does autodeck accept Claude
 * Code's folder-trust dialog (which writes the trust into the user's ~/.claude.json); in any
 * other the dialog is left to a person. Kept in the user's own state folder, never in the
 * project, so a project cannot vouch for itself.
 */

export function trustedProjectsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgStateHome(env), 'autodeck', 'trusted-projects');
}

function real(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/** The recorded projects, one real path a line. */
export function trustedProjects(env: NodeJS.ProcessEnv = process.env): Set<string> {
  try {
    return new Set(readFileSync(trustedProjectsFile(env), 'utf8').split('\n').filter((l) => l.startsWith('/')));
  } catch {
    return new Set();
  }
}

export function isTrustedProject(dir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return trustedProjects(env).has(real(dir));
}

/** Records a project; true when it was not recorded before. */
export function recordTrustedProject(dir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const path = real(dir);
  if (path.includes('\n') || trustedProjects(env).has(path)) return false;
  const file = trustedProjectsFile(env);
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${path}\n`);
  return true;
}

/** Forgets a project (`autodeck init --undo`); true when it was recorded. */
export function forgetTrustedProject(dir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const path = real(dir);
  const known = trustedProjects(env);
  if (!known.delete(path)) return false;
  writeFileAtomic(trustedProjectsFile(env), [...known].map((p) => `${p}\n`).join(''));
  return true;
}
