import { childProcess } from '../lazy.js';

/** What an ssh call came to. */
export interface CallResult {
  /** The exit code; null when it was killed (its deadline, or a signal). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Killed at its deadline: the connection or the remote side did not answer in time. */
  timedOut: boolean;
  /** How long it took. */
  ms: number;
}

export interface CallOptions {
  /** The whole call, connection included: past it the process is killed. */
  deadlineMs: number;
  /** Output kept per stream; more is dropped (a remote that floods cannot fill memory). */
  maxBytes?: number;
  /** Written to its input, which is then closed; default none. */
  input?: string;
  env?: NodeJS.ProcessEnv;
  /** Aborted: the process is killed (the dashboard is closing). */
  signal?: AbortSignal;
}

const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
/**
 * After the process exits, how long its output may still come: a connection master that ssh
 * forked can hold a copy of the pipes (it should not; if it does, the call still ends).
 */
const DRAIN_MS = 200;

/**
 * Runs `argv` (ssh, never through a local shell) with an overall deadline: ConnectTimeout
 * bounds only the connection, not a master socket that accepts and never answers, nor a
 * remote command that hangs. Asynchronous: a slow host never holds the dashboard.
 */
export function runCall(argv: readonly string[], opts: CallOptions): Promise<CallResult> {
  const started = performance.now();
  const max = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  return new Promise((resolve) => {
    let child: import('node:child_process').ChildProcess;
    try {
      child = childProcess().spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], env: opts.env ?? process.env });
    } catch (err) {
      resolve({ code: null, stdout: '', stderr: (err as Error).message, timedOut: false, ms: 0 });
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let done = false;
    let exitCode: number | null = null;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearTimeout(drain);
      opts.signal?.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({
        code: timedOut ? null : exitCode, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'),
        timedOut, ms: performance.now() - started,
      });
    };
    const deadline = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
      finish();
    }, opts.deadlineMs);
    let drain: NodeJS.Timeout | undefined;
    function onAbort(): void {
      child.kill('SIGKILL');
      finish();
    }
    child.stdout!.on('data', (d: Buffer) => {
      if (outBytes < max) out.push(d);
      outBytes += d.length;
    });
    child.stderr!.on('data', (d: Buffer) => {
      if (errBytes < max) err.push(d);
      errBytes += d.length;
    });
    child.on('error', (e) => {
      err.push(Buffer.from(e.message));
      finish();
    });
    child.on('exit', (code) => {
      exitCode = code;
      drain = setTimeout(finish, DRAIN_MS);
    });
    child.on('close', finish);
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdin!.on('error', () => { /* the program did not read its input */ });
    child.stdin!.end(opts.input ?? '');
  });
}

/** The last non-empty line of ssh's complaint, for a row that has one line to say why. */
export function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  return lines.at(-1) ?? '';
}
