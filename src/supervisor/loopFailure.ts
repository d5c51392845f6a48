import type { Session } from '../sessions/session.js';
import type { EventKind } from '../store/events.js';
import type { Store } from '../store/index.js';
import type { LoopRow } from '../store/loops.js';
import { writeStopFile } from '../protocol/stopFile.js';
import { cutString } from '../format/bounded.js';
import { KILL_AFTER_TERM_MS } from './loopStopping.js';

/** The stop reason of a loop failed inside autodeck (its row while its agent stops, its run). */
export const INTERNAL_ERROR = 'internal_error';

/** What an exception says, in one printable line, and its stack (kept short) for the log. */
export function describeError(err: unknown): { message: string; stack: string } {
  let name = 'Error';
  let message: string;
  let stack = '';
  try {
    if (err instanceof Error) {
      name = err.name || 'Error';
      message = String(err.message);
      stack = String(err.stack ?? '');
    } else {
      name = typeof err;
      message = String(err);
    }
  } catch {
    message = 'an exception that cannot be shown';
  }
  const line = `${name}: ${message}`.split('\n')[0]!.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  const lines = stack.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, '?').split('\n').slice(0, 16).join('\n');
  return { message: cutString(line, 300), stack: cutString(lines, 4000) };
}

/** What stopping a loop that failed inside needs of it: only the few parts it trusts still. */
export interface FailureHost {
  taskDir: string;
  graceMs: number;
  session(): Session | undefined;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  /** Nothing more comes into the loop: its timers and watcher stop. */
  quiet(): void;
  /** The row says the loop is stopping, and why. */
  markStopping(): void;
  /** The agent is gone: the loop ends `failed` with this message. */
  end(message: string): void;
}

/** Runs `fn`, and what it throws is dropped: each step of a failure's stop goes on without the one before it. */
function guard<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

/**
 * How a loop that failed inside (an exception at its boundary) ends: the `internal_error`
 * event names the exception (its stack in the detail), nothing more comes in, and its agent
 * is stopped in order — the stop file, the grace time, SIGTERM, then SIGKILL — before the
 * loop ends `failed`. Each step is guarded on its own: the loop's other parts may be what
 * is broken, so this uses as few of them as it can.
 */
export class LoopFailure {
  private readonly timers: NodeJS.Timeout[] = [];
  private done = false;
  private message = '';
  private session: Session | undefined;

  constructor(private readonly host: FailureHost) {}

  /** `where`: the part of the loop it was thrown in; `entry`: how the world came in. */
  start(where: string, err: unknown, entry = where): void {
    const host = this.host;
    const { message, stack } = describeError(err);
    this.message = `internal error in ${where}: ${message}`;
    guard(() => host.event('internal_error', { where, ...(entry !== where ? { entry } : {}), message, stack }));
    guard(() => host.quiet());
    const session = guard(() => host.session());
    guard(() => writeStopFile(host.taskDir, INTERNAL_ERROR));
    if (!session || guard(() => session.exited) !== false) {
      this.finish();
      return;
    }
    this.session = session;
    guard(() => host.markStopping());
    guard(() => session.onExit((exit) => {
      if (this.done) return;
      guard(() => host.event('agent_exit', { exitCode: exit.exitCode, signal: exit.signal ?? null }));
      this.finish();
    }));
    this.after(host.graceMs, () => {
      if (session.exited) return;
      guard(() => host.event('agent_exit', { action: 'SIGTERM', why: `still running ${Math.round(host.graceMs / 1000)}s after the stop (internal error)` }));
      session.kill('SIGTERM');
      this.after(KILL_AFTER_TERM_MS, () => {
        if (session.exited) return;
        session.kill('SIGKILL');
        // no exit seen even so (a backend that lost its agent): the loop ends all the same
        this.after(KILL_AFTER_TERM_MS, () => this.finish());
      });
    });
  }

  /** A force stop asked for meanwhile: the agent is killed now. */
  killNow(): void {
    if (this.done || !this.session) return;
    guard(() => this.session!.kill('SIGKILL'));
  }

  /** The process is going away: the stop's timers end here (the row says `stopping`, for the next owner). */
  cancel(): void {
    this.done = true;
    for (const t of this.timers) clearTimeout(t);
  }

  private after(ms: number, fn: () => void): void {
    this.timers.push(setTimeout(() => {
      if (this.done) return;
      try {
        fn();
      } catch {
        this.finish();
      }
    }, ms));
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    for (const t of this.timers) clearTimeout(t);
    this.host.end(this.message);
  }
}

/**
 * A row no loop could be made for (a bug, or settings nothing foresaw), failed at once and
 * never left running: the `internal_error` and `failed` events, the stop file for an agent
 * that may still run (tmux: it stops at its next step). Returns the one-line message.
 */
export function failRowInside(
  host: { store: Store; record: (row: LoopRow, kind: EventKind, detail: Record<string, unknown>) => void },
  row: LoopRow, where: string, err: unknown,
): string {
  const { message, stack } = describeError(err);
  const text = `internal error in ${where}: ${message}`;
  guard(() => {
    host.store.loops.update(row.session, { status: 'failed', agentPid: null, stopReason: text });
    host.record(row, 'internal_error', { where, message, stack });
    host.record(row, 'failed', { message: text, code: INTERNAL_ERROR });
  });
  guard(() => writeStopFile(row.taskDir, INTERNAL_ERROR));
  return text;
}
