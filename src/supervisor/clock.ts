import type { LoopRow } from '../store/loops.js';

/**
 * Two clocks, so that a wall clock that jumps moves nothing it should not. `wall` is the time of day: what is stored
 * (crosses processes: started_at, leases, event times) and what an agent names (a quota
 * "resets at 3pm"). `mono` only goes forward at the rate of real time and means nothing
 * across processes: every duration measured inside one (a loop's timeout, the time since
 * progress, a quota wait, a lease refresh interval) is reckoned on it, so a wall clock
 * set forward or back by an hour neither ends a loop early nor keeps it running late.
 */
export interface Clock {
  wall(): number;
  mono(): number;
}

export const systemClock: Clock = { wall: () => Date.now(), mono: () => performance.now() };

/** Where a loop's active time was anchored in this process (see activeMsNow). */
export interface ActiveAnchor {
  /** `mono()` when this process took the loop. */
  monoStart: number;
  /** Active time before that (an adopted loop's previous owners), from the stored wall times. */
  baseMs: number;
  /** The row's quotaWaitMs then: waits ended later are this process's own. */
  quotaBaseMs: number;
}

/**
 * Anchors a loop's active time when this process starts or adopts it. Time spent before
 * comes from the stored start (the one wall reading, taken once), less the quota waits
 * that ended; a quota wait still under way is counted by the watchdog from its own start.
 */
export function anchorActive(row: Pick<LoopRow, 'startedAt' | 'quotaWaitMs'>, clock: Clock): ActiveAnchor {
  const started = Date.parse(row.startedAt);
  const before = Number.isFinite(started) ? clock.wall() - started - row.quotaWaitMs : 0;
  return { monoStart: clock.mono(), baseMs: Math.max(0, before), quotaBaseMs: row.quotaWaitMs };
}

/**
 * Active time now, on the monotonic clock: the anchor's base plus time since the anchor,
 * less the quota waits ended since and the one under way (`waitingMs`).
 */
export function activeMsNow(anchor: ActiveAnchor, row: Pick<LoopRow, 'quotaWaitMs'>, mono: number, waitingMs = 0): number {
  const ended = Math.max(0, row.quotaWaitMs - anchor.quotaBaseMs);
  return Math.max(0, anchor.baseMs + (mono - anchor.monoStart) - ended - Math.max(0, waitingMs));
}

/** The monotonic reading of a stored wall time, as seen now (for a wait begun by an earlier owner). */
export function monoOfWall(wallMs: number, clock: Clock): number {
  return clock.mono() - Math.max(0, clock.wall() - wallMs);
}
