import { mkdirSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { removeIfPresent, writeFileAtomic } from '../protocol/atomic.js';
import { MAX_SIGNAL_BYTES, SIGNAL_FILE, SIGNAL_TMP_FILE, writeSignalFile, type Signal } from '../protocol/signal.js';
import type { InvalidKind } from './scenario.js';

/** Where a `symlink` invalid signal points: a valid-looking signal the reader must still refuse. */
export const SYMLINK_TARGET = join('.working', '.sim-symlink-target.json');

export function signalText(signal: Signal): string {
  return `${JSON.stringify(signal)}\n`;
}

/** The text of an invalid signal of one kind, built from the valid one it precedes. Pure. */
export function invalidSignalText(kind: Exclude<InvalidKind, 'symlink'>, signal: Signal): string {
  switch (kind) {
    case 'not-json': return signalText(signal).slice(0, 20); // a write cut short
    case 'bad-step': return signalText({ ...signal, step: 'deploy' as Signal['step'] });
    case 'oversized': return `${JSON.stringify({ ...signal, padding: 'x'.repeat(MAX_SIGNAL_BYTES) })}\n`;
    case 'missing-field': {
      const { next: _dropped, ...rest } = signal;
      return `${JSON.stringify(rest)}\n`;
    }
  }
}

/** Writes `.auto-signal` atomically through `.auto-signal.tmp`. */
export function writeSignal(taskDir: string, signal: Signal): void {
  writeSignalFile(taskDir, signal);
}

/** Puts an invalid `.auto-signal` in place, atomically too, so a reader sees it whole. */
export function writeInvalidSignal(taskDir: string, kind: InvalidKind, signal: Signal): void {
  if (kind !== 'symlink') {
    writeFileAtomic(join(taskDir, SIGNAL_FILE), invalidSignalText(kind, signal), SIGNAL_TMP_FILE);
    return;
  }
  mkdirSync(join(taskDir, '.working'), { recursive: true });
  writeFileAtomic(join(taskDir, SYMLINK_TARGET), signalText(signal));
  const tmp = join(taskDir, SIGNAL_TMP_FILE);
  removeIfPresent(tmp);
  symlinkSync(SYMLINK_TARGET, tmp); // relative, so the link stays inside the task folder
  renameSync(tmp, join(taskDir, SIGNAL_FILE));
}
