import type { Store } from '../store/index.js';
import { isTransientWriteError } from '../store/db.js';
import type { EventKind } from '../store/events.js';
import type { LoopRow } from '../store/loops.js';
import type { Outcome, RunRow } from '../store/runs.js';

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
