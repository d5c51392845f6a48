/**
 * How often the cheap per-loop checks run (limits, missed file events, owner lease,
 * heartbeats): the process's one pulse, which the clocks' second rides too. It was 500 ms;
 * every wake-up at rest costs more than its work (cold caches), and nothing on it needs
 * less than a second (docs/performance.md).
 */
export const TICK_MS = 1000;

/** The ticks in `ms` (at least one): a period kept in time, whatever TICK_MS is. */
export function ticksIn(ms: number): number {
  return Math.max(1, Math.round(ms / TICK_MS));
}

/**
 * Whether a periodic job due at `dueAt` runs at a tick at `now`: within half a tick of
 * its time, so a tick a hair early does not put it off by a whole tick.
 */
export function dueOnTick(now: number, dueAt: number): boolean {
  return now >= dueAt - TICK_MS / 2;
}

/** When a periodic job that just ran at `now` is due next: on its own beat, or a period from now after a pause. */
export function nextDue(now: number, dueAt: number, everyMs: number): number {
  const next = dueAt + everyMs;
  return next < now ? now + everyMs : next;
}

/** What emits a 'tick' event every TICK_MS (the supervisor). */
export interface TickSource {
  on(event: 'tick', listener: () => void): unknown;
  off(event: 'tick', listener: () => void): unknown;
}

/** Calls `listener` at every `n`-th tick of `source`; returns what stops it. */
export function everyNthTick(source: TickSource, n: number, listener: () => void): () => void {
  let count = 0;
  const onTick = (): void => {
    if (++count % n === 0) listener();
  };
  source.on('tick', onTick);
  return () => source.off('tick', onTick);
}
