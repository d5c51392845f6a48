import type { Db } from './db.js';

/** How big the event log may grow. */
export interface EventBounds {
  /** Rows kept at most (the newest). */
  maxRows: number;
  /** Events older than this are dropped. */
  retentionMs: number;
  /** Prune after this many inserts by this connection ... */
  pruneEvery: number;
  /** ... or at the first insert once this long has passed since the last prune (monotonic). */
  pruneIntervalMs: number;
  /** At most this many rows are deleted by one prune, so that no insert ever waits long. */
  chunk: number;
  /** Wall clock for the retention cut (event times are wall-clock ISO strings). */
  now: () => number;
  /** Monotonic clock for "how long since the last prune". */
  monotonic: () => number;
}

export const DEFAULT_EVENT_BOUNDS: EventBounds = {
  maxRows: 200_000,
  retentionMs: 30 * 24 * 3600_000,
  pruneEvery: 1000,
  pruneIntervalMs: 60_000,
  chunk: 10_000,
  now: Date.now,
  monotonic: () => performance.now(),
};

/**
 * Keeps the `events` table inside its bounds. Cheap by design: it runs every so many
 * inserts, works on rowid ranges only (ids grow with time), deletes a bounded chunk,
 * and counts what it dropped in `events_pruned` so that `autodeck log` can say so.
 */
export class EventPruner {
  private readonly bounds: EventBounds;
  private inserts = 0;
  private lastPruneAt: number;
  private readonly range;
  private readonly firstRecent;
  private readonly newestBefore;
  private readonly del;
  private readonly count;

  constructor(private readonly db: Db, bounds: Partial<EventBounds> = {}) {
    this.bounds = { ...DEFAULT_EVENT_BOUNDS, ...bounds };
    this.lastPruneAt = this.bounds.monotonic();
    this.range = db.prepare('SELECT min(id) AS lo, max(id) AS hi FROM events');
    // Scans from the oldest row forward, at most one chunk of rows.
    this.firstRecent = db.prepare('SELECT id FROM events WHERE id >= ? AND id < ? AND at >= ? ORDER BY id LIMIT 1');
    this.newestBefore = db.prepare('SELECT at FROM events WHERE id < ? ORDER BY id DESC LIMIT 1');
    this.del = db.prepare('DELETE FROM events WHERE id < ?');
    this.count = db.prepare(`INSERT INTO events_pruned (id, rows, newest_dropped_at, pruned_at) VALUES (1, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET rows = rows + excluded.rows, newest_dropped_at = excluded.newest_dropped_at, pruned_at = excluded.pruned_at`);
  }

  afterInsert(): void {
    this.inserts++;
    const due = this.inserts >= this.bounds.pruneEvery || this.bounds.monotonic() - this.lastPruneAt >= this.bounds.pruneIntervalMs;
    if (!due) return;
    try {
      this.prune();
    } catch {
      // Pruning is housekeeping: a busy database now means another try later, never a lost event.
    }
  }

  /** Deletes at most one chunk of rows beyond the bounds; returns how many. */
  prune(): number {
    this.inserts = 0;
    this.lastPruneAt = this.bounds.monotonic();
    return this.db.transaction(() => {
      const { lo, hi } = this.range.get() as { lo: number | null; hi: number | null };
      if (lo === null || hi === null) return 0;
      const cutoff = new Date(this.bounds.now() - this.bounds.retentionMs).toISOString();
      const limit = lo + this.bounds.chunk;
      // Everything below `keepFrom` goes: beyond the row budget, or older than the cutoff.
      let keepFrom = Math.max(lo, hi - this.bounds.maxRows + 1);
      const recent = this.firstRecent.get(lo, limit, cutoff) as { id: number } | undefined;
      keepFrom = Math.max(keepFrom, recent ? recent.id : limit);
      keepFrom = Math.min(keepFrom, limit);
      if (keepFrom <= lo) return 0;
      const newest = (this.newestBefore.get(keepFrom) as { at: string } | undefined)?.at ?? null;
      const dropped = this.del.run(keepFrom).changes;
      if (dropped > 0) this.count.run(dropped, newest, new Date(this.bounds.now()).toISOString());
      return dropped;
    }).immediate();
  }
}
