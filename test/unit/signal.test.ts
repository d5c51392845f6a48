import { describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_SIGNAL_BYTES, parseSignal, readSignalFile, isValidResult } from '../../src/protocol/signal.js';

const base = { step: 'exec', result: '(done)', next: 'check', checkpoint: 'post-exec', iteration: 3, timestamp: '2026-11-22T05:00:00Z' };
const text = (o: Record<string, unknown>): string => JSON.stringify(o);

describe('parseSignal', () => {
  const valid: [string, Record<string, unknown>][] = [
    ['a full signal', base],
    ['no iteration (a step run by hand)', { ...base, iteration: undefined }],
    ['iteration 0', { ...base, iteration: 0 }],
    ['(stop) as next', { ...base, step: 'report', next: '(stop)' }],
    ['an empty checkpoint', { ...base, checkpoint: '' }],
    ['(step-N) result', { ...base, result: '(step-12)' }],
    ['(step-0) result', { ...base, result: '(step-0)' }],
    ['a timestamp with offset and fraction', { ...base, timestamp: '2026-11-22T05:00:00.123+01:00' }],
    ['extra fields are tolerated', { ...base, note: 'hi' }],
  ];
  it.each(valid)('accepts %s', (_, o) => {
    const r = parseSignal(text(o));
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.signal.step).toBe(o.step);
  });

  const invalid: [string, string, RegExp][] = [
    ['not JSON', '{"step":', /not JSON/],
    ['an array', '[1,2]', /not a JSON object/],
    ['null', 'null', /not a JSON object/],
    ['a missing field', text({ ...base, next: undefined }), /"next" is missing/],
    ['an unknown step', text({ ...base, step: 'deploy' }), /step "deploy"/],
    ['an unknown result', text({ ...base, result: 'MAYBE' }), /result "MAYBE"/],
    ['a negative (step-N)', text({ ...base, result: '(step--1)' }), /result/],
    ['a leading-zero (step-N)', text({ ...base, result: '(step-01)' }), /result/],
    ['an unknown next', text({ ...base, next: 'deploy' }), /next "deploy"/],
    ['an unknown checkpoint', text({ ...base, checkpoint: 'pre-plan' }), /checkpoint/],
    ['a negative iteration', text({ ...base, iteration: -1 }), /iteration -1/],
    ['a fractional iteration', text({ ...base, iteration: 1.5 }), /iteration 1.5/],
    ['a string iteration', text({ ...base, iteration: '3' }), /iteration "3"/],
    ['a date without time', text({ ...base, timestamp: '2026-11-22' }), /timestamp/],
    ['an impossible date', text({ ...base, timestamp: '2026-13-45T99:00:00Z' }), /timestamp/],
    ['oversized', text({ ...base, pad: 'x'.repeat(MAX_SIGNAL_BYTES) }), /larger than/],
    ['a result of the wrong type', text({ ...base, result: 7 }), /result 7/],
  ];
  it.each(invalid)('refuses %s', (_, input, reason) => {
    const r = parseSignal(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });

  it('knows every listed result', () => {
    for (const r of ['PASS', 'NEEDS_REVISION', 'ACCEPT', 'NEEDS_FIX', 'REPLAN', 'BLOCKED', 'CONTINUE', '(generated)',
      '(annotations)', '(done)', '(mid-exec)', '(blocked)', 'success', 'conflict']) expect(isValidResult(r)).toBe(true);
    expect(isValidResult('pass')).toBe(false);
  });
});

describe('readSignalFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'autodeck-signal-'));
  it('reads a regular file and gives it an identity', () => {
    const p = join(dir, 'ok');
    writeFileSync(p, text(base));
    const r = readSignalFile(p);
    expect(r.ok).toBe(true);
    expect(r.identity).toMatch(/^\d+:\d+:\d+$/);
  });
  it('says absent for a missing file', () => {
    expect(readSignalFile(join(dir, 'missing'))).toMatchObject({ ok: false, reason: 'absent' });
  });
  it('refuses a symlink, even to a valid signal', () => {
    const target = join(dir, 'target');
    writeFileSync(target, text(base));
    symlinkSync(target, join(dir, 'link'));
    expect(readSignalFile(join(dir, 'link'))).toMatchObject({ ok: false, reason: 'a symlink' });
  });
  it('refuses a folder', () => {
    mkdirSync(join(dir, 'folder'));
    expect(readSignalFile(join(dir, 'folder'))).toMatchObject({ ok: false, reason: 'not a regular file' });
  });
  it('refuses a file over 64 KiB without parsing it', () => {
    const p = join(dir, 'big');
    writeFileSync(p, ' '.repeat(MAX_SIGNAL_BYTES) + text(base));
    expect(readSignalFile(p)).toMatchObject({ ok: false, reason: expect.stringMatching(/larger than/) });
  });
  it('gives a rewritten file a new identity', () => {
    const p = join(dir, 'rewrite');
    writeFileSync(p, text(base));
    const a = readSignalFile(p).identity;
    writeFileSync(join(dir, 'rewrite.tmp'), text(base));
    // rename brings a new inode, as the agent's atomic write does
    renameSync(join(dir, 'rewrite.tmp'), p);
    expect(readSignalFile(p).identity).not.toBe(a);
  });
});
