import type { Store } from '../store/index.js';
import { isTransientWriteError } from '../store/db.js';
import type { EventKind } from '../store/events.js';
import type { LoopRow } from '../store/loops.js';
import type { Outcome, RunRow } from '../store/runs.js';
import type { LoopDeps } from './loopSpec.js';
import type { LoopRowWriter } from './loopRowWriter.js';
import type { LoopTimers } from './loopTimers.js';
import type { ProgressFiles } from './progressFiles.js';
import type { AgentProcess } from './agentProcess.js';
import type { LoopGovernor } from './loopGovernor.js';
import type { LoopStopping } from './loopStopping.js';
import type { LoopFailure } from './loopFailure.js';
import type { LoopEntry } from './loopBoundary.js';
import { RESTART_LIMIT_MESSAGE } from './limits.js';

/** How often a loop's end is tried again while another process holds the database. */
export const END_RETRY_MS = 1000;

/** Why a loop failed: the message is its `failed` event and its row's stop reason; `code` the run's stop reason. */
export interface Failure {
  message: string;
  code: string;
}

/** The run a loop's end records, from its row and how it ended. */
export function runOf(row: LoopRow, end: {
  now: number; activeMs: number; outcome: Outcome; stopReason: string; forced: boolean;
  spend: Pick<RunRow, 'tokens' | 'costUsd' | 'compactions'>;
}): Omit<RunRow, 'id'> {
  return {
    session: row.session, taskDir: row.taskDir, taskName: row.taskName, startedAt: row.startedAt,
    endedAt: new Date(end.now).toISOString(), iterations: row.iteration, maxIterations: row.maxIterations,
    timeoutMinutes: row.timeoutMinutes, outcome: end.outcome, stopReason: end.stopReason, forced: end.forced,
    recoveries: row.recoveryTotal, restarts: row.restartsTotal, quotaWaitMs: row.quotaWaitMs, activeMs: end.activeMs,
    ...end.spend,
  };
}

/** What saving a loop's end needs of the loop. */
export interface EndHost {
  store: Store;
  row(): LoopRow;
  patch(patch: Partial<LoopRow>): void;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  /** A write found the database locked by another process. */
  busy?: (err: unknown) => void;
  /** Runs `fn` again after `ms` (the loop's timers are stopped by then). */
  retry(ms: number, fn: () => void): void;
  /** The run is recorded; the row is gone, or kept as failed. */
  ended(run: RunRow): void;
}

/**
 * Records the run and removes the row (or, with a `failure`, keeps it as failed), in
 * one transaction. While another process holds the database it tries again every second:
 * the outcome is never lost, and the row stays until it is written.
 */
export function saveEnd(host: EndHost, run: Omit<RunRow, 'id'>, failure: Failure | undefined): void {
  const row = host.row();
  let id = 0;
  try {
    host.store.tx(() => {
      id = host.store.runs.insert(run);
      if (failure) {
        host.patch({ status: 'failed', agentPid: null, stopReason: failure.message });
        host.event('failed', { message: failure.message, restarts: row.restartCount, ...(failure.code ? { code: failure.code } : {}) });
      } else {
        host.store.loops.delete(row.session);
      }
      host.event('ended', { outcome: run.outcome, forced: run.forced, iterations: row.iteration, activeMs: run.activeMs, tokens: run.tokens, costUsd: run.costUsd, compactions: run.compactions });
    });
  } catch (err) {
    if (!isTransientWriteError(err)) throw err;
    host.busy?.(err);
    host.retry(END_RETRY_MS, () => saveEnd(host, run, failure));
    return;
  }
  host.ended({ id, ...run });
}

/** What failing a row directly needs. */
export interface DirectFailHost {
  store: Store;
  clock: { wall(): number };
  record: (row: LoopRow, kind: EventKind, detail: Record<string, unknown>) => void;
}

/**
 * The last way to end a loop whose own end threw: its row failed directly, a run with the
 * row's last figures told to the supervisor (`ended`). A database that takes no write at
 * all is the process's trouble: thrown on, to its last resort.
 */
export function failDirectly(host: DirectFailHost, row: LoopRow, message: string, code: string, ended: (run: RunRow) => void): void {
  try {
    host.store.loops.update(row.session, { status: 'failed', agentPid: null, stopReason: message });
  } catch (err) {
    setImmediate(() => { throw err; });
    return;
  }
  try {
    host.record(row, 'failed', { message, code });
  } catch { /* the row says it */ }
  ended({
    id: 0,
    ...runOf(row, {
      now: host.clock.wall(), activeMs: 0, outcome: 'failed', stopReason: code, forced: false,
      spend: { tokens: row.tokens ?? null, costUsd: row.costUsd ?? null, compactions: row.compactions ?? null },
    }),
  });
}

