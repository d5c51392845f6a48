import { spawnSync } from 'node:child_process';

/**
 * git, run without a shell, in a given folder. The variables that point git at another
 * repository (a git hook's GIT_DIR, say) are left out, so `-C dir` alone decides; looks
 * take no optional lock, so an agent working in the same repository never meets an
 * `index.lock` of ours.
 */

export interface GitRun {
  ok: boolean;
  status: number | null;
  stdout: string;
  stderr: string;
}

const REPO_VARIABLES = /^GIT_(DIR|WORK_TREE|INDEX_FILE|PREFIX|COMMON_DIR|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|NAMESPACE|CEILING_DIRECTORIES|DISCOVERY_ACROSS_FILESYSTEM)$/;

/** How long one git command may take (a checkout of a large tree is the long one). */
export const GIT_TIMEOUT_MS = 5 * 60_000;

function gitEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) if (!REPO_VARIABLES.test(k)) env[k] = v;
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_OPTIONAL_LOCKS = '0';
  return env;
}

export function git(dir: string, args: readonly string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): GitRun {
  const r = spawnSync('git', ['-C', dir, ...args], {
    encoding: 'utf8', env: gitEnv(opts.env ?? process.env), timeout: opts.timeoutMs ?? GIT_TIMEOUT_MS,
    stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) return { ok: false, status: null, stdout: '', stderr: (r.error as Error).message };
  return { ok: r.status === 0, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** git's output without its final newline, or undefined when the command failed. */
export function gitOut(dir: string, args: readonly string[]): string | undefined {
  const r = git(dir, args);
  return r.ok ? r.stdout.replace(/\n$/, '') : undefined;
}

/** The last line git wrote to stderr, for a one-line message (`fatal: ` dropped). */
export function gitError(r: GitRun): string {
  const lines = r.stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const last = lines.find((l) => /^(fatal|error):/.test(l)) ?? lines.at(-1) ?? `git exited with status ${r.status}`;
  return last.replace(/^(fatal|error):\s*/, '');
}
