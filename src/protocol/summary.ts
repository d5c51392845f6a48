import { closeSync, fstatSync, openSync, readSync, constants } from 'node:fs';
import { join } from 'node:path';
import { printable } from '../format/event.js';

/** Enough for the head of any summary; a huge file is not read whole for a glance. */
const SUMMARY_READ_BYTES = 16 * 1024;

/**
 * The first `maxLines` non-blank lines of a module's `.summary.md` (SPEC 2.3), made
 * printable; empty when there is none. A symlink is not followed: the file is display
 * only, and a link could point anywhere.
 */
export function readSummaryHead(taskDir: string, maxLines: number): string[] {
  let fd: number | undefined;
  try {
    fd = openSync(join(taskDir, '.summary.md'), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return [];
    const buf = Buffer.alloc(SUMMARY_READ_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8').split(/\r?\n/).map((l) => printable(l.trimEnd())).filter((l) => l !== '').slice(0, maxLines);
  } catch {
    return [];
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
