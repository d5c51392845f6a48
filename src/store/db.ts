import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS } from './migrations.js';
import { pragma } from './statements.js';

export type Db = Database.Database;

/** Several autodeck processes share one file; a writer may hold the lock for a moment. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating when needed) the state database and migrates it forward. What it throws
 * carries the path (dbPathOf), so the one line that reports it can name the file.
 */
export function openDb(path: string): Db {
  let db: Db | undefined;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    pragma(db, `busy_timeout = ${BUSY_TIMEOUT_MS}`);
    retryBusy(() => pragma(db!, 'journal_mode = WAL'), BUSY_TIMEOUT_MS);
    // WAL + NORMAL: durable across a process crash, one fsync per checkpoint instead of per commit.
    pragma(db, 'synchronous = NORMAL');
    pragma(db, 'foreign_keys = ON');
    migrate(db);
    return db;
  } catch (err) {
    db?.close();
    throw withDbPath(err, path);
  }
}

const DB_PATH = Symbol('autodeck.dbPath');

/** `err` marked as an error of the database at `path` (unless it names one already). */
export function withDbPath(err: unknown, path: string): unknown {
  if (err instanceof Error && !(DB_PATH in err)) Object.defineProperty(err, DB_PATH, { value: path });
  return err;
}

/** The database an error came from, when it was marked. */
export function dbPathOf(err: unknown): string | undefined {
  return err instanceof Error && DB_PATH in err ? String((err as unknown as Record<symbol, unknown>)[DB_PATH]) : undefined;
}

/**
 * Switching a fresh file to WAL reads its header, then upgrades to a write lock; SQLite's
 * busy handler does not cover that upgrade, so two processes opening a new database at
 * once can get SQLITE_BUSY at once. Such a step is tried again until `timeoutMs` is spent.
 */
export function retryBusy<T>(step: () => T, timeoutMs: number, sleep: (ms: number) => void = sleepSync): T {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return step();
    } catch (err) {
      if (!isBusyError(err) || performance.now() >= deadline) throw err;
      sleep(10);
    }
  }
}

/** Opening the database is synchronous (every command waits for it), so is its wait. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function migrate(db: Db): void {
  const current = pragma(db, 'user_version') as number;
  if (current > MIGRATIONS.length) {
    throw new Error(`the database was written by a newer autodeck (schema ${current}, this one knows ${MIGRATIONS.length})`);
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    // IMMEDIATE: two processes opening a fresh file at once must not both migrate.
    db.transaction(() => {
      const now = pragma(db, 'user_version') as number;
      if (now !== v) return; // another process got there first
      db.exec(MIGRATIONS[v]!);
      pragma(db, `user_version = ${v + 1}`);
    }).immediate();
  }
}

/** SQLite's error for a UNIQUE / PRIMARY KEY violation: two starts of one loop. */
export function isConstraintError(err: unknown): boolean {
  return err instanceof Database.SqliteError && err.code.startsWith('SQLITE_CONSTRAINT');
}

export function isBusyError(err: unknown): boolean {
  return err instanceof Database.SqliteError && (err.code === 'SQLITE_BUSY' || err.code.startsWith('SQLITE_BUSY_') || err.code === 'SQLITE_LOCKED');
}

/** Runs `fn` with another busy timeout on this connection, then puts the old one back. */
export function withBusyTimeout<T>(db: Db, ms: number, fn: () => T): T {
  const before = pragma(db, 'busy_timeout') as number;
  if (before === ms) return fn();
  pragma(db, `busy_timeout = ${ms}`);
  try {
    return fn();
  } finally {
    pragma(db, `busy_timeout = ${before}`);
  }
}

/**
 * A write that may work later: the database locked by another process, or the disk full
 * (SQLite rolls the transaction back). Callers keep the change and try again.
 */
export function isTransientWriteError(err: unknown): boolean {
  return isBusyError(err) || isDiskFullError(err);
}

export function isDiskFullError(err: unknown): boolean {
  return err instanceof Database.SqliteError && (err.code === 'SQLITE_FULL' || err.code.startsWith('SQLITE_IOERR'));
}
