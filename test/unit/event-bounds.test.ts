import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { Store } from '../../src/store/index.js';
import { openDb } from '../../src/store/db.js';
import { pragma, statement } from '../../src/store/statements.js';
import { EventStore, type LoopEvent } from '../../src/store/events.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { formatEvent } from '../../src/format/event.js';
import { log } from '../../src/commands/log.js';
import type { CommandContext } from '../../src/commands/context.js';

const dbPath = (): string => join(mkdtempSync(join(tmpdir(), 'autodeck-events-')), 'state.db');
const invalid = (reason: string, taskDir = '/t/a', at = '2026-11-22T05:00:00.000Z'): LoopEvent =>
  ({ at, session: 's', taskDir, kind: 'signal_invalid', detail: { reason } });
const rows = (db: Database.Database): number => (statement(db, 'SELECT count(*) AS n FROM events').get() as { n: number }).n;
/**
 * Every connection and store of this file stays reachable until the worker ends, with its
 * statements: on Node >= 24.19 a better-sqlite3 12 wrapper finalised by an idle-time GC
 * aborts the process (src/store/statements.ts), which took this file's worker down in
 * about half the runs under `npm run test:node24`.
 */
const kept: unknown[] = [];
const keep = <T>(x: T): T => {
  kept.push(x);
  return x;
};
const open = (path: string): Database.Database => keep(openDb(path));

describe('the event log stays bounded', () => {
  it('an agent rewriting the same bad signal adds one row with a count, not thousands', () => {
    const db = open(dbPath());
    const events = keep(new EventStore(db));
    for (let i = 0; i < 5000; i++) events.insert(invalid('not JSON', '/t/a', `2026-11-22T05:00:${String(i % 60).padStart(2, '0')}.000Z`));
    expect(rows(db)).toBe(1);
    const [e] = events.list(10);
    expect(e).toMatchObject({ kind: 'signal_invalid', repeats: 5000, detail: { reason: 'not JSON' } });
    expect(formatEvent(e!)).toContain('(5000 times in a row');
  });

  it('coalesces only the same reason, in a row, for the same module', () => {
    const db = open(dbPath());
    const events = keep(new EventStore(db));
    events.insert(invalid('not JSON'));
    events.insert(invalid('not JSON', '/t/b')); // another module in between does not break /t/a's run
    expect(events.record(invalid('not JSON')).repeats).toBe(2);
    expect(events.record(invalid('a symlink')).repeats).toBe(1);
    events.insert({ ...invalid(''), kind: 'signal', detail: { iteration: 1 } });
    expect(events.record(invalid('a symlink')).repeats).toBe(1); // a valid signal in between ends the run
    expect(events.list(10, '/t/a').map((e) => [e.kind, e.repeats ?? 1])).toEqual([
      ['signal_invalid', 2], ['signal_invalid', 1], ['signal', 1], ['signal_invalid', 1],
    ]);
    // Other kinds are never merged: every stall or restart is its own line.
    for (let i = 0; i < 3; i++) events.insert({ ...invalid(''), kind: 'stall', detail: { kind: 'x' } });
    expect(events.list(3, '/t/a').map((e) => e.kind)).toEqual(['stall', 'stall', 'stall']);
  });

  it('a row budget: alternating bad signals cannot grow the table past it, and the drop is counted', () => {
    const db = open(dbPath());
    const events = keep(new EventStore(db, { maxRows: 500, pruneEvery: 100, chunk: 1000 }));
    for (let i = 0; i < 5000; i++) events.insert(invalid(i % 2 ? 'not JSON' : 'a symlink', '/t/a', new Date().toISOString()));
    expect(rows(db)).toBeLessThanOrEqual(600);
    expect(rows(db)).toBeGreaterThanOrEqual(500);
    const pruned = events.prunedSummary();
    expect(pruned.rows + rows(db)).toBe(5000);
    // The newest events are the ones kept.
    const ids = (statement(db, 'SELECT id FROM events ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    expect(ids.at(-1)).toBe(5000);
  });

  it('a retention window: events older than it go, newer ones stay; one prune deletes at most a chunk', () => {
    const db = open(dbPath());
    const now = Date.parse('2026-11-22T12:00:00Z');
    const events = keep(new EventStore(db, { retentionMs: 3600_000, pruneEvery: 1_000_000, pruneIntervalMs: 1e12, chunk: 100, now: () => now }));
    for (let i = 0; i < 250; i++) events.insert({ ...invalid(''), kind: 'signal', detail: { i }, at: '2026-11-22T09:00:00.000Z' });
    for (let i = 0; i < 10; i++) events.insert({ ...invalid(''), kind: 'signal', detail: { i }, at: '2026-11-22T11:30:00.000Z' });
    expect(events.prune()).toBe(100);
    expect(events.prune()).toBe(100);
    expect(events.prune()).toBe(50);
    expect(events.prune()).toBe(0);
    expect(rows(db)).toBe(10);
    expect(events.prunedSummary()).toEqual({ rows: 250, newestDroppedAt: '2026-11-22T09:00:00.000Z' });
  });

  it('autodeck log says what was dropped, on stderr (stdout stays one event per line)', () => {
    const path = dbPath();
    const db = open(path);
    const events = keep(new EventStore(db, { maxRows: 10, pruneEvery: 5 }));
    for (let i = 0; i < 40; i++) events.insert({ ...invalid(''), kind: 'signal', detail: { iteration: i }, at: new Date().toISOString() });
    db.close();
    let out = '';
    let err = '';
    const sink = (f: (s: string) => void) => new Writable({ write(c, _e, cb) { f(String(c)); cb(); } });
    const ctx = { args: [], flags: { json: true }, settings: { db: path }, stdout: sink((s) => { out += s; }), stderr: sink((s) => { err += s; }), cwd: '/' };
    expect(log(ctx as unknown as CommandContext)).toBe(0);
    expect(err).toMatch(/^autodeck log: 3\d older events were dropped to keep the log bounded/);
    for (const l of out.trim().split('\n')) expect(JSON.parse(l)).toHaveProperty('kind', 'signal');
  });

  it('migration 3 brings a version-2 log forward, its rows kept and countable', () => {
    const path = dbPath();
    mkdirSync(dirname(path), { recursive: true });
    const v2 = keep(new Database(path));
    v2.exec(MIGRATIONS[0]!);
    v2.exec(MIGRATIONS[1]!);
    pragma(v2, 'user_version = 2');
    statement(v2, "INSERT INTO events (at, task_dir, kind, detail) VALUES ('2026-11-22T05:00:00.000Z', '/t/a', 'signal_invalid', '{\"reason\":\"not JSON\"}')").run();
    v2.close();
    const store = keep(Store.open(path));
    expect(pragma(store.db, 'user_version')).toBe(MIGRATIONS.length);
    expect(store.events.record(invalid('not JSON')).repeats).toBe(2);
    expect(store.events.list(5)).toHaveLength(1);
    store.close();
  });
});
