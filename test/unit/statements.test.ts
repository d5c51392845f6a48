import { afterEach, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, withBusyTimeout, type Db } from '../../src/store/db.js';
import { pragma, statement } from '../../src/store/statements.js';

// Statements outlive their callers (better-sqlite3 12 on Node 24.19+ aborts when V8
// finalises one outside JavaScript): one per SQL text and connection, made once.

let dir: string | undefined;
let db: Db | undefined;
afterEach(() => {
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  db = dir = undefined;
});

function open(): Db {
  dir = mkdtempSync(join(tmpdir(), 'autodeck-stmt-'));
  db = openDb(join(dir, 'state.db'));
  return db;
}

it('prepares each SQL text once per connection', () => {
  const d = open();
  const a = statement(d, 'SELECT count(*) FROM task_auto');
  expect(statement(d, 'SELECT count(*) FROM task_auto')).toBe(a);
  expect(statement(d, 'SELECT 1')).not.toBe(a);
  expect(pragma(d, 'journal_mode')).toBe('wal');
  expect(statement(d, 'PRAGMA journal_mode')).toBe(statement(d, 'PRAGMA journal_mode'));
});

it('reads and sets pragmas, and withBusyTimeout puts the old timeout back', () => {
  const d = open();
  expect(pragma(d, 'foreign_keys')).toBe(1);
  expect(pragma(d, 'synchronous')).toBe(1); // NORMAL
  expect(pragma(d, 'user_version')).toBeGreaterThan(0);
  expect(withBusyTimeout(d, 123, () => pragma(d, 'busy_timeout'))).toBe(123);
  expect(pragma(d, 'busy_timeout')).toBe(5000);
  const before = pragma(d, 'data_version');
  expect(typeof before).toBe('number');
});
