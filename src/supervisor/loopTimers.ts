import { dueOnTick, nextDue, TICK_MS } from './tick.js';
import type { LoopEntry } from './loopBoundary.js';

/**
 * A loop's timers: one-shot timers and its heartbeat, all cleared at once when the loop
 * ends or is let go. Each callback comes into the loop through its boundary.
 */
export class LoopTimers {
  private readonly timers = new Set<NodeJS.Timeout>();
  /** A heartbeat shorter than a tick has its own timer; longer ones come with the tick. */
  private heartbeat: NodeJS.Timeout | undefined;
  /** With the tick: the heartbeat's period, and when the next one is due (monotonic); 0 when it has its own timer. */
  private beatEveryMs = 0;
  private nextBeatAt = 0;

  constructor(private readonly enter: LoopEntry) {}

  later(ms: number, fn: () => void, where = 'timer'): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.enter(where, fn);
    }, ms);
    this.timers.add(t);
  }

  /**
   * Beats every `everyMs` from `now` (monotonic). Twenty loops' own timers were twenty
   * wake-ups per period: one of a tick or longer rides the tick (see beatDue).
   */
  startBeat(everyMs: number, now: number, beat: () => void): void {
    if (everyMs >= TICK_MS) {
      this.beatEveryMs = everyMs;
      this.nextBeatAt = now + everyMs;
    } else {
      this.heartbeat = setInterval(() => this.enter('heartbeat', beat), everyMs);
    }
  }

  /** At a tick: whether the heartbeat that rides the tick is due now (and then when it is next). */
  beatDue(mono: () => number): boolean {
    if (this.beatEveryMs <= 0) return false;
    const now = mono();
    if (!dueOnTick(now, this.nextBeatAt)) return false;
    this.nextBeatAt = nextDue(now, this.nextBeatAt, this.beatEveryMs);
    return true;
  }

  clear(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.beatEveryMs = 0;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
