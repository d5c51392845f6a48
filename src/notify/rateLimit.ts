import type { Notification } from './decide.js';

/** The same loop and topic are not notified twice within this long. */
export const NOTIFY_WINDOW_MS = 30_000;

export type SentAt = ReadonlyMap<string, number>;

const keyOf = (n: Pick<Notification, 'loop' | 'topic'>): string => `${n.topic}\0${n.loop}`;

/**
 * Whether a notification may go out at `now`, given when each loop+topic was last
 * notified; returns the updated record. Pure. A suppressed one does not restart the
 * window (a steady drizzle still gets through once per window), and entries older than
 * the window are dropped so the record stays small.
 */
export function admit(
  sent: SentAt, n: Pick<Notification, 'loop' | 'topic'>, now: number, windowMs = NOTIFY_WINDOW_MS,
): { send: boolean; sent: SentAt } {
  const key = keyOf(n);
  const last = sent.get(key);
  if (last !== undefined && now - last < windowMs && now >= last) return { send: false, sent };
  const next = new Map<string, number>();
  for (const [k, at] of sent) if (now - at < windowMs && now >= at) next.set(k, at);
  next.set(key, now);
  return { send: true, sent: next };
}
