import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type BigIntStats } from 'node:fs';

/**
 * How every file an agent controls is opened: never through a link, never blocking
 * (a FIFO with no writer would hold open(2) for ever), and checked with fstat on the
 * descriptor itself, so a swap between a look and the open changes nothing.
 */
const AGENT_FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export type AgentFileRead =
  | { ok: true; text: string; bytes: number; truncated: boolean; stat: BigIntStats }
  | { ok: false; reason: string; stat?: BigIntStats };

export interface AgentFileOptions {
  /** The most bytes ever kept (memory stays bounded whatever the file is). */
  maxBytes: number;
  /** `refuse` (default): a larger file is not used at all; `truncate`: its head is. */
  tooLarge?: 'refuse' | 'truncate';
}

/**
 * Reads a file that an agent (or anything else) may have replaced with a FIFO, a
 * device, a directory, a link or something huge. Never throws, never blocks, never
 * reads more than `maxBytes + 1` bytes. `reason` is 'absent' when there is no file.
 */
export function readAgentFile(path: string, opts: AgentFileOptions): AgentFileRead {
  let fd: number;
  try {
    fd = openSync(path, AGENT_FILE_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, reason: 'absent' };
    if (code === 'ELOOP') return withLstat(path, 'a symlink');
    return { ok: false, reason: `unreadable (${code ?? 'error'})` };
  }
  try {
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile()) return { ok: false, reason: 'not a regular file', stat };
    // One byte past the cap tells "exactly the cap" from "more"; the size may change
    // while reading, the cap holds whatever it does. The buffer is sized by the file (a
    // 64 KiB zero-filled buffer per read cost more than the read) and grows if it grows;
    // only the bytes read are ever looked at.
    const cap = opts.maxBytes + 1;
    let buf = Buffer.allocUnsafe(Math.min(cap, Number(stat.size) + 1));
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (buf.length === cap) break;
        const bigger = Buffer.allocUnsafe(Math.min(cap, buf.length * 2));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    const truncated = n > opts.maxBytes;
    if (truncated && opts.tooLarge !== 'truncate') return { ok: false, reason: `larger than ${opts.maxBytes} bytes`, stat };
    const bytes = Math.min(n, opts.maxBytes);
    return { ok: true, text: buf.subarray(0, bytes).toString('utf8'), bytes, truncated, stat };
  } catch (err) {
    return { ok: false, reason: `unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    closeSync(fd);
  }
}

function withLstat(path: string, reason: string): AgentFileRead {
  try {
    return { ok: false, reason, stat: lstatSync(path, { bigint: true }) };
  } catch {
    return { ok: false, reason };
  }
}

/** The text of an agent file, or undefined for anything but a readable regular file. */
export function agentFileText(path: string, maxBytes: number, tooLarge: 'refuse' | 'truncate' = 'refuse'): string | undefined {
  const read = readAgentFile(path, { maxBytes, tooLarge });
  return read.ok ? read.text : undefined;
}
