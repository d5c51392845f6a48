import { describeError } from './loopFailure.js';

/** What the last resort asks of a supervisor of this process. */
export interface Abandonable {
  /** Records the error, and leaves every loop's row for the next supervisor to adopt. */
  abandon(error: { message: string; stack: string }): void;
}

const watched = new Set<Abandonable>();
let handling = false;

/**
 * The last resort of a process that supervises loops: an exception no loop's boundary
 * caught (a bug in the supervisor itself, the dashboard, a listener) is recorded in the log
 * of every supervisor here, each of which leaves its loops' rows for the next supervisor
 * to adopt (never a row `running` under an owner that can no longer run it); then the
 * process exits (1) with one line on stderr. Returns what stops watching `supervisor`.
 */
export function watchLastResort(supervisor: Abandonable): () => void {
  watched.add(supervisor);
  if (watched.size === 1) process.on('uncaughtException', onFatal);
  return () => {
    watched.delete(supervisor);
    if (watched.size === 0) process.off('uncaughtException', onFatal);
  };
}

function onFatal(err: unknown): void {
  if (handling) process.exit(1); // a second one while the first is handled: out now
  handling = true;
  const error = describeError(err);
  for (const supervisor of watched) {
    try {
      supervisor.abandon(error);
    } catch { /* the next one all the same */ }
  }
  try {
    process.stderr.write(`autodeck: internal error: ${error.message}; its loops are left for the next autodeck to adopt (the stack: autodeck log --json)\n`);
  } catch { /* no stderr left */ }
  process.exit(1);
}
