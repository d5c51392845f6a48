/**
 * Text a TUI drew inside a box, taken back whole: the box found by its corners, its rows
 * cut out at the box's columns (a box inside another's, as Gemini CLI draws a command inside
 * its dialog), and the rows it wrapped joined again. Pure.
 */

export interface BoxText {
  /** The box's content rows, borders and padding cut off, trailing spaces trimmed. */
  rows: string[];
  /** How many columns the content has (the box's inner width less its padding). */
  width: number;
  /** The box's top row (its `╭` line), in `lines`; its first row on the screen when `cut`. */
  top: number;
  /** The box's top is off the screen: its first rows are missing. */
  cut: boolean;
}

/** The box whose bottom edge is the last `╰───╯` above line `before` (within `within` lines). */
export function boxAbove(lines: readonly string[], before: number, within = 3): BoxText | undefined {
  for (let b = before - 1; b >= 0 && before - b <= within; b--) {
    const m = /╰─+╯/.exec(lines[b]!);
    if (!m) continue;
    const left = m.index;
    const right = left + m[0].length - 1;
    const rowsFrom = (t: number) => lines.slice(t, b).map((l) => l.slice(left + 1, right).replace(/^ /, '').replace(/\s+$/, ''));
    for (let t = b - 1; t >= 0; t--) {
      const line = lines[t]!;
      if (line[left] === '╭' && line[right] === '╮') return { rows: rowsFrom(t + 1), width: right - left - 3, top: t, cut: false };
      // a row of this box keeps its side borders; anything else means its top is off the screen
      if (line[left] !== '│' || line[right] !== '│') return { rows: rowsFrom(t + 1), width: right - left - 3, top: t + 1, cut: true };
    }
    return { rows: rowsFrom(0), width: right - left - 3, top: 0, cut: true };
  }
  return undefined;
}

/**
 * Rows word-wrapped at `width` joined back: a row continues the one above when the next
 * row's first word could not have fitted on it (a wrap); otherwise the break was the
 * text's own newline. A row filled to the width was cut inside a word.
 */
export function unwrap(rows: readonly string[], width: number): string {
  let out = '';
  let prev: string | undefined;
  for (const row of rows) {
    if (prev === undefined) {
      out = row;
    } else {
      const word = row.trimStart().split(/\s/)[0] ?? '';
      if (prev.length >= width) out += row;
      else if (prev.length + 1 + word.length > width && row !== '' && !/^\s/.test(row)) out += ` ${row}`;
      else out += `\n${row}`;
    }
    prev = row;
  }
  return out;
}
