import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { Store } from '../../src/store/index.js';
import { isBusyError, isConstraintError, openDb, retryBusy } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import type { NewLoop } from '../../src/store/loops.js';

const dbPath = (): string => join(mkdtempSync(join(tmpdir(), 'autodeck-db-')), 'nested', 'state.db');
const newLoop = (o: Partial<NewLoop> = {}): NewLoop => ({
  session: 'auto-a-123456', taskDir: '/t/a', taskName: 'a', root: '/t', maxIterations: 20, timeoutMinutes: 30,
  startedAt: '2026-11-22T05:00:00.000Z', backend: 'pty', ownerPid: 1, ownerHost: 'h', ownerHeartbeatAt: '2026-11-22T05:00:00.000Z',
  agentArgv: ['node', 'x y'], settings: { graceSeconds: 1 }, ...o,
});

describe('the state database', () => {
  it('creates its folder, uses WAL and a busy timeout, and records its schema version', () => {
    const path = dbPath();
    const db = openDb(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThanOrEqual(5000);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.close();
    // opening again migrates nothing and loses nothing
    const again = Store.open(path);
    again.loops.insert(newLoop());
    again.close();
    expect(Store.open(path).loops.list()).toHaveLength(1);
  });

  it('has the protocol columns of task_auto with their defaults', () => {
    const store = Store.open(dbPath());
    const cols = (store.db.prepare('PRAGMA table_info(task_auto)').all() as { name: string; dflt_value: string | null }[]);
    const byName = new Map(cols.map((c) => [c.name, c.dflt_value]));
    for (const c of ['session_name', 'task_dir', 'status', 'max_iterations', 'timeout_minutes', 'iteration_count',
      'recovery_count_step', 'recovery_count_total', 'last_capture_hash', 'stall_count', 'quota_wait_since', 'started_at',
      'last_signal_at', 'restart_count', 'quota_wait_ms', 'step', 'result', 'next', 'checkpoint', 'stop_reason', 'backend',
      'owner_pid', 'owner_host', 'owner_heartbeat_at']) expect(byName.has(c), c).toBe(true);
    expect(byName.get('status')).toBe("'running'");
    expect(byName.get('max_iterations')).toBe('20');
  });

  it('refuses a database from a newer autodeck', () => {
    const path = dbPath();
    openDb(path).close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => openDb(path)).toThrow(/newer autodeck/);
  });

  it('a second loop on one module or session is a constraint error', () => {
    const store = Store.open(dbPath());
    store.loops.insert(newLoop());
    let caught: unknown;
    try {
      store.loops.insert(newLoop({ session: 'auto-a-other' }));
    } catch (err) {
      caught = err;
    }
    expect(isConstraintError(caught)).toBe(true);
    expect(() => store.loops.insert(newLoop({ taskDir: '/t/other' }))).toThrow();
  });

  it('a failed row is replaced by a new start', () => {
    const store = Store.open(dbPath());
    store.loops.insert(newLoop());
    store.loops.update('auto-a-123456', { status: 'failed', restartCount: 3 });
    const row = store.loops.insert(newLoop());
    expect(row).toMatchObject({ status: 'starting', restartCount: 0, agentArgv: ['node', 'x y'], settings: { graceSeconds: 1 } });
  });

  it('keeps runs newest first and events oldest first', () => {
    const store = Store.open(dbPath());
    for (const outcome of ['complete', 'timeout'] as const) {
      store.runs.insert({ session: 's', taskDir: '/t/a', taskName: 'a', startedAt: 'x', endedAt: 'y', iterations: 2, maxIterations: 20,
        timeoutMinutes: 30, outcome, stopReason: '', forced: outcome === 'timeout', recoveries: 0, restarts: 0, quotaWaitMs: 0, activeMs: 5 });
    }
    expect(store.runs.list().map((r) => [r.outcome, r.forced])).toEqual([['timeout', true], ['complete', false]]);
    for (const kind of ['started', 'signal', 'ended'] as const) store.events.insert({ at: 'now', session: 's', taskDir: '/t/a', kind, detail: { k: kind } });
    expect(store.events.list(2).map((e) => e.kind)).toEqual(['signal', 'ended']);
    expect(store.events.list(10, '/t/other')).toEqual([]);
  });

  it('a writer holding the lock past the busy timeout is a busy error, not a hang', () => {
    const path = dbPath();
    Store.open(path).close();
    const holder = new Database(path);
    holder.exec('BEGIN EXCLUSIVE');
    const other = new Database(path, { timeout: 50 });
    let caught: unknown;
    try {
      other.prepare("INSERT INTO events (at, kind) VALUES ('x', 'started')").run();
    } catch (err) {
      caught = err;
    }
    holder.exec('ROLLBACK');
    expect(isBusyError(caught)).toBe(true);
  });

  it('opening a new file while another process writes to it waits for the writer (no instant SQLITE_BUSY)', async () => {
    const path = dbPath();
    mkdirSync(dirname(path), { recursive: true });
    // Another process made the file (still a rollback journal) and holds its write lock for 300 ms:
    // the switch to WAL reads, then upgrades to a write lock, which SQLite's busy handler does not wait for.
    const holder = spawn(process.execPath, ['-e', `
      const db = new (require('better-sqlite3'))(${JSON.stringify(path)});
      db.exec('CREATE TABLE t (x)'); db.exec('BEGIN IMMEDIATE'); db.exec('INSERT INTO t VALUES (1)');
      console.log('locked'); setTimeout(() => db.exec('COMMIT'), 300);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((res) => holder.on('exit', res));
    await new Promise((res) => holder.stdout.once('data', res));
    const t0 = performance.now();
    const db = openDb(path);
    expect(performance.now() - t0).toBeGreaterThan(150);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.close();
    await exited;
  });

  it('an immediate transaction that reads before it writes waits for the write lock of another process', async () => {
    const path = dbPath();
    const store = Store.open(path);
    const holder = spawn(process.execPath, ['-e', `
      const db = new (require('better-sqlite3'))(${JSON.stringify(path)});
      db.exec('BEGIN IMMEDIATE'); console.log('locked'); setTimeout(() => db.exec('COMMIT'), 300);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((res) => holder.on('exit', res));
    await new Promise((res) => holder.stdout.once('data', res));
    // A deferred transaction would hold a read snapshot here, and its upgrade would fail at once.
    store.tx(() => {
      store.events.list(1);
      store.events.insert({ at: '2026-11-26T00:00:00.000Z', session: 's', taskDir: '/t/a', kind: 'started', detail: {} });
    }, 'immediate');
    expect(store.events.list(5).map((e) => e.kind)).toEqual(['started']);
    store.close();
    await exited;
  });

  it('tx returns what its function returns, nests (an inner failure caught rolls back the inner part only) and rolls back on a throw', () => {
    const store = Store.open(dbPath());
    const event = (kind: 'started' | 'signal' | 'ended') => ({ at: '2026-11-26T00:00:00.000Z', session: 's', taskDir: '/t/a', kind, detail: {} });
    expect(store.tx(() => {
      store.events.insert(event('started'));
      try {
        store.tx(() => {
          store.events.insert(event('signal'));
          throw new Error('inner');
        });
      } catch { /* the inner part is undone, the outer goes on */ }
      return 7;
    })).toBe(7);
    expect(() => store.tx(() => {
      store.events.insert(event('ended'));
      throw new Error('outer');
    }, 'immediate')).toThrow('outer');
    expect(store.events.list(5).map((e) => e.kind)).toEqual(['started']);
    expect(store.db.inTransaction).toBe(false);
    store.close();
  });

  it('retryBusy tries a busy step again until it works or the time is spent', () => {
    const busy = (): never => { throw new Database.SqliteError('database is locked', 'SQLITE_BUSY'); };
    let tries = 0;
    expect(retryBusy(() => (++tries < 3 ? busy() : 'ok'), 1000, () => {})).toBe('ok');
    expect(tries).toBe(3);
    expect(() => retryBusy(busy, 0, () => {})).toThrow(/locked/);
    expect(() => retryBusy(() => { throw new Error('other'); }, 1000, () => {})).toThrow('other');
  });
});

  it('agent states as of the last sync: another connection\'s write is seen at the next sync, this one\'s at once', () => {
    const path = dbPath();
    const mine = Store.open(path);
    const hook = Store.open(path); // the agent's hook command: another process, another connection
    const at = '2026-11-26T15:00:00.000Z';
    const row = (state: 'busy' | 'waiting' | 'idle') => ({ session: 's1', state, event: 'Notification', detail: {}, at });
    hook.agentState.set(row('busy'));
    mine.agentState.sync(mine.dataVersion());
    expect(mine.agentState.recent('s1')?.state).toBe('busy');
    expect(mine.agentState.recent('s2')).toBeUndefined();

    hook.agentState.set(row('waiting'));
    hook.agentState.set({ ...row('idle'), session: 's2' });
    // same tick: what was read stands (get reads now)
    expect(mine.agentState.recent('s1')?.state).toBe('busy');
    expect(mine.agentState.get('s1')?.state).toBe('waiting');
    // the next tick: the other connection's commits moved data_version
    mine.agentState.sync(mine.dataVersion());
    expect(mine.agentState.recent('s1')?.state).toBe('waiting');
    expect(mine.agentState.recent('s2')?.state).toBe('idle');

    // this connection's own writes do not move data_version: they drop their row at once
    mine.agentState.set(row('idle'));
    mine.agentState.sync(mine.dataVersion());
    expect(mine.agentState.recent('s1')?.state).toBe('idle');
    mine.agentState.clear('s2');
    expect(mine.agentState.recent('s2')).toBeUndefined();
    mine.close();
    hook.close();
  });

describe('migrations', () => {
  it('brings a version-1 database forward without losing its rows', () => {
    const path = dbPath();
    mkdirSync(dirname(path), { recursive: true });
    const v1 = new Database(path);
    v1.exec(MIGRATIONS[0]!);
    v1.pragma('user_version = 1');
    v1.prepare("INSERT INTO runs (session_name, task_dir, ended_at, outcome) VALUES ('s', '/t/a', 'now', 'complete')").run();
    v1.close();
    const store = Store.open(path);
    expect(store.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(store.runs.list()).toHaveLength(1);
    store.agentState.set({ session: 's', state: 'idle', event: 'Notification', detail: {}, at: 'now' });
    expect(store.agentState.get('s')?.state).toBe('idle');
  });
});
