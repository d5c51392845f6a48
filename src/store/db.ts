import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS } from './migrations.js';
import { pragma } from './statements.js';

export type Db = Database.Database;

/** Several autodeck processes share one file; a writer may hold the lock for a moment. */
export const BUSY_TIMEOUT_MS = 5000;

/** Opens (creating when needed) the state database and migrates it forward. */
export function openDb(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  pragma(db, `busy_timeout = ${BUSY_TIMEOUT_MS}`);
  pragma(db, 'journal_mode = WAL');
  // WAL + NORMAL: durable across a process crash, one fsync per checkpoint instead of per commit.
  pragma(db, 'synchronous = NORMAL');
  pragma(db, 'foreign_keys = ON');
  migrate(db);
  return db;
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
