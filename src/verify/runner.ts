import { spawn } from 'node:child_process';
import { TailBuffer } from './output.js';

/** What one run of a verify command came to. */
export interface VerifyResult {
  /** The exit status; null when a signal ended it, or it never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Killed at its timeout. */
  timedOut: boolean;
  /** Killed because the loop no longer wanted it (a stop, a new signal). */
  cancelled: boolean;
  /** It could not be started (its program missing, its folder gone): why. */
  error?: string;
  durationMs: number;
  /** The last bytes of its output (stdout and stderr as they came), raw; see output.ts. */
  output: string;
  /** Every byte it printed, kept or not. */
  outputBytes: number;
}

export const passed = (r: VerifyResult): boolean => r.exitCode === 0 && !r.timedOut && !r.cancelled && r.error === undefined;

export interface VerifySpawn {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Output bytes kept in memory (the tail). */
  maxOutputBytes: number;
  /** After SIGTERM at the timeout, how long before SIGKILL. */
  killAfterMs?: number;
  /** Monotonic milliseconds (durations); performance.now by default. */
  now?: () => number;
}

export interface RunningVerify {
  /** The process group leader's pid; undefined when it could not be started. */
  readonly pid: number | undefined;
  readonly result: Promise<VerifyResult>;
  /** Ends it at once (its whole process group); the result says `cancelled`. */
  cancel(): void;
}

/** After the verify's own process exits, how long its output pipes may stay open (a child that kept them). */
const DRAIN_MS = 500;
export const KILL_AFTER_MS = 3000;

/** Sends a signal to a whole process group; a group already gone is no error. */
function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch { /* ESRCH: nothing left */ }
}

/**
 * Starts a verify command in a process group of its own, with no terminal and no input.
 * At its timeout the whole group gets SIGTERM, then SIGKILL; when the command exits, what
 * it left behind in its group is killed too, so nothing of a verify outlives it.
 */
export function startVerify(spec: VerifySpawn): RunningVerify {
  const now = spec.now ?? (() => performance.now());
  const started = now();
  const out = new TailBuffer(spec.maxOutputBytes);
  let timedOut = false;
  let cancelled = false;
  let settle!: (r: VerifyResult) => void;
  let timer: NodeJS.Timeout | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const result = new Promise<VerifyResult>((resolve) => (settle = resolve));
  const finish = (exitCode: number | null, signal: NodeJS.Signals | null, error?: string): void => {
    clearTimeout(timer);
    clearTimeout(killTimer);
    settle({
      exitCode, signal, timedOut, cancelled, durationMs: Math.max(0, Math.round(now() - started)),
      output: out.text(), outputBytes: out.total, ...(error !== undefined ? { error } : {}),
    });
  };

  let child;
  try {
    // stdout and stderr as one stream, in the order written: a shell that only dups the
    // descriptor and execs the command (given as its arguments, never in its text)
    child = spawn('/bin/sh', ['-c', 'exec "$@" 2>&1', 'sh', ...spec.argv], {
      cwd: spec.cwd, env: spec.env, detached: true, stdio: ['ignore', 'pipe', 'ignore'], windowsHide: true,
    });
  } catch (err) {
    finish(null, null, (err as Error).message);
    return { pid: undefined, result, cancel: () => {} };
  }
  const pid = child.pid;
  const take = (chunk: Buffer): void => out.push(chunk);
  child.stdout!.on('data', take);

  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let done = false;
  const end = (error?: string): void => {
    if (done) return;
    done = true;
    child.stdout!.off('data', take);
    child.stdout!.destroy();
    finish(exited?.code ?? null, exited?.signal ?? null, error);
  };
  child.on('error', (err) => {
    // spawn failures (ENOENT, EACCES, a cwd that is gone) come here, without an exit
    if (!exited) end(err.message);
  });
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    killGroup(pid, 'SIGKILL'); // what it left running in its group
    // The pipes close once every holder is gone; one that escaped its group may keep them.
    const drain = setTimeout(() => end(), DRAIN_MS);
    child.on('close', () => {
      clearTimeout(drain);
      end();
    });
  });

  timer = setTimeout(() => {
    timedOut = true;
    killGroup(pid, 'SIGTERM');
    killTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), spec.killAfterMs ?? KILL_AFTER_MS);
  }, spec.timeoutMs);

  return {
    pid,
    result,
    cancel: () => {
      if (done || exited) return;
      cancelled = true;
      killGroup(pid, 'SIGKILL');
    },
  };
}
