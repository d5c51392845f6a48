import { childProcess } from '../lazy.js';

const TMUX_TIMEOUT_MS = 5_000;

/**
 * Runs a tmux argv (`['tmux', ...args]`) without a shell, in autodeck's own environment
 * (so $TMUX picks the user's server), and forgets it: a notification that cannot be shown
 * is not worth an error.
 */
export function runUserTmux(argv: readonly string[]): void {
  const [program, ...args] = argv;
  if (!program) return;
  try {
    const child = childProcess().execFile(program, args, { timeout: TMUX_TIMEOUT_MS, windowsHide: true }, () => { /* errors swallowed */ });
    child.on('error', () => { /* tmux not installed: swallowed */ });
    child.stdin?.end();
  } catch { /* spawn failed synchronously: swallowed */ }
}
