import { escapeTmuxArg, escapeTmuxFormat } from '../sessions/tmuxCommand.js';
import { cleanText } from './text.js';

/** The terminal bell. Inside tmux it needs no passthrough: tmux turns it into its own bell/activity. */
export const BELL = '\x07';

/**
 * A DCS passthrough for tmux: the sequence reaches the terminal outside tmux, with every
 * ESC inside doubled. tmux only lets it through with `set -g allow-passthrough on`
 * (tmux 3.3+); without it, tmux drops it silently.
 */
export function tmuxPassthrough(sequence: string): string {
  return `\x1bPtmux;${sequence.replaceAll('\x1b', '\x1b\x1b')}\x1b\\`;
}

/**
 * OSC 9 (a desktop notification in iTerm2, WezTerm, kitty, foot, Windows Terminal, ghostty…):
 * `ESC ] 9 ; TEXT BEL`. The text is cleaned of every control character, so nothing in it
 * can end the sequence early. `inTmux`: wrapped in tmux passthrough.
 */
export function osc9(text: string, inTmux: boolean): string {
  const sequence = `\x1b]9;${cleanText(text)}\x07`;
  return inTmux ? tmuxPassthrough(sequence) : sequence;
}

/**
 * `tmux display-message -- TEXT` as argv, for execFile (never a shell). No `-L`/`-S`: it
 * goes to the user's own tmux server, found through $TMUX, never autodeck's private one.
 * tmux expands the message as a format (`#(cmd)` would run a command), so `#` is doubled;
 * and a word ending in `;` would end the tmux command, so that one is escaped.
 */
export function tmuxDisplayArgv(text: string): string[] {
  return ['tmux', 'display-message', '--', escapeTmuxArg(escapeTmuxFormat(cleanText(text)))];
}
