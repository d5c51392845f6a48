import { createRequire } from 'node:module';
import type whichModule from 'which';

// Modules loaded on first use, not as the program starts: the dashboard's first frame,
// `status` and the hooks do not wait for them (docs/performance.md, start-up). A require
// made through createRequire is left alone by the bundler and runs when called.
const require = createRequire(import.meta.url);

export const which = (): typeof whichModule => require('which') as typeof whichModule;
export const shellQuote = (): typeof import('shell-quote') => require('shell-quote') as typeof import('shell-quote');
// The terminal emulators: the frame writer's model is made once the first frame is out, an
// agent's only when its loop starts.
export const xterm = (): typeof import('@xterm/headless') => require('@xterm/headless') as typeof import('@xterm/headless');
export const xtermUnicode11 = (): typeof import('@xterm/addon-unicode11') => require('@xterm/addon-unicode11') as typeof import('@xterm/addon-unicode11');
export const xtermSerialize = (): typeof import('@xterm/addon-serialize') => require('@xterm/addon-serialize') as typeof import('@xterm/addon-serialize');
// The pseudo-terminals' native module: only once a loop starts in one.
export const nodePty = (): typeof import('node-pty') => require('node-pty') as typeof import('node-pty');
export const chokidar = (): typeof import('chokidar') => require('chokidar') as typeof import('chokidar');
export const childProcess = (): typeof import('node:child_process') => require('node:child_process') as typeof import('node:child_process');
const crypto = (): typeof import('node:crypto') => require('node:crypto') as typeof import('node:crypto');

/** The SHA-1 of `text` in hex: a screen's fingerprint, not a secret. */
export function sha1Hex(text: string): string {
  return crypto().createHash('sha1').update(text).digest('hex');
}
