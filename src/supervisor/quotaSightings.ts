import type { Classification } from '../agents/classify.js';

/** How many distinct quota messages are remembered (a loop sees very few). */
const KEEP = 32;
/** A message out of sight this long is a new one when it shows again (the same limit hit another day). */
const FORGET_MS = 30 * 60_000;

/**
 * When each quota message was first seen on the screen (wall clock): its clock time
 * (`try again at 9:28 PM`) is the next such time after that moment, not after the moment a
 * later beat reads it again, so a message still on screen after its time has passed never
 * turns into tomorrow's. Keyed by the message's line and reset clause.
 */
export class QuotaSightings {
  private readonly sightings = new Map<string, { first: number; last: number; waited?: boolean }>();

  seen(c: Pick<Classification, 'quotaLine' | 'quotaReset'>, wall: number): number {
    const key = keyOf(c);
    const s = this.sightings.get(key);
    if (s && wall - s.last < FORGET_MS) {
      s.last = wall;
      return s.first;
    }
    this.sightings.delete(key);
    this.sightings.set(key, { first: wall, last: wall });
    if (this.sightings.size > KEEP) this.sightings.delete(this.sightings.keys().next().value!);
    return wall;
  }

  /** A wait on this message ran to its reset: the message is history from now on. */
  waitedOut(c: Pick<Classification, 'quotaLine' | 'quotaReset'>): void {
    const s = this.sightings.get(keyOf(c));
    if (s) s.waited = true;
  }

  /** Whether a wait on this message already ran to its reset (the agent has not taken the continuation yet). */
  wasWaitedOut(c: Pick<Classification, 'quotaLine' | 'quotaReset'>): boolean {
    return this.sightings.get(keyOf(c))?.waited === true;
  }
}

const keyOf = (c: Pick<Classification, 'quotaLine' | 'quotaReset'>): string => `${c.quotaLine ?? ''}\n${c.quotaReset ?? ''}`;
