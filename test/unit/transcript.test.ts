import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  claudeProjectDir,
  findTranscript,
  isReasoningLoop,
  lastAssistantTexts,
  lastQuotaError,
  readTranscriptTail,
  TRANSCRIPT_MAX_LINE_BYTES,
  type TranscriptEntry,
} from '../../src/agents/transcript.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/transcripts/${name}`, import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'autodeck-transcript-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const assistantText = (id: string, text: string, extra: Partial<TranscriptEntry> = {}): TranscriptEntry => ({
  type: 'assistant', isSidechain: false, uuid: `u-${id}-${text.length}`, timestamp: '2026-06-15T10:00:00.000Z',
  message: { id, role: 'assistant', content: [{ type: 'text', text }] }, ...extra,
});

describe('claudeProjectDir', () => {
  it.each([
    ['/work/demo', '/home/u/.claude/projects/-work-demo'],
    ['/work/my.repo/sub', '/home/u/.claude/projects/-work-my-repo-sub'],
    ['/home/u/.config/x', '/home/u/.claude/projects/-home-u--config-x'],
    // Claude Code turns every non-alphanumeric character into `-`, not only / and .
    ['/work/my_repo/a b', '/home/u/.claude/projects/-work-my-repo-a-b'],
  ])('%s', (cwd, expected) => {
    expect(claudeProjectDir('/home/u', cwd)).toBe(expected);
  });
});

describe('findTranscript', () => {
  const write = (name: string, mtimeSec: number) => {
    const p = join(dir, name);
    writeFileSync(p, '{}\n');
    utimesSync(p, mtimeSec, mtimeSec);
    return p;
  };

  it('takes the newest .jsonl modified at or after the start', () => {
    write('old.jsonl', 1_000);
    const newest = write('b.jsonl', 3_000);
    write('a.jsonl', 2_000);
    write('notes.txt', 4_000);
    mkdirSync(join(dir, 'folder.jsonl'));
    expect(findTranscript(dir, 2_000_000)).toBe(newest);
  });

  it('a file modified exactly at the start counts', () => {
    const p = write('s.jsonl', 2_000);
    expect(findTranscript(dir, statSync(p).mtimeMs)).toBe(p);
  });

  it('nothing new since the start', () => {
    write('old.jsonl', 1_000);
    expect(findTranscript(dir, 2_000_000)).toBeUndefined();
  });

  it('a folder Claude Code has not created yet', () => {
    expect(findTranscript(join(dir, 'missing'), 0)).toBeUndefined();
  });
});

describe('readTranscriptTail', () => {
  it('skips sidechain entries and tolerates a partial last line', () => {
    const entries = readTranscriptTail(fixture('handmade-loop.jsonl'));
    expect(entries.map((e) => e.uuid)).toEqual([
      'u-0001', 'a-0002', 'a-0003', 'u-0004', 'a-0006', 'a-0007', 'u-0008', 'y-0009', 'a-0010', 'a-0011', 'u-0012', 'a-0013',
    ]);
    expect(entries.some((e) => e.isSidechain)).toBe(false);
  });

  it('skips a line over 1 MiB and lines that are not JSON objects', () => {
    const big = JSON.stringify({ ...assistantText('m_big', 'x'.repeat(TRANSCRIPT_MAX_LINE_BYTES)), uuid: 'big' });
    const lines = [
      JSON.stringify(assistantText('m1', 'before')),
      big,
      'not json at all',
      '[1,2,3]',
      'null',
      '',
      JSON.stringify(assistantText('m2', 'after')),
    ];
    const p = join(dir, 's.jsonl');
    writeFileSync(p, lines.join('\n') + '\n');
    const entries = readTranscriptTail(p, { maxBytes: 4 * 1024 * 1024 });
    expect(entries.map((e) => e.message?.id)).toEqual(['m1', 'm2']);
  });

  it('reads only the tail of a file bigger than maxBytes, dropping the cut line', () => {
    const lines = Array.from({ length: 200 }, (_, i) => JSON.stringify(assistantText(`m${i}`, `text ${i}`)));
    const p = join(dir, 'big.jsonl');
    writeFileSync(p, lines.join('\n') + '\n');
    const lineBytes = Buffer.byteLength(lines[199]!) + 1;
    // a window that starts in the middle of line 189 (from the end: 10.5 lines)
    const entries = readTranscriptTail(p, { maxBytes: Math.floor(lineBytes * 10.5) });
    expect(entries.map((e) => e.message?.id)).toEqual(Array.from({ length: 10 }, (_, i) => `m${190 + i}`));
  });

  it('keeps the first line when the window starts exactly on a line boundary', () => {
    const lines = Array.from({ length: 20 }, (_, i) => JSON.stringify(assistantText(`m${i + 10}`, 'same length')));
    const p = join(dir, 'edge.jsonl');
    writeFileSync(p, lines.join('\n') + '\n');
    const lineBytes = Buffer.byteLength(lines[0]!) + 1;
    const entries = readTranscriptTail(p, { maxBytes: lineBytes * 3 });
    expect(entries.map((e) => e.message?.id)).toEqual(['m27', 'm28', 'm29']);
  });

  it('a window inside a single line yields nothing', () => {
    const p = join(dir, 'one.jsonl');
    writeFileSync(p, JSON.stringify(assistantText('m', 'y'.repeat(5000))) + '\n');
    expect(readTranscriptTail(p, { maxBytes: 100 })).toEqual([]);
  });

  it('a missing file is empty', () => {
    expect(readTranscriptTail(join(dir, 'gone.jsonl'))).toEqual([]);
  });
});

