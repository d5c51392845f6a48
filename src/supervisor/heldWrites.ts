import { BUSY_TIMEOUT_MS, isDiskFullError } from '../store/db.js';
import type { LoopEvent } from '../store/events.js';
import type { Store } from '../store/index.js';
import type { Clock } from './clock.js';
import { pragma } from '../store/statements.js';

/** Events kept in memory while the database takes no writes, at most. */
export const MAX_HELD_EVENTS = 10_000;

/**
 * What the supervisor could not write yet: the database locked by another process, or
 * the disk full. Events are held in order and written at the first tick that can; the
 * trouble is said once (a lock once it outlasts the busy timeout, a full disk at once),
 * and once more when writes work again.
 */
export class HeldWrites {
  private readonly events: LoopEvent[] = [];
  private dropped = 0;
  private since: number | undefined;
  private reported = false;

  /** How long the trouble lasted is measured on the monotonic clock; the message's time is the wall's. */
  constructor(private readonly store: Store, private readonly clock: Clock) {}

  /** Whether writes are failing (since the last failure, until one tick wrote fine). */
  get failing(): boolean {
    return this.since !== undefined;
  }

  /** Whether events wait: a new one must queue behind them, for the log keeps its order. */
  get waiting(): boolean {
    return this.events.length > 0;
  }

  hold(event: LoopEvent): void {
    this.events.push(event);
    if (this.events.length > MAX_HELD_EVENTS) {
      this.events.shift();
      this.dropped++;
    }
  }

  /** A write failed for now. Returns the message to tell the listeners, once. */
  failed(err: unknown): LoopEvent | undefined {
    const now = this.clock.mono();
    this.since ??= now;
    const full = isDiskFullError(err);
    if (this.reported || (!full && now - this.since < BUSY_TIMEOUT_MS)) return undefined;
    this.reported = true;
    const what = full ? `the disk holding the state database is full (${(err as { code?: string }).code})`
      : `the state database is locked by another process (for ${Math.round((now - this.since) / 1000)} s)`;
    return {
      at: new Date(this.clock.wall()).toISOString(), session: '', taskDir: '', kind: 'error',
      detail: { where: 'database', message: `${what}; the loops go on, their changes are kept and written when it takes writes again` },
    };
  }

  /**
   * Writes the held events. While writes are failing, first one real, harmless write
   * (the same schema version): it needs the write lock and a page of disk, and throws
   * while either is missing, even with no event to write.
   */
  save(): void {
    if (this.since !== undefined) {
      const version = pragma(this.store.db, 'user_version') as number;
      pragma(this.store.db, `user_version = ${version}`);
    }
    if (this.events.length === 0) return;
    this.store.tx(() => {
      for (const e of this.events) this.store.events.record(e);
    });
    this.events.length = 0;
  }

  /** A tick wrote fine: the detail of the "writes work again" event, when the trouble was said. */
  recovered(): Record<string, unknown> | undefined {
    if (this.since === undefined) return undefined;
    const seconds = Math.round((this.clock.mono() - this.since) / 1000);
    const { reported, dropped } = this;
    this.since = undefined;
    this.reported = false;
    this.dropped = 0;
    if (!reported) return undefined;
    return {
      where: 'database',
      message: `the state database takes writes again after about ${seconds} s; every change was written${dropped ? ` except ${dropped} events (over ${MAX_HELD_EVENTS} held)` : ''}`,
    };
  }
}
