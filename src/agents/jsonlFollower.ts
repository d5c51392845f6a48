import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Bytes read per update at most: a long backlog is caught up over several reads. */
const READ_BYTES = 4 * 1024 * 1024;
/** Longer lines are skipped unparsed: a tool's huge output is never an event that decides anything. */
const MAX_LINE_BYTES = 1024 * 1024;

/**
 * An append-only JSONL file read as it grows: each update returns the objects of the
 * complete lines added since the last one. A file that got shorter (rewritten) is read
 * again from its start (`restarted` says so). Lines that are not a JSON object, and lines
 * over 1 MiB, are skipped. Reads never throw: a file that cannot be read gives nothing.
 */
export class JsonlFollower {
  private offset = 0;
  /** Bytes of a line longer than MAX_LINE_BYTES still to skip. */
  private skipping = false;

  constructor(readonly path: string) {}

  update(): { entries: Record<string, unknown>[]; restarted: boolean } {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return { entries: [], restarted: false };
    }
    const entries: Record<string, unknown>[] = [];
    let restarted = false;
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        this.offset = 0;
        this.skipping = false;
        restarted = true;
      }
      const want = Math.min(READ_BYTES, size - this.offset);
      if (want <= 0) return { entries, restarted };
      const buf = Buffer.alloc(want);
      const got = readSync(fd, buf, 0, want, this.offset);
      const end = buf.lastIndexOf(0x0a, got - 1);
      if (end < 0) {
        // no whole line in a full read: one huge line, skipped up to its end
        if (got === READ_BYTES) {
          this.offset += got;
          this.skipping = true;
        }
        return { entries, restarted };
      }
      let start = 0;
      while (start <= end) {
        const nl = buf.indexOf(0x0a, start);
        if (this.skipping) this.skipping = false;
        else if (nl - start <= MAX_LINE_BYTES && nl > start) {
          try {
            const v = JSON.parse(buf.toString('utf8', start, nl)) as unknown;
            if (typeof v === 'object' && v !== null && !Array.isArray(v)) entries.push(v as Record<string, unknown>);
          } catch { /* not JSON: skipped */ }
        }
        start = nl + 1;
      }
      this.offset += end + 1;
      return { entries, restarted };
    } catch {
      return { entries, restarted };
    } finally {
      closeSync(fd);
    }
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
