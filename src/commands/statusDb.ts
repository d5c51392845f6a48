import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { defaultDbPath, homeDir, projectConfigPath, userConfigPath, userPath } from '../paths.js';

/**
 * The `db` setting as resolveSettings finds it (flag > AUTODECK_DB > project file > user
 * file > default), for `status --format tmux` alone: it runs every few seconds, and the
 * full settings table costs it a fifth of its time. Undefined when a config file cannot be
 * read as JSON: then the full path runs and reports it.
 */
export function quickDbPath(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const home = homeDir(env);
  if (flag !== undefined && flag.trim() !== '') return userPath(flag, home, cwd);
  if (env.AUTODECK_DB) return userPath(env.AUTODECK_DB, home, cwd);
  for (const file of [projectConfigPath(cwd), userConfigPath(env)]) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
      return undefined;
    }
    let data: unknown;
    try {
      data = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch {
      return undefined;
    }
    const db = (data as { db?: unknown } | null)?.db;
    if (db === undefined) continue;
    if (typeof db !== 'string' || db.trim() === '') return undefined;
    return userPath(db, home, dirname(file));
  }
  return defaultDbPath(env);
}
