import { execFile } from 'node:child_process';
import { parseListing, withJobState, type ClaudeSession } from './listing.js';
import { readJobState } from './files.js';

/**
 * Lists Claude Code's sessions by asking Claude Code: `claude agents --json --all` (no
 * terminal needed, starts nothing, about a fifth of a second), each background session
 * completed with its job's `detail` and `needs`. `--all` keeps the ended ones listed, as
 * Claude Code's own agent view does, until someone removes them (`claude rm`).
 */

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program without a shell; rejects only when it could not be started (ENOENT…). */
export type RunProgram = (file: string, args: readonly string[], opts: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs: number }) => Promise<CommandResult>;

export const runProgram: RunProgram = (file, args, opts) =>
  new Promise((resolve, reject) => {
    execFile(file, [...args], { cwd: opts.cwd, env: opts.env, timeout: opts.timeoutMs, maxBuffer: 16 * 1024 * 1024, windowsHide: true },
      (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { code?: number | string }) | null;
        if (e && typeof e.code === 'string') {
          reject(e);
          return;
        }
        resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
      });
  });

/** How long `claude agents --json` may take on a loaded machine before the look is given up (the next one tries again). */
export const LIST_TIMEOUT_MS = 20_000;

export interface ListOptions {
  /** The `claude` program (a name on PATH or a path). */
  program: string;
  configDir: string;
  env: NodeJS.ProcessEnv;
  run?: RunProgram;
  /** How long the call may take; default LIST_TIMEOUT_MS. */
  timeoutMs?: number;
}

/** The sessions Claude Code lists now; throws one line when it could not say. */
export async function listClaudeSessions(opts: ListOptions): Promise<{ sessions: ClaudeSession[]; skipped: number }> {
  const run = opts.run ?? runProgram;
  let result: CommandResult;
  try {
    result = await run(opts.program, ['agents', '--json', '--all'], { env: opts.env, timeoutMs: opts.timeoutMs ?? LIST_TIMEOUT_MS });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `${opts.program} is not installed (not found on PATH)` : `${opts.program} agents --json: ${(err as Error).message.split('\n')[0]}`);
  }
  if (result.code !== 0) {
    const why = (result.stderr.trim() || result.stdout.trim()).split('\n')[0]?.slice(0, 200) ?? '';
    throw new Error(`${opts.program} agents --json exited ${result.code}${why ? `: ${why}` : ''}`);
  }
  const listing = parseListing(result.stdout);
  const sessions = listing.sessions.map((s) => (s.id ? withJobState(s, readJobState(opts.configDir, s.id)) : s));
  return { sessions, skipped: listing.skipped };
}
