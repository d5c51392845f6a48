import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { sha1Hex } from './lazy.js';

/**
 * The nearest folder at or above `dir` holding `.git` (a folder, or a file for
 * worktrees and submodules). Walks the file system instead of running git, so it
 * works without git installed and costs no child process.
 */
export function gitTopLevel(dir: string): string | undefined {
  let d = resolve(dir);
  for (;;) {
    if (existsSync(join(d, '.git'))) return d;
    const up = dirname(d);
    if (up === d) return undefined;
    d = up;
  }
}

export function homeDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOME || homedir();
}

/** A path as a user writes it in a flag, a variable or a settings file: `~` and `~/x` in home, else against `baseDir`. */
export function userPath(p: string, home: string, baseDir: string): string {
  return resolve(baseDir, p === '~' ? home : p.startsWith('~/') ? home + p.slice(1) : p);
}

/** The XDG spec says a relative (or empty) value is invalid and must be ignored. */
function xdgDir(value: string | undefined, env: NodeJS.ProcessEnv, fallback: string): string {
  return value && isAbsolute(value) ? value : join(homeDir(env), fallback);
}

export function xdgStateHome(env: NodeJS.ProcessEnv = process.env): string {
  return xdgDir(env.XDG_STATE_HOME, env, join('.local', 'state'));
}

export function xdgConfigHome(env: NodeJS.ProcessEnv = process.env): string {
  return xdgDir(env.XDG_CONFIG_HOME, env, '.config');
}

export function xdgCacheHome(env: NodeJS.ProcessEnv = process.env): string {
  return xdgDir(env.XDG_CACHE_HOME, env, '.cache');
}

export function defaultDbPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgStateHome(env), 'autodeck', 'state.db');
}

export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(xdgConfigHome(env), 'autodeck', 'config.json');
}

/** Where the project file lives: the git top level, or the folder itself outside git (as for roots). */
export function projectDir(cwd: string = process.cwd()): string {
  return gitTopLevel(cwd) ?? resolve(cwd);
}

export function projectConfigPath(cwd: string = process.cwd()): string {
  return join(projectDir(cwd), '.autodeck.json');
}

/** `AiTasks/` under the git top level, or under the current folder outside git. */
export function defaultRoots(cwd: string = process.cwd()): string[] {
  return [join(projectDir(cwd), 'AiTasks')];
}

const SLUG_MAX = 40;

export function slug(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/, ''); // cutting may leave a trailing dash
  return s || 'module';
}

/**
 * `auto-<slug>-<first 6 hex of sha1(real path)>`. The hash keeps two modules
 * with the same name under different roots apart; the slug keeps it readable in tmux.
 */
export function sessionName(moduleName: string, realPath: string): string {
  // node:crypto loaded on first use: `status --format tmux` and the hooks read paths but never hash
  const hash = sha1Hex(realPath).slice(0, 6);
  return `auto-${slug(moduleName)}-${hash}`;
}

/** A session id a caller may choose (the REST API's `:id`). */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export function isSessionId(id: string): boolean {
  return SESSION_ID_PATTERN.test(id);
}
