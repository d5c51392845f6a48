import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { defaultDbPath, homeDir, projectConfigPath, userConfigPath } from '../paths.js';

/**
 * The `db` setting as resolveSettings finds it (flag > AUTODECK_DB > project file > user
 * file > default), for `status --format tmux` alone: it runs every few seconds, and the
 * full settings table costs it a fifth of its time. Undefined when a config file cannot be
 * read as JSON: then the full path runs and reports it.
 */
export function quickDbPath(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const home = homeDir(env);
  const toPath = (p: string, base: string): string => resolve(base, p === '~' ? home : p.startsWith('~/') ? home + p.slice(1) : p);
  if (flag !== undefined && flag.trim() !== '') return toPath(flag, cwd);
  if (env.AUTODECK_DB) return toPath(env.AUTODECK_DB, cwd);
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
    return toPath(db, dirname(file));
  }
  return defaultDbPath(env);
}
