import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  holderGone, LOCK_FILE, LOCK_STALE_MS, lockDecision, lockOwner, makeLock, parseLock, readLock, releaseLock, writeLock,
  type HookLock,
} from '../../src/hooks/lock.js';
import { pidAlive } from '../../src/pidAlive.js';

const NOW = Date.parse('2026-11-22T05:00:00.000Z');
const lock = (o: Partial<HookLock> = {}): HookLock => ({
  owner: 'session:other', pid: 4242, host: 'box', heartbeat_at: new Date(NOW - 60_000).toISOString(), ...o,
});
const ago = (ms: number) => new Date(NOW - ms).toISOString();

describe('lockDecision', () => {
  it.each([
    ['no lock: take it', undefined, {}, 'take'],
    ['my own lock', lock({ owner: 'session:me', heartbeat_at: ago(10 * LOCK_STALE_MS) }), {}, 'mine'],
    ['another session, fresh', lock(), {}, 'held-by-other'],
    ['another session, just under 5 minutes', lock({ heartbeat_at: ago(LOCK_STALE_MS - 1) }), {}, 'held-by-other'],
    ['another session, 5 minutes old: stale', lock({ heartbeat_at: ago(LOCK_STALE_MS) }), {}, 'take'],
    ['another session, an hour old', lock({ heartbeat_at: ago(3_600_000) }), {}, 'take'],
    ['a heartbeat that is not a time', lock({ heartbeat_at: 'yesterday' }), {}, 'take'],
    ['a heartbeat 5 minutes in the future (a wrong clock)', lock({ heartbeat_at: ago(-LOCK_STALE_MS) }), {}, 'take'],
    ['a heartbeat a little in the future', lock({ heartbeat_at: ago(-30_000) }), {}, 'held-by-other'],
    ['a fresh lock whose agent is gone', lock(), { holderGone: true }, 'take'],
  ] as const)('%s', (_, existing, opts, want) => {
    expect(lockDecision(existing, 'session:me', NOW, opts)).toBe(want);
    expect(lockDecision(existing, 'session:me', new Date(NOW), opts)).toBe(want);
  });
});

describe('parseLock', () => {
  it('reads the four fields', () => {
    const l = makeLock(lockOwner('abc'), 12, 'box', new Date(NOW));
    expect(parseLock(JSON.stringify(l))).toEqual({ owner: 'session:abc', pid: 12, host: 'box', heartbeat_at: '2026-11-22T05:00:00.000Z' });
  });
  it.each([['not JSON', '{'], ['no owner', '{"pid": 1}'], ['an array', '[]'], ['empty owner', '{"owner": ""}']])('%s is no lock', (_, text) => {
    expect(parseLock(text)).toBeUndefined();
  });
  it('tolerates missing fields (then the heartbeat makes it stale)', () => {
    const l = parseLock('{"owner": "session:x"}');
    expect(l).toEqual({ owner: 'session:x', pid: 0, host: '', heartbeat_at: '' });
    expect(lockDecision(l, 'session:me', NOW)).toBe('take');
  });
});

describe('holderGone', () => {
  it('only a process on this host can be known to be gone', () => {
    expect(holderGone(lock({ host: 'box' }), 'box', () => false)).toBe(true);
    expect(holderGone(lock({ host: 'box' }), 'box', () => true)).toBe(false);
    expect(holderGone(lock({ host: 'elsewhere' }), 'box', () => false)).toBe(false);
    expect(holderGone(lock({ pid: 0 }), 'box', () => false)).toBe(false);
  });
  it('pidAlive sees this process and not a reaped one', () => {
    expect(pidAlive(process.pid)).toBe(true);
    expect(pidAlive(2 ** 22 + 12345)).toBe(false);
  });
});

describe('the lock file', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is written atomically, read back, refreshed and released only by its owner', () => {
    dir = mkdtempSync(join(tmpdir(), 'autodeck-lock-'));
    expect(readLock(dir)).toBeUndefined();
    writeLock(dir, makeLock('session:a', 1, 'box', new Date(NOW)));
    expect(readLock(dir)).toMatchObject({ owner: 'session:a', heartbeat_at: '2026-11-22T05:00:00.000Z' });
    writeLock(dir, makeLock('session:a', 1, 'box', new Date(NOW + 1000)));
    expect(readLock(dir)?.heartbeat_at).toBe('2026-11-22T05:00:01.000Z');
    expect(readdirSync(dir)).toEqual([LOCK_FILE]); // no temporary file left behind
    releaseLock(dir, 'session:b');
    expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
    releaseLock(dir, 'session:a');
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    releaseLock(dir, 'session:a'); // already gone: fine
  });

  it('a malformed lock file reads as no lock', () => {
    dir = mkdtempSync(join(tmpdir(), 'autodeck-lock-'));
    writeFileSync(join(dir, LOCK_FILE), 'garbage');
    expect(readLock(dir)).toBeUndefined();
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe('garbage');
  });
});
