import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { quotaFromTranscriptEntry, type QuotaMatch } from './quota.js';

/**
 * Claude Code's session transcript (CLAUDE-CODE.md): JSONL, one object per line, each
 * assistant content block its own entry (sharing `message.id`). Read for the reasoning-loop
 * check and for quota errors.
 */
export interface TranscriptEntry {
  type?: string;
  uuid?: string;
  timestamp?: string;
  isSidechain?: boolean;
  isApiErrorMessage?: boolean;
  apiErrorStatus?: number;
  message?: { id?: string; role?: string; model?: string; content?: unknown };
  [key: string]: unknown;
}

/** How much of the end of a transcript is read: enough for several turns, bounded. */
export const TRANSCRIPT_TAIL_BYTES = 2 * 1024 * 1024;
/** Longer lines are skipped unparsed: a huge tool result is never a text message. */
export const TRANSCRIPT_MAX_LINE_BYTES = 1024 * 1024;

/**
 * `<home>/.claude/projects/<cwd with / and . as ->`. Claude Code in fact turns every
 * character that is not an ASCII letter or digit into `-` (`_` and spaces too: see
 * anthropics/claude-code#9221, agentclientprotocol/claude-agent-acp#307), which includes
 * the `/` and `.` rule; runs are not collapsed (`/a/.b` → `-a--b`).
 */
export function claudeProjectDir(home: string, cwd: string): string {
  return join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
}

/**
 * The newest `*.jsonl` in `dir` modified at or after `sinceMs` (the loop's start), so a
 * transcript from an earlier session in the same folder is never taken; undefined if none
 * or the folder does not exist yet (Claude Code creates it on its first write).
 */
export function findTranscript(dir: string, sinceMs: number): string | undefined {
  let best: { path: string; mtimeMs: number } | undefined;
  for (const name of listDir(dir)) {
    if (!name.endsWith('.jsonl')) continue;
    const path = join(dir, name);
    const st = statOrUndefined(path);
    if (!st?.isFile() || st.mtimeMs < sinceMs) continue;
    if (!best || st.mtimeMs > best.mtimeMs) best = { path, mtimeMs: st.mtimeMs };
  }
  return best?.path;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (e) {
    if (isNotFound(e)) return [];
    throw e;
  }
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined; // removed between readdir and stat (a `/clear` rotation)
  }
}

function isNotFound(e: unknown): boolean {
  return (e as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/**
 * The entries in the last `maxBytes` of a transcript (default 2 MiB), read with one
 * positioned read instead of the whole file. A line cut by the start of the window is
 * dropped; lines over 1 MiB, lines that are not a JSON object (including a last line still
 * being written) and `isSidechain` entries (subagents) are skipped. A missing file is empty.
 */
export function readTranscriptTail(path: string, opts: { maxBytes?: number } = {}): TranscriptEntry[] {
  const tail = readTail(path, opts.maxBytes ?? TRANSCRIPT_TAIL_BYTES);
  if (!tail) return [];
  const entries: TranscriptEntry[] = [];
  for (const line of lineRanges(tail.data, tail.cut)) {
    const entry = parseEntry(tail.data, line.start, line.end);
    if (entry && entry.isSidechain !== true) entries.push(entry);
  }
  return entries;
}

/**
 * Reads from one byte before the window, so that a window starting exactly at a line
 * boundary keeps its first line: everything up to the first newline is dropped.
 */
function readTail(path: string, maxBytes: number): { data: Buffer; cut: boolean } | undefined {
  let fd: number;
  try {
    // Never through a link, never blocking on a FIFO put there (agent-controlled path).
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    if (isNotFound(e) || (e as NodeJS.ErrnoException).code === 'ELOOP') return undefined;
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const size = st.size;
    const start = Math.max(0, size - Math.max(1, maxBytes) - 1);
    const data = Buffer.alloc(size - start);
    let got = 0;
    while (got < data.length) {
      const n = readSync(fd, data, got, data.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    return { data: data.subarray(0, got), cut: start > 0 };
  } finally {
    closeSync(fd);
  }
}

function* lineRanges(data: Buffer, cut: boolean): Generator<{ start: number; end: number }> {
  let start = 0;
  if (cut) {
    const nl = data.indexOf(0x0a);
    if (nl < 0) return; // the whole window is inside one line
    start = nl + 1;
  }
  while (start < data.length) {
    const nl = data.indexOf(0x0a, start);
    const end = nl < 0 ? data.length : nl;
    yield { start, end };
    start = end + 1;
  }
}

function parseEntry(data: Buffer, start: number, end: number): TranscriptEntry | undefined {
  if (end - start > TRANSCRIPT_MAX_LINE_BYTES || end <= start) return undefined;
  try {
    const v: unknown = JSON.parse(data.toString('utf8', start, end));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as TranscriptEntry) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The texts of the last `n` assistant text messages, oldest first. Entries sharing
 * `message.id` are one message (each content block is its own entry), their text blocks
 * joined; tool_use-only messages and API error entries (synthetic, not the model) are not
 * text messages.
 */
export function lastAssistantTexts(entries: readonly TranscriptEntry[], n: number): string[] {
  const messages = new Map<string, string[]>();
  entries.forEach((e, i) => {
    if (e.type !== 'assistant' || e.isApiErrorMessage === true || e.isSidechain === true) return;
    const texts = textBlocks(e.message?.content);
    const key = e.message?.id ?? e.uuid ?? `#${i}`;
    if (texts.length === 0 && !messages.has(key)) return;
    messages.set(key, [...(messages.get(key) ?? []), ...texts]);
  });
  const texts = [...messages.values()].map((t) => t.join('\n')).filter((t) => t.trim() !== '');
  return n > 0 ? texts.slice(-n) : [];
}

function textBlocks(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((b: unknown) => {
    const block = b as { type?: unknown; text?: unknown } | null;
    return block && block.type === 'text' && typeof block.text === 'string' ? [block.text] : [];
  });
}

/**
 * A reasoning loop: the last `n` assistant text messages identical after
 * trimming. Empty texts never count, and fewer than two messages cannot be a loop.
 */
export function isReasoningLoop(texts: readonly string[], n = 3): boolean {
  if (n < 2 || texts.length < n) return false;
  const last = texts.slice(-n).map((t) => t.trim());
  return last[0] !== '' && last.every((t) => t === last[0]);
}

export interface TranscriptQuota extends QuotaMatch {
  /** When the error entry was written (its `timestamp`), the `now` for a relative reset. */
  atMs?: number;
}

/**
 * The last quota error in the entries, if it is still current: an assistant
 * entry written after it (the agent got through again) means the wait is over. With
 * `sinceMs`, older entries and entries without a timestamp are not considered.
 */
export function lastQuotaError(entries: readonly TranscriptEntry[], sinceMs?: number): TranscriptQuota | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.type !== 'assistant' || e.isSidechain === true) continue;
    const atMs = e.timestamp === undefined ? undefined : Date.parse(e.timestamp);
    if (sinceMs !== undefined && !(atMs !== undefined && atMs >= sinceMs)) return undefined;
    const quota = quotaFromTranscriptEntry(e);
    if (!quota) return undefined; // a later assistant entry supersedes any earlier error
    return atMs === undefined || Number.isNaN(atMs) ? quota : { ...quota, atMs };
  }
  return undefined;
}
