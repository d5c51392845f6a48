import type { Store } from '../store/index.js';
import { isTransientWriteError } from '../store/db.js';
import { BOOKKEEPING_FIELDS, type LoopRow } from '../store/loops.js';
import type { EventKind } from '../store/events.js';

/** What a row writer needs of its loop's dependencies (LoopDeps). */
export interface RowWriterDeps {
  store: Store;
  record: (row: LoopRow, kind: EventKind, detail: Record<string, unknown>, opts?: { again?: boolean }) => void;
  changed: () => void;
  busy?: (err: unknown) => void;
}

type Recorded = [LoopRow, EventKind, Record<string, unknown>];

/**
 * One loop's row and how it reaches the database: this process sees a change at once;
 * the database gets it now (`patch`) or with the next flush (`patchLater`, the heartbeat's
 * counters). Nothing is lost when a write fails on a locked database or a full disk: the
 * fields go back to the next flush and the events of a failed transaction are recorded
 * again. Once the loop is `closed` its row is final; only a failure is still written.
 */
export class LoopRowWriter {
  closed = false;
  private readonly pending = new Set<keyof LoopRow>();
  /** What the open transaction wrote, to be kept should its commit fail. */
  private inTx: { writes: Partial<LoopRow>[]; events: Recorded[] } | undefined;

  constructor(public row: LoopRow, private readonly deps: RowWriterDeps) {}

  patch(patch: Partial<LoopRow>): void {
    this.row = { ...this.row, ...patch };
    if (!this.closed || patch.status === 'failed') {
      // Counters waiting for the next flush go along: the row is written whole or not at all.
      const write = { ...this.pendingFields(), ...patch };
      this.pending.clear();
      try {
        this.deps.store.loops.update(this.row.session, write);
        this.inTx?.writes.push(write);
      } catch (err) {
        // Another process holds the database, or the disk is full: keep the change for the next flush (no lost update).
        if (!isTransientWriteError(err)) throw err;
        this.requeue(write);
        this.deps.busy?.(err);
      }
    }
    this.deps.changed();
  }

  /**
   * Changes seen by this process at once but written at the next flush: the heartbeat's
   * counters move every beat, and one transaction for all loops costs far less than one each.
   */
  patchLater(patch: Partial<LoopRow>): void {
    this.row = { ...this.row, ...patch };
    const keys = Object.keys(patch) as (keyof LoopRow)[];
    for (const k of keys) this.pending.add(k);
    // A new screen hash alone (a working agent's every beat) is nothing anyone sees: no change to tell.
    if (keys.some((k) => !BOOKKEEPING_FIELDS.has(k))) this.deps.changed();
  }

  /**
   * One transaction of the loop's changes. When it cannot be committed (the database
   * locked, the disk full) nothing is lost: the row fields written inside go back to the
   * next flush, and the events recorded inside are recorded again (held until written).
   */
  tx(fn: () => void): void {
    if (this.inTx) return fn();
    const txn: { writes: Partial<LoopRow>[]; events: Recorded[] } = { writes: [], events: [] };
    this.inTx = txn;
    try {
      this.deps.store.tx(fn);
    } catch (err) {
      if (!isTransientWriteError(err)) throw err;
      for (const w of txn.writes) this.requeue(w);
      this.inTx = undefined;
      for (const [row, kind, detail] of txn.events) this.deps.record(row, kind, detail, { again: true });
      this.deps.busy?.(err);
    } finally {
      this.inTx = undefined;
    }
  }

  event(kind: EventKind, detail: Record<string, unknown>): void {
    this.inTx?.events.push([this.row, kind, detail]);
    this.deps.record(this.row, kind, detail);
  }

  /** Fields whose write failed: written again at the next flush (this.row holds their values). */
  requeue(write: Partial<LoopRow>): void {
    for (const k of Object.keys(write) as (keyof LoopRow)[]) this.pending.add(k);
  }

  get dirty(): boolean {
    return this.pending.size > 0;
  }

  /**
   * Writes the counters patched for later; the supervisor calls it inside one
   * transaction, and hands the write back (requeue) should that transaction fail.
   */
  flush(): Partial<LoopRow> | undefined {
    if (this.closed || this.pending.size === 0) return undefined;
    const write = this.pendingFields();
    this.pending.clear();
    try {
      this.deps.store.loops.update(this.row.session, write);
    } catch (err) {
      this.requeue(write);
      throw err;
    }
    return write;
  }

  private pendingFields(): Partial<LoopRow> {
    const out: Partial<Record<keyof LoopRow, unknown>> = {};
    for (const k of this.pending) out[k] = this.row[k];
    return out as Partial<LoopRow>;
  }
}
