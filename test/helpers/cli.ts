import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Workspace } from './workspace.js';
import { waitFor } from './wait.js';
import { apiTokenPath } from '../../src/api/token.js';

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

/** After a test: every run it started that still lives is killed -9, and waited for. */
export async function killLeftovers(runs: CliRun[]): Promise<void> {
  for (const c of runs.splice(0)) {
    if (c.child.exitCode === null && c.child.signalCode === null) {
      c.child.kill('SIGKILL');
      await c.exited;
    }
  }
}

export interface Served {
  run: CliRun;
  port: number;
  token: string;
}

/**
 * `autodeck serve` on a free port, with the workspace's quick `run` flags plus `extra`;
 * resolves once it listens. The run joins `track` first, so a test that fails while it
 * starts still leaves no server behind.
 */
export async function startServe(ws: Workspace, track: CliRun[], extra: string[] = []): Promise<Served> {
  const run = startCli(ws, ['serve', '--api-port', '0', ...runFlags(ws, extra)]);
  track.push(run);
  const m = await waitFor(() => /autodeck serve: http:\/\/127\.0\.0\.1:(\d+)/.exec(run.stderr()), `serve listening (stderr: ${run.stderr()})`);
  return { run, port: Number(m[1]), token: readFileSync(apiTokenPath(ws.env), 'utf8').trim() };
}
