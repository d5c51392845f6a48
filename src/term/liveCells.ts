import { BLANK, type Cell, type Grid } from './grid.js';

/**
 * A block of text on screen that moves with time alone (the table's elapsed clocks, "5s
 * ago"): lines of one column, `width` cells each, at (x, y). The frame writer keeps it
 * current between Ink's frames, so a tick of the clocks costs no React render and no Ink
 * frame, only the cells that changed.
 */
export interface LiveBlock {
  x: number;
  y: number;
  width: number;
  /** What Ink drew there, one string per line. */
  drawn: readonly string[];
  /** What is true now. */
  lines: readonly string[];
}

/** Where the frame writer gets its live blocks from (the dashboard's table). */
export interface LiveCells {
  /** The blocks at `now`, placed as in Ink's last frame. */
  blocks(now: number): readonly LiveBlock[];
  /** Whether any block can change with time alone: the writer ticks only then. */
  ticking(): boolean;
  /** A block that cannot be drawn over Ink's frame (not where it should be, or not plain text): Ink must draw. */
  redraw(): void;
  /** Tells the writer (`listener`) when blocks changed other than by time: draw them now. */
  setOnChange?(listener: (() => void) | undefined): void;
}

/** Text the overlay can place cell by cell: one cell per character, no controls. */
const PLAIN = /^[\x20-\x7e\u00a0-\u02ff\u2010-\u2027\u2030-\u205e\u2500-\u259f]*$/;

/** The text of `width` cells of a row from `x`, trailing blanks dropped (wide characters read once). */
export function cellsText(row: readonly Cell[], x: number, width: number): string {
  let text = '';
  for (let i = x; i < x + width && i < row.length; i++) text += row[i]!.chars;
  return text.trimEnd();
}

/**
 * `frame` with every block's current lines drawn in, and whether some block could not be
 * (then it is left as Ink drew it, and Ink must draw again). A block is drawn only where the
 * frame shows exactly what Ink was given for it, so a frame in between (a dialog over the
 * table, a layout that moved) is never written over. Each line keeps the style Ink gave
 * its text; the cells after the text are blank, as Ink pads a box.
 */
export function overlayBlocks(frame: Grid, blocks: readonly LiveBlock[]): { grid: Grid; stale: boolean } {
  let stale = false;
  let cells: Cell[][] | undefined;
  for (const b of blocks) {
    const patch = patchOf(frame, b);
    if (patch === 'stale') {
      stale = true;
      continue;
    }
    for (const [i, line] of patch) {
      cells ??= frame.cells.slice();
      const y = b.y + i;
      const row = (cells[y] = cells[y] === frame.cells[y] ? frame.cells[y]!.slice() : cells[y]!);
      for (let j = 0; j < b.width; j++) row[b.x + j] = line[j]!;
    }
  }
  return { grid: cells ? { cols: frame.cols, rows: frame.rows, cells } : frame, stale };
}

/** A block's cells over a frame, by line index (lines that differ from Ink's only), or 'stale': Ink must draw. */
type Patch = Map<number, readonly Cell[]> | 'stale';

/**
 * The patches last worked out, by the block's lines array: the columns time does not move
 * keep their lines array from tick to tick, and their patch with it (no text compared again).
 */
const patches = new WeakMap<readonly string[], { frame: Grid; block: LiveBlock; patch: Patch }>();

function patchOf(frame: Grid, b: LiveBlock): Patch {
  const known = patches.get(b.lines);
  if (known && known.frame === frame && known.block.drawn === b.drawn && known.block.x === b.x && known.block.y === b.y && known.block.width === b.width) {
    return known.patch;
  }
  const patch = makePatch(frame, b);
  patches.set(b.lines, { frame, block: b, patch });
  return patch;
}

function makePatch(frame: Grid, b: LiveBlock): Patch {
  const out = new Map<number, readonly Cell[]>();
  if (b.lines.length !== b.drawn.length) return 'stale';
  if (b.lines.every((l, i) => l === b.drawn[i])) return out;
  if (!fits(frame, b)) return 'stale';
  for (let i = 0; i < b.lines.length; i++) {
    const line = b.lines[i]!.trimEnd();
    if (line === b.drawn[i]!.trimEnd()) continue;
    const style = frame.cells[b.y + i]![b.x]!;
    const cells = new Array<Cell>(b.width); // its size at once: this runs for every clock each second
    for (let j = 0; j < b.width; j++) {
      const ch = line[j];
      cells[j] = ch === undefined ? BLANK : styledCell(style, ch);
    }
    out.set(i, cells);
  }
  return out;
}

/**
 * Cells of one style (a cell of Ink's frame), by character: each tick of the clocks draws
 * the same few digits in the same styles again, and the frame's cells live until Ink's
 * next frame, so the cells are made once, not every second (less garbage to collect).
 */
const byStyle = new WeakMap<Cell, Map<string, Cell>>();

function styledCell(style: Cell, ch: string): Cell {
  let cells = byStyle.get(style);
  if (!cells) byStyle.set(style, (cells = new Map()));
  let cell = cells.get(ch);
  if (!cell) cells.set(ch, (cell = { chars: ch, width: 1, fg: style.fg, bg: style.bg, flags: style.flags }));
  return cell;
}

/** Whether the frame shows the block where it says, and its new lines can be placed cell by cell. */
function fits(frame: Grid, b: LiveBlock): boolean {
  if (b.x < 0 || b.y < 0 || b.x + b.width > frame.cols || b.y + b.lines.length > frame.rows) return false;
  return b.lines.every((line, i) => {
    const drawn = b.drawn[i]!.trimEnd();
    const now = line.trimEnd();
    if (now === drawn) return cellsText(frame.cells[b.y + i]!, b.x, b.width) === drawn;
    // An empty cell has no style to keep; a longer text, or one of wide or control characters, needs Ink.
    return drawn !== '' && now.length <= b.width && PLAIN.test(now) && PLAIN.test(drawn)
      && cellsText(frame.cells[b.y + i]!, b.x, b.width) === drawn;
  });
}
