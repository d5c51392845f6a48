import Database from 'better-sqlite3';
import { isTransientWriteError } from '../store/db.js';
import type { EventKind, LoopEvent } from '../store/events.js';
import type { Store } from '../store/index.js';
import type { LoopRow } from '../store/loops.js';
import type { Clock } from './clock.js';
import { HeldWrites } from './heldWrites.js';
import { boundedDetail } from '../format/bounded.js';
import { describeError } from './loopFailure.js';

/**
 * The supervisor's event log: each event written to the database and told to the
 * listeners. What a locked database or a full disk holds back is kept (`held`) and
 * written in order when it takes writes again.
 */
export class EventRecorder {
  readonly held: HeldWrites;

  constructor(private readonly store: Store, private readonly clock: Clock, private readonly tell: (event: LoopEvent) => void) {
    this.held = new HeldWrites(store, clock);
  }

  /** Writes an event and tells the listeners; `again`: a rolled-back one, written again, already told. */
  record(row: Pick<LoopRow, 'session' | 'taskDir' | 'taskName'>, kind: EventKind, detail: Record<string, unknown>, opts: { again?: boolean } = {}): void {
    // Details carry what agents wrote (hook payloads, screen text): bounded before anyone keeps or sends them.
    const event: LoopEvent = { at: new Date(this.clock.wall()).toISOString(), session: row.session, taskDir: row.taskDir, taskName: row.taskName, kind, detail: boundedDetail(detail) };
    try {
      // Behind events a lock held back, an event waits its turn: the log keeps its order.
      if (this.held.waiting) throw new Database.SqliteError('events are waiting to be written', 'SQLITE_BUSY');
      const { id, repeats } = this.store.events.record(event);
      event.id = id;
      if (repeats > 1) event.repeats = repeats;
    } catch (err) {
      if (isTransientWriteError(err)) {
        // Kept, and written at the first tick the database takes writes again.
        this.held.hold(event);
        this.noteBusy(err);
      } else {
        // The log must never take a loop down; the listeners still hear of it.
        event.detail = { ...event.detail, logError: (err as Error).message };
      }
    }
    if (!opts.again) this.listen(() => this.tell(event));
  }

  /**
   * Runs a listener of the supervisor (the dashboard, a client, a notifier): what it throws
   * is its own, recorded in the log, never the loop's whose change it heard.
   */
  listen(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      const { message, stack } = describeError(err);
      try {
        this.store.events.record({ at: new Date(this.clock.wall()).toISOString(), session: '', taskDir: '', kind: 'internal_error', detail: { where: 'event listener', message, stack } });
      } catch { /* the log takes no write: nothing more to do */ }
    }
  }

  /** A write failed for now (locked, or the disk full): said once, kept for later. */
  noteBusy(err: unknown): void {
    const message = this.held.failed(err);
    if (message) this.listen(() => this.tell(message));
  }
}
