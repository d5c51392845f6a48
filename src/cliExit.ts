import { EXIT, isCliError } from './commands/context.js';

/**
 * How every autodeck process ends: the exit code of its command, or the one line that says
 * why it failed. Shared by the full CLI and the bin's fast paths (`hook`, `status`).
 */

/**
 * A reader that went away (`autodeck log --json | head -2`) is no failure of ours; nor is a
 * terminal that hung up (EIO: the ssh link dropped, tmux killed). The SIGHUP that comes with
 * a hangup ends the program in order (the dashboard leaves its loops); thrown here, the
 * error cut that short with a stack trace, and an abort at exit on Node 20.
 */
let quiet = false;
/** Set by a process that supervises loops: a closed output is noted, never an exit. */
let onClosed: ((stream: 'stdout' | 'stderr') => void) | undefined;
const closed = new Set<'stdout' | 'stderr'>();

export function quietOnEpipe(): void {
  if (quiet) return;
  quiet = true;
  for (const name of ['stdout', 'stderr'] as const) {
    // stderr as well: a command's last line (the dashboard's "left N loops") may follow a hangup
    process[name].on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EIO') return;
      if (closed.has(name)) return; // writes after the close fail too: already said
      if (err.code !== 'EPIPE') throw err;
      closed.add(name);
      if (onClosed) onClosed(name);
      else process.exit(process.exitCode ?? 0);
    });
  }
}

/**
 * For a process that supervises loops (`run`, `serve`, `demo`): a reader of its output that
 * goes away (`autodeck run --json … | head`) ends nothing. The loops go on to their own
 * end, as if the output were still read; what would have been written is dropped, and
 * `noted` hears of each closed stream once (to record it in the log).
 */
export function superviseThroughClosedOutput(noted: (stream: 'stdout' | 'stderr') => void): void {
  quietOnEpipe();
  onClosed = (stream) => {
    try {
      noted(stream);
    } catch { /* the log is gone too: nothing more to tell */ }
  };
}


export async function report(err: unknown): Promise<number> {
  if (isCliError(err)) {
    process.stderr.write(`${err.message}\n`);
    return err.code;
  }
  const { isBusyError } = await import('./store/db.js');
  if (isBusyError(err)) {
    process.stderr.write('autodeck: the state database is locked by another process (waited 5 s); try again\n');
    return EXIT.other;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`autodeck: ${message.split('\n')[0]}\n`);
  if (process.env.AUTODECK_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  return EXIT.other;
}

export function exit(code: number): void {
  process.exitCode = code;
  // A safety net: a handle left open (a closing watcher, a dying pty) must not hold the exit.
  setTimeout(() => process.exit(code), 2000).unref();
}

/** Ends the process with what `run` resolves to, or with the report of what it threw. */
export function settle(run: Promise<number>): void {
  run.then(exit, async (err: unknown) => exit(await report(err)));
}
