import { isTransientWriteError } from '../store/db.js';

/**
 * The one way into a loop from the world outside it. Every callback that reaches a loop
 * (its file watcher and timers, its agent's exit, its heartbeat and tick, the supervisor's
 * and the dashboard's calls) runs through its `enter`, named for where it came from.
 */
export type LoopEntry = <T>(where: string, fn: () => T) => T | undefined;

/** What a loop's boundary does with what was thrown inside it. */
export interface BoundaryHandlers {
  /**
   * A bug, or input nothing foresaw: this loop ends `failed`, and only this loop. `where`:
   * the innermost named part it was thrown in (`within`), else the entry it came through.
   */
  internal(where: string, err: unknown, entry: string): void;
  /** The database was locked or the disk full: said once, the work is tried again later. */
  busy(err: unknown): void;
}

type Probe = (where: string, taskDir: string) => void;
let probe: Probe | undefined;
/** The loop whose boundary is entered now (entries are synchronous: one at a time). */
let inside: string | undefined;

/** The named part an exception was thrown in, innermost first. */
const thrownIn = new WeakMap<object, string>();

/**
 * A test seam, for tests only (no setting or environment reaches it): `fn` runs at every
 * entry into a loop and at the start of each named part inside one (`within`), with the
 * loop's task folder, and may throw there as a bug would.
 */
export function setBoundaryProbe(fn: Probe | undefined): void {
  probe = fn;
}

/**
 * Runs a named part of a loop's work where outside input is read (the signal file, a
 * hook's report, the screen, the transcript): what it throws is said to come from there.
 */
export function within<T>(where: string, fn: () => T): T {
  if (inside === undefined) return fn();
  try {
    probe?.(where, inside);
    return fn();
  } catch (err) {
    if (typeof err === 'object' && err !== null && !thrownIn.has(err)) thrownIn.set(err, where);
    throw err;
  }
}

/**
 * Contains one loop: anything thrown while the world calls into it is caught at the
 * outermost entry and fails this loop alone (see Loop's internal failure), never the
 * process and the other loops with it. Once failed, nothing more comes in.
 */
export class LoopBoundary {
  private depth = 0;
  private failedAt: string | undefined;

  constructor(private readonly taskDir: string, private readonly handlers: BoundaryHandlers) {}

  /** Where the loop failed inside, once it did. */
  get failed(): string | undefined {
    return this.failedAt;
  }

  /** `transientToCaller`: a locked database is thrown on, for a caller that retries the whole (the supervisor's flush). */
  enter<T>(where: string, fn: () => T, opts: { transientToCaller?: boolean } = {}): T | undefined {
    if (this.failedAt !== undefined) return undefined;
    if (this.depth > 0) return fn(); // already inside: the outermost entry catches
    const outer = inside;
    inside = this.taskDir;
    this.depth = 1;
    try {
      probe?.(where, this.taskDir);
      return fn();
    } catch (err) {
      if (isTransientWriteError(err)) {
        if (opts.transientToCaller) throw err;
        this.handlers.busy(err);
      } else {
        const part = typeof err === 'object' && err !== null ? thrownIn.get(err) : undefined;
        this.failedAt = part ?? where;
        this.handlers.internal(this.failedAt, err, where);
      }
      return undefined;
    } finally {
      this.depth = 0;
      inside = outer;
    }
  }
}
