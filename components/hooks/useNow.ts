import { useEffect, useReducer } from 'react';

/**
 * The time of this render, and a render again `intervalMs` after it. Any render counts
 * as a tick: when a signal has just redrawn the table, the clock waits a full interval
 * from there instead of drawing another frame a moment later. So elapsed cells move each
 * second, never lag by a second or more, and a busy table costs one frame a second, not two.
 */
export function useNow(intervalMs = 1000, active = true): number {
  const [, tick] = useReducer((n: number) => n + 1, 0);
  const now = Date.now();
  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(tick, intervalMs);
    return () => clearTimeout(timer);
  });
  return now;
}
