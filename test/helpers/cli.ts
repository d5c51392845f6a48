import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Workspace } from './workspace.js';

export const BIN = fileURLToPath(new URL('../../bin/autodeck.js', import.meta.url));

/** The simulated agent as an --agent value: this checkout's own CLI. */
export const SIM_AGENT = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} sim {taskDir}`;

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or 128 + signal number). */
  exited: Promise<number>;
}

/** Starts the built CLI as a real process in a workspace, with its own HOME and state. */
export function startCli(ws: Workspace, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliRun {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? ws.dir,
    env: { ...ws.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number>((resolve) => {
    child.on('close', (code, signal) => resolve(code ?? 128 + (signal === 'SIGKILL' ? 9 : 15)));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs the CLI to its end. */
export async function runCli(ws: Workspace, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  const r = startCli(ws, args, opts);
  const code = await r.exited;
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}

/** `run` flags that point at the workspace and make loops quick. */
export function runFlags(ws: Workspace, extra: string[] = []): string[] {
  const heartbeat = extra.includes('--heartbeat') ? [] : ['--heartbeat', '0.5'];
  return ['--db', ws.db, '--root', ws.root, '--agent', SIM_AGENT, ...heartbeat, ...extra];
}