describe('lastAssistantTexts', () => {
  it('joins the text blocks of one message.id; skips tool_use-only and API error entries', () => {
    const entries = readTranscriptTail(fixture('handmade-grouping.jsonl'));
    expect(lastAssistantTexts(entries, 5)).toEqual(['First, the plan.\nThen, the checks.', 'Done: the README is in place.']);
    expect(lastAssistantTexts(entries, 1)).toEqual(['Done: the README is in place.']);
    expect(lastAssistantTexts(entries, 0)).toEqual([]);
  });

  it('reads the texts of the main chain only', () => {
    const entries = readTranscriptTail(fixture('handmade-loop.jsonl'));
    expect(lastAssistantTexts(entries, 3)).toEqual(['Checking the build again.', 'Checking the build again.', '  Checking the build again.\n']);
  });

  it('ignores sidechain entries handed in directly', () => {
    const entries = [assistantText('a', 'one'), assistantText('s', 'sub', { isSidechain: true })];
    expect(lastAssistantTexts(entries, 3)).toEqual(['one']);
  });
});

describe('isReasoningLoop', () => {
  it.each([
    ['three identical', ['x', 'same', 'same', 'same'], true],
    ['identical after trimming', ['same', ' same\n', 'same  '], true],
    ['one differs', ['same', 'same', 'other'], false],
    ['only two', ['same', 'same'], false],
    ['empty texts never count', ['', ' ', '\n'], false],
    ['an older repeat does not count', ['same', 'same', 'same', 'new'], false],
  ] as const)('%s', (_, texts, loop) => {
    expect(isReasoningLoop(texts)).toBe(loop);
  });

  it('n is configurable; fewer than two is never a loop', () => {
    expect(isReasoningLoop(['a', 'a'], 2)).toBe(true);
    expect(isReasoningLoop(['a'], 1)).toBe(false);
  });

  it('the fixture is a loop, its first messages are not', () => {
    const texts = lastAssistantTexts(readTranscriptTail(fixture('handmade-loop.jsonl')), 3);
    expect(isReasoningLoop(texts)).toBe(true);
    const grouping = lastAssistantTexts(readTranscriptTail(fixture('handmade-grouping.jsonl')), 3);
    expect(isReasoningLoop(grouping)).toBe(false);
  });
});

describe('lastQuotaError', () => {
  const quota = readTranscriptTail(fixture('handmade-quota.jsonl'));

  it('finds the 429 entry with its reset text and time', () => {
    expect(lastQuotaError(quota)).toEqual({
      line: "You've hit your session limit · resets 7:51am (UTC)",
      resetText: 'resets 7:51am (UTC)',
      atMs: Date.parse('2026-06-15T05:10:00.000Z'),
    });
  });

  it('honours sinceMs', () => {
    expect(lastQuotaError(quota, Date.parse('2026-06-15T05:00:00Z'))).toBeDefined();
    expect(lastQuotaError(quota, Date.parse('2026-06-15T05:10:00Z'))).toBeDefined();
    expect(lastQuotaError(quota, Date.parse('2026-06-15T05:10:00.001Z'))).toBeUndefined();
  });

  it('a later assistant message ends it', () => {
    const later = [...quota, assistantText('msg_after', 'Back at work.', { timestamp: '2026-06-15T08:00:00.000Z' })];
    expect(lastQuotaError(later)).toBeUndefined();
  });

  it('none in a transcript without one; a 529 is not a quota error', () => {
    expect(lastQuotaError(readTranscriptTail(fixture('handmade-loop.jsonl')))).toBeUndefined();
    expect(lastQuotaError(readTranscriptTail(fixture('handmade-grouping.jsonl')))).toBeUndefined();
  });
});
