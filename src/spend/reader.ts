import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { UsageParser } from '../agents/agentRecord.js';
import { messagesOf, tokensByModel, type MessageUsage, type TokenCounts } from './usage.js';
import { compactionsAsOf, newContextState, scanContext, type ContextState } from './context.js';

/** Bytes read per call at most: a long transcript is caught up over several calls. */
const CHUNK_BYTES = 4 * 1024 * 1024;
/**
 * Bytes read per update at most: the reads are synchronous on the supervisor's thread
 * (about 12 ms per MB here), so a long backlog — an adopted loop's transcript — is
 * caught up over several signals rather than in one long pause.
 */
const UPDATE_BYTES = 32 * 1024 * 1024;
/** A line longer than this is a tool result, never an assistant message with usage: skipped. */
const MAX_LINE_BYTES = 1024 * 1024;

/**
 * The usage of one transcript file, read as it grows: each call reads only the complete
 * lines added since the last. A file that got shorter (rewritten) is read again from its
 * start. Counting is by message id, so reading a line twice never counts it twice.
 */
export class TranscriptUsage {
  private offset = 0;
  private readonly messages = new Map<string, MessageUsage>();
  /** The newest request's context and the compactions (src/spend/context.ts). */
  private ctx: ContextState = newContextState();

  /** `parser`: how another agent's file carries usage (Codex's rollout, Gemini CLI's session); Claude Code's transcript without. */
  constructor(readonly path: string, private readonly parser?: UsageParser) {}

  /** Reads what was added (up to UPDATE_BYTES); returns false when the file cannot be read (yet). */
  update(): boolean {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return false;
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        this.offset = 0;
        this.messages.clear();
        this.ctx = newContextState();
      }
      const stopAt = Math.min(size, this.offset + UPDATE_BYTES);
      while (this.offset < stopAt) {
        const want = Math.min(CHUNK_BYTES, size - this.offset);
        const buf = Buffer.alloc(want);
        const got = readSync(fd, buf, 0, want, this.offset);
        if (got <= 0) break;
        const end = buf.lastIndexOf(0x0a, got - 1);
        if (end < 0) {
          // No whole line in a full chunk: one huge line; skip to past its end when it comes.
          if (got === CHUNK_BYTES) this.offset += got;
          break;
        }
        this.take(buf.subarray(0, end + 1));
        this.offset += end + 1;
        if (got < want) break;
      }
      return true;
    } finally {
      closeSync(fd);
    }
  }

  /** Tokens per model so far; with `asOf` (ISO), of the messages written by then. */
  byModel(asOf?: string): Map<string, TokenCounts> {
    return tokensByModel(this.messages.values(), asOf);
  }

  /** What the context scan has found so far (read-only for callers). */
  get context(): Readonly<ContextState> {
    return this.ctx;
  }

  /** Compactions so far; with `asOf` (ISO), those written by then; with `since`, from then on. */
  compactions(asOf?: string, since?: string): number {
    return compactionsAsOf(this.ctx, asOf, since);
  }

  /** Messages counted so far. */
  get messageCount(): number {
    return this.messages.size;
  }

  private take(bytes: Buffer): void {
    const entries: unknown[] = [];
    let start = 0;
    for (;;) {
      const nl = bytes.indexOf(0x0a, start);
      if (nl < 0) break;
      if (nl - start <= MAX_LINE_BYTES && nl > start) {
        try {
          entries.push(JSON.parse(bytes.toString('utf8', start, nl)));
        } catch { /* not JSON: skipped */ }
      }
      start = nl + 1;
    }
    if (this.parser) {
      this.parser.take(entries.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null && !Array.isArray(e)), this.messages);
      return;
    }
    messagesOf(entries, this.messages);
    scanContext(entries, this.ctx);
  }
}
