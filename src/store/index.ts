import type Database from 'better-sqlite3';
import { openDb, type Db } from './db.js';
import { pragma } from './statements.js';
import { LoopStore } from './loops.js';
import { RunStore } from './runs.js';
import { EventStore } from './events.js';
import { AgentStateStore } from './agentState.js';
import { HookProgressStore } from './hookProgress.js';
import { IterationSpendStore } from './iterationSpend.js';
import { VerifyStore } from './verifies.js';

/** The tables behind one open connection. */
export class Store {
  readonly loops: LoopStore;
  readonly runs: RunStore;
  readonly events: EventStore;
  readonly agentState: AgentStateStore;
  readonly hookProgress: HookProgressStore;
  readonly iterations: IterationSpendStore;
  readonly verifies: VerifyStore;
  /** Runs a function in a transaction; one for every tx (better-sqlite3 builds five wrappers per transaction() call). */
  private readonly transactionOf: Database.Transaction<(fn: () => unknown) => unknown>;

  constructor(readonly db: Db) {
    this.transactionOf = db.transaction((fn: () => unknown) => fn());
    this.loops = new LoopStore(db);
    this.runs = new RunStore(db);
    this.events = new EventStore(db);
    this.agentState = new AgentStateStore(db);
    this.hookProgress = new HookProgressStore(db);
    this.iterations = new IterationSpendStore(db);
    this.verifies = new VerifyStore(db);
  }

  static open(path: string): Store {
    return new Store(openDb(path));
  }

  /**
   * A number that changes when another connection (another autodeck, a CLI command)
   * commits; this connection's own writes leave it alone. Polling it costs no table read.
   */
  dataVersion(): number {
    return pragma(this.db, 'data_version') as number;
  }

  /**
   * Runs `fn` in one transaction: a batch of updates costs one commit.
   *
   * 'deferred' runs `fn` even while another process holds the write lock (its writes then
   * throw): the supervisor's loops rely on that, keeping in memory what `fn` changed and
   * writing it later. 'immediate' takes the write lock first, waiting up to the busy
   * timeout: a deferred transaction that reads before it writes gets SQLITE_BUSY at once
   * when another process writes, because SQLite never waits to upgrade a read to a write.
   */
  tx<T>(fn: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
    let done = false;
    let result: T | undefined;
    try {
      return this.transactionOf[mode](() => {
        result = fn();
        done = true;
        return result;
      }) as T;
    } catch (err) {
      // A write inside failed with a full disk, was handled there (kept for later), and
      // SQLite rolled the transaction back by itself: nothing is left to commit.
      if (done && !this.db.inTransaction && /no transaction is active/.test(String(err))) return result as T;
      throw err;
    }
  }

  close(): void {
    try {
      this.db.close();
    } catch { /* already closed */ }
  }
}
