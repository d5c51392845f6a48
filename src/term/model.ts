import type { Terminal } from '@xterm/headless';
import { xterm, xtermUnicode11 } from '../lazy.js';

export type ModelTerminal = Terminal;

/**
 * A headless xterm that measures characters as Ink (string-width) and tmux do: Unicode 11
 * widths, so an emoji takes two cells (xterm's default, Unicode 6, gives it one).
 */
export function modelTerminal(cols: number, rows: number): ModelTerminal {
  // convertEol: Ink writes '\n' and relies on the tty driver's onlcr for the carriage return.
  const term = new (xterm().Terminal)({ cols, rows, scrollback: 0, allowProposedApi: true, convertEol: true });
  term.loadAddon(new (xtermUnicode11().Unicode11Addon)());
  term.unicode.activeVersion = '11';
  return term;
}
