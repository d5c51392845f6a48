import { join } from 'node:path';
import { printable } from '../format/event.js';
import { agentFileText } from './safeRead.js';

/** Enough for the head of any summary; a huge file is not read whole for a glance. */
const SUMMARY_READ_BYTES = 16 * 1024;

/**
 * The first `maxLines` non-blank lines of a module's `.summary.md`, made
 * printable; empty when there is none. A symlink is not followed: the file is display
 * only, and a link could point anywhere.
 */
export function readSummaryHead(taskDir: string, maxLines: number): string[] {
  const text = agentFileText(join(taskDir, '.summary.md'), SUMMARY_READ_BYTES, 'truncate') ?? '';
  return text.split(/\r?\n/).map((l) => printable(l.trimEnd())).filter((l) => l !== '').slice(0, maxLines);
}
