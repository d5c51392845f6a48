import type Database from 'better-sqlite3';

/**
 * Every statement a connection runs, prepared once and kept as long as the connection.
 *
 * better-sqlite3 12 wraps each statement (and connection) in node::ObjectWrap. From Node
 * 24.19 that wrapper's destructor asserts that a JavaScript context is entered, and a
 * wrapper finalised by V8 outside JavaScript (an idle-time GC, the teardown after the last
 * callback) aborts the process: `Assertion failed: (env) != nullptr` in
 * RemoveEnvironmentCleanupHook (WiseLibs/better-sqlite3#1515, closed for 12.x; 13.x, on
 * Node-API, segfaults on Node 20). A statement that never becomes garbage is never
 * finalised that way; `db.pragma()` and a `prepare()` per call each made one.
 */
const cache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** The prepared statement for `sql` on `db`, made on first use. */
export function statement(db: Database.Database, sql: string): Database.Statement {
  let mine = cache.get(db);
  if (!mine) {
    mine = new Map();
    cache.set(db, mine);
  }
  let stmt = mine.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    mine.set(sql, stmt);
  }
  return stmt;
}

/** `PRAGMA text` (a read, or a setting): its first value, if it returns one. */
export function pragma(db: Database.Database, text: string): unknown {
  const stmt = statement(db, `PRAGMA ${text}`);
  if (!stmt.reader) {
    stmt.run();
    return undefined;
  }
  const row = stmt.raw(true).get() as unknown[] | undefined;
  return row?.[0];
}
