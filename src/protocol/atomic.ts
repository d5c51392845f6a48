import { writeFileSync, renameSync, unlinkSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';

/**
 * Writes a file atomically: a temporary file in the same folder, then a rename, so a
 * reader sees the old content or the new, never half of it.
 */
export function writeFileAtomic(path: string, content: string, tmpName?: string): void {
  const tmp = join(dirname(path), tmpName ?? `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    writeFileSync(tmp, content, { mode: 0o644 });
    renameSync(tmp, path);
  } catch (err) {
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw err;
  }
}

/** Removes a file; a file that is already gone is fine. */
export function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