/** The parts of a loop its end reaches. */
export interface EndingParts {
  deps: LoopDeps;
  rows: LoopRowWriter;
  timers: LoopTimers;
  files: ProgressFiles;
  agent: AgentProcess;
  governor: LoopGovernor;
  stopper: LoopStopping;
  internal: LoopFailure;
  enter: LoopEntry;
  /** Tells the supervisor the loop ended, with its run. */
  ended: (run: RunRow) => void;
}

/**
 * How a loop ends, or is let go: its timers, watcher and agent stop, its files are cleaned,
 * its run recorded and its row removed (or kept as failed); or, when the process goes away,
 * its row left for the next owner (`suspend`, `detach`).
 */
export class LoopEnding {
  /** Why the loop failed, once it did. */
  private failure: Failure | undefined;
  /** The supervisor was told the loop ended. */
  private told = false;

  constructor(private readonly parts: EndingParts) {}

  /** Over: ended, suspended or detached; its row is final. */
  get over(): boolean {
    return this.parts.rows.closed;
  }

  /** The agent is gone and the loop over: its outcome from how it stopped. */
  finish(): void {
    this.end(this.parts.stopper.outcome());
  }

  /**
   * Ends the loop as `failed`, keeping its row: the message is the `failed` event and the
   * row's stop reason (what its dashboard row shows); `code` is the run's stop reason.
   */
  fail(message = RESTART_LIMIT_MESSAGE, code = ''): void {
    this.failure = { message, code };
    this.end('failed');
  }

  end(outcome: Outcome): void {
    const { deps, rows, timers, files, agent, governor, stopper } = this.parts;
    if (rows.closed) return;
    rows.closed = true;
    timers.clear();
    files.close();
    agent.session?.dispose();
    files.remove();
    const run = runOf(rows.row, {
      now: deps.clock.wall(), activeMs: governor.activeMs(), outcome,
      stopReason: (this.failure?.code || stopper.reason) ?? '', forced: stopper.forced, spend: governor.finalSpend(),
    });
    saveEnd({
      store: deps.store, busy: deps.busy, row: () => rows.row, patch: (p) => rows.patch(p), event: (kind, detail) => rows.event(kind, detail),
      retry: (ms, fn) => setTimeout(() => this.parts.enter('end', fn), ms),
      ended: (r) => {
        this.told = true;
        this.parts.ended(r);
      },
    }, run, this.failure);
  }

  /**
   * A loop that failed inside, its agent gone: it ends `failed` with `code`. Should that
   * throw too (its parts are what broke), the row is failed directly.
   */
  afterFailure(message: string, code: string): void {
    const { deps, rows } = this.parts;
    try {
      this.failure = { message, code };
      rows.closed = false; // an end that threw half-way is tried once more, whole
      this.end('failed');
      return;
    } catch { /* below */ }
    if (this.told) return; // recorded and told: what threw was a listener
    rows.closed = true;
    failDirectly(deps, rows.row, message, code, this.parts.ended);
  }

  /**
   * Stops the loop's timers and watcher without ending it (the process is going away).
   * An agent that can outlive us (tmux) is let go, to be re-attached by the next owner.
   */
  detach(): void {
    this.parts.timers.clear();
    this.parts.files.close();
    this.parts.agent.session?.detach?.();
  }

  /**
   * Leaves the loop for the next launch: timers and watcher stop, the agent is ended (a
   * pty agent cannot outlive its owner), and the row stays — `suspended`, which the next
   * owner resumes without counting a restart, or still `stopping`, which it finishes.
   * Nothing of this loop runs here afterwards.
   */
  suspend(): void {
    const { rows, timers, files, agent } = this.parts;
    if (rows.closed) return;
    timers.clear();
    files.close();
    const session = agent.release();
    const running = session !== undefined && !session.exited;
    rows.tx(() => {
      rows.patch({ status: rows.row.status === 'stopping' ? 'stopping' : 'suspended', agentPid: null, stallCount: 0, lastCaptureHash: '' });
      if (running) rows.event('agent_exit', { action: 'SIGKILL', why: 'autodeck is shutting down; the loop is suspended until the next launch' });
    });
    rows.closed = true;
    session?.dispose();
  }

  /**
   * The process goes away while a loop that failed inside stops its agent: the row stays
   * `stopping` (internal_error), for the next owner to fail.
   */
  leaveFailed(detach: boolean): void {
    this.parts.internal.cancel();
    const session = this.parts.agent.release();
    try {
      if (detach) session?.detach?.();
      else session?.dispose();
    } catch { /* going away */ }
  }
}
