import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseStopRequest, readStopFile, writeStopFile } from '../../src/protocol/stopFile.js';

describe('stop file', () => {
  it('is written whole, with reason, timestamp and force, and no temp file left', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autodeck-stop-'));
    writeStopFile(dir, 'timeout', { now: new Date('2026-11-22T05:00:00Z') });
    expect(JSON.parse(readFileSync(join(dir, '.auto-stop'), 'utf8'))).toEqual({ reason: 'timeout', timestamp: '2026-11-22T05:00:00.000Z' });
    writeStopFile(dir, 'user_stop', { force: true });
    expect(readStopFile(dir)).toMatchObject({ reason: 'user_stop', force: true });
    expect(readdirSync(dir)).toEqual(['.auto-stop']);
  });
  it('a hand-written or odd stop file still means stop', () => {
    expect(parseStopRequest('')).toMatchObject({ reason: 'user_stop' });
    expect(parseStopRequest('{"reason":"because"}')).toMatchObject({ reason: 'user_stop' });
    expect(parseStopRequest('{"reason":"stall_limit","force":"yes"}')).toEqual(expect.not.objectContaining({ force: true }));
  });
  it('reads nothing when absent', () => {
    expect(readStopFile(mkdtempSync(join(tmpdir(), 'autodeck-stop-')))).toBeUndefined();
  });
});
