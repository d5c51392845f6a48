import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Store } from '../../src/store/index.js';
import { isBusyError } from '../../src/store/db.js';
import type { LoopEvent } from '../../src/store/events.js';
import { HeldWrites } from '../../src/supervisor/heldWrites.js';

const ev = (i: number): LoopEvent => ({ at: `2026-11-23T10:00:0${i}.000Z`, session: 's', taskDir: '/t/a', kind: 'signal', detail: { iteration: i } });

describe('writes held while another process locks the database', () => {
  it('holds events in order, says so once past the busy timeout, writes them all once free', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'autodeck-held-')), 'state.db');
    const store = Store.open(path);
    store.db.pragma('busy_timeout = 0');
    let now = 0;
    const held = new HeldWrites(store, { wall: () => now, mono: () => now });
    const other = new Database(path);
    other.exec('BEGIN EXCLUSIVE');
    other.exec("INSERT INTO events (at, kind) VALUES ('x', 'error')");

    let err: unknown;
    try {
      store.events.insert(ev(1));
    } catch (e) {
      err = e;
    }
    expect(isBusyError(err)).toBe(true);
    held.hold(ev(1));
    held.hold(ev(2));
    expect(held.failed(err)).toBeUndefined(); // a short lock is not worth a word
    now = 4_999;
    expect(held.failed(err)).toBeUndefined();
    now = 5_000;
    expect(held.failed(err)?.detail.message).toMatch(/locked by another process \(for 5 s\)/);
    expect(held.failed(err)).toBeUndefined(); // said once
    expect(() => held.save()).toThrow(); // still locked: nothing is written, nothing dropped
    expect(held.waiting).toBe(true);

    other.exec('ROLLBACK');
    held.save();
    expect(held.waiting).toBe(false);
    expect(store.events.list(10).map((e) => e.detail.iteration)).toEqual([1, 2]);
    now = 9_000;
    expect(held.recovered()?.message).toMatch(/takes writes again after about 9 s; every change was written/);
    expect(held.failing).toBe(false);
    expect(held.recovered()).toBeUndefined();
    other.close();
    store.close();
  });

  it('a full disk is said at once', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'autodeck-held-')), 'state.db');
    const store = Store.open(path);
    const held = new HeldWrites(store, { wall: () => 0, mono: () => 0 });
    const full = new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
    expect(held.failed(full)?.detail.message).toMatch(/the disk holding the state database is full \(SQLITE_FULL\)/);
    store.close();
  });
});
