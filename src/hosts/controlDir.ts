import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/**
 * The private folder of ssh's connection sockets. Anyone who can open a socket there can
 * run commands on the host as the user, so it is the user's alone (0700) and checked, not
 * trusted: a folder another user made first, or a symlink, is refused.
 */

/** A socket's path has room for ~104 bytes: the folder, a name of 21 and the suffix of 17 ssh adds while it makes one. */
const MAX_DIR_LENGTH = 60;

/**
 * Where the sockets go: `$XDG_RUNTIME_DIR/autodeck-ssh` (the user's own runtime folder),
 * else `/tmp/autodeck-ssh-UID` (short: the temporary folder of some systems is too long a
 * path for a socket).
 */
export function controlDirFor(env: NodeJS.ProcessEnv, uid: number | undefined): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && isAbsolute(runtime) && !/\s/.test(runtime)) {
    const dir = join(runtime, 'autodeck-ssh');
    if (dir.length <= MAX_DIR_LENGTH) return dir;
  }
  return `/tmp/autodeck-ssh-${uid ?? 'user'}`;
}

export class ControlDirError extends Error {}

/** Makes the folder (0700) or checks the one there; throws ControlDirError with a line for the user. */
export function ensureControlDir(dir: string, uid: number | undefined = process.getuid?.()): string {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new ControlDirError(`cannot make the ssh control folder ${dir}: ${(err as Error).message}`);
  }
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new ControlDirError(`the ssh control folder ${dir} is not a folder (a symlink?): remove it`);
  if (uid !== undefined && st.uid !== uid) throw new ControlDirError(`the ssh control folder ${dir} belongs to another user: remove it, or set XDG_RUNTIME_DIR`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
}
