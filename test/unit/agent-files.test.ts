import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAgentFile } from '../../src/protocol/safeRead.js';
import { readStopFile } from '../../src/protocol/stopFile.js';
import { readSignalFile } from '../../src/protocol/signal.js';
import { readModuleInfo, readTarget } from '../../src/protocol/modules.js';
import { readSummaryHead } from '../../src/protocol/summary.js';
import { readLock } from '../../src/hooks/lock.js';
import { readTranscriptTail } from '../../src/agents/transcript.js';

// Every file an agent controls, replaced by something hostile: a FIFO with no writer
// (a plain open blocks for ever), a link to /dev/zero (a plain read never ends), a
// directory, a huge file. Each reader must answer at once, with nothing or "invalid".
type Kind = 'fifo' | 'zero' | 'dir' | 'huge';
const KINDS: Kind[] = ['fifo', 'zero', 'dir', 'huge'];
const HUGE_BYTES = 64 * 1024 * 1024;

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'autodeck-agentfiles-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

function hostile(kind: Kind, path: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  if (kind === 'fifo') execFileSync('mkfifo', [path]);
  else if (kind === 'zero') symlinkSync('/dev/zero', path);
  else if (kind === 'dir') mkdirSync(path);
  else {
    // Sparse: 64 MiB on disk costs nothing, but a whole read would.
    writeFileSync(path, '');
    execFileSync('truncate', ['-s', String(HUGE_BYTES), path]);
  }
}

function moduleWith(kind: Kind, file: string): string {
  const dir = mkdtempSync(join(base, `${kind}-`));
  hostile(kind, join(dir, file));
  return dir;
}

describe('files an agent controls are read without blocking, following links, or unbounded memory', () => {
  it('readAgentFile: a FIFO, a directory, a link are refused; a huge file is refused or cut at the cap', () => {
    for (const kind of KINDS) {
      const dir = moduleWith(kind, 'f');
      const refused = readAgentFile(join(dir, 'f'), { maxBytes: 1024 });
      expect(refused.ok, kind).toBe(false);
      const cut = readAgentFile(join(dir, 'f'), { maxBytes: 1024, tooLarge: 'truncate' });
      if (kind === 'huge') expect(cut).toMatchObject({ ok: true, bytes: 1024, truncated: true });
      else expect(cut.ok, kind).toBe(false);
    }
    expect(readAgentFile(join(base, 'nothing-here'), { maxBytes: 10 })).toEqual({ ok: false, reason: 'absent' });
  });

  it('readAgentFile reads a file whole whatever its size against the cap, and more than its size said', () => {
    const dir = mkdtempSync(join(base, 'sizes-'));
    for (const size of [0, 1, 1023, 1024, 1025, 5000]) {
      const text = 'x'.repeat(size);
      writeFileSync(join(dir, 'f'), text);
      const whole = readAgentFile(join(dir, 'f'), { maxBytes: 1024, tooLarge: 'truncate' });
      expect(whole, `size ${size}`).toMatchObject({ ok: true, text: text.slice(0, 1024), truncated: size > 1024 });
      expect(readAgentFile(join(dir, 'f'), { maxBytes: 1024 }).ok, `size ${size}`).toBe(size <= 1024);
    }
    // A file that grows while it is read: /proc says size 0 and has more (the buffer grows).
    const status = readAgentFile('/proc/self/status', { maxBytes: 1 << 20 });
    expect(status.ok && status.text.startsWith('Name:') && status.text.includes('\nPid:')).toBe(true);
    // the first 8 bytes only (the name after them is node's, or its main thread's on Node 24)
    expect(readAgentFile('/proc/self/status', { maxBytes: 8, tooLarge: 'truncate' })).toMatchObject({ ok: true, text: status.ok ? status.text.slice(0, 8) : '', truncated: true });
  });

  it('.auto-stop: only a regular file asks to stop; its head is enough', () => {
    for (const kind of KINDS) {
      const dir = moduleWith(kind, '.auto-stop');
      if (kind === 'huge') expect(readStopFile(dir)).toMatchObject({ reason: 'user_stop' });
      else expect(readStopFile(dir), kind).toBeUndefined();
    }
  });

  it('.auto-signal: every hostile kind is an invalid signal with a reason', () => {
    const reasons = KINDS.map((kind) => {
      const read = readSignalFile(join(moduleWith(kind, '.auto-signal'), '.auto-signal'));
      expect(read.ok, kind).toBe(false);
      expect(read.identity, kind).toBeDefined();
      return read.ok ? '' : read.reason;
    });
    expect(reasons).toEqual(['not a regular file', 'a symlink', 'not a regular file', 'larger than 65536 bytes']);
  });

  it('.index.json, .index.md, .working/.status.json, .target.md, .summary.md, the hook lock', () => {
    for (const kind of KINDS) {
      for (const file of ['.index.json', '.index.md', join('.working', '.status.json')]) {
        expect(readModuleInfo(moduleWith(kind, file)).status, `${kind} ${file}`).toBe('unknown');
      }
      const target = readTarget(moduleWith(kind, '.target.md'));
      if (kind === 'huge') expect(target!.length).toBe(256 * 1024);
      else expect(target, kind).toBeUndefined();
      // A sparse file is NUL bytes: lines of nothing printable, but read only at its head.
      expect(readSummaryHead(moduleWith(kind, '.summary.md'), 3).length, kind).toBeLessThanOrEqual(3);
      expect(readLock(moduleWith(kind, '.autodeck.lock')), kind).toBeUndefined();
    }
  });

  it('a transcript that is a FIFO, a link or a directory reads as empty', () => {
    for (const kind of ['fifo', 'zero', 'dir'] as const) {
      const dir = moduleWith(kind, 't.jsonl');
      expect(readTranscriptTail(join(dir, 't.jsonl')), kind).toEqual([]);
    }
  });
});
