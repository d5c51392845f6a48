import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Real git repositories for tests: a fixed identity, no user or system config read. */

export const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
};

export function sh(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Writes files (relative path → text), creating folders. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
}

/** `git init` in `dir` (branch main) with `files` committed. */
export function initRepo(dir: string, files: Record<string, string> = { 'README.md': 'hello\n' }): void {
  mkdirSync(dir, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main', dir], { env: GIT_ENV });
  writeFiles(dir, files);
  sh(dir, 'add', '-A');
  sh(dir, 'commit', '-q', '-m', 'first');
}

export function commitAll(dir: string, message: string): void {
  sh(dir, 'add', '-A');
  sh(dir, 'commit', '-q', '-m', message);
}
