import type { IBuffer, IBufferCell } from '@xterm/headless';

/**
 * One screen cell as a person sees it: its text (a base character plus any combining
 * marks; ' ' for an empty cell), its width (2 for the first half of a wide character,
 * 0 for the second half, 1 otherwise) and its attributes.
 */
export interface Cell {
  chars: string;
  width: number;
  /** DEFAULT_COLOR, a palette index 0-255, or RGB_FLAG | 0xRRGGBB. */
  fg: number;
  bg: number;
  /** A bit set of the FLAG_* attributes. */
  flags: number;
}

/** The visible screen: rows of cells, each row exactly `cols` long. */
export interface Grid {
  cols: number;
  rows: number;
  cells: Cell[][];
}

export const DEFAULT_COLOR = -1;
export const RGB_FLAG = 0x1000000;

export const FLAG_BOLD = 1;
export const FLAG_DIM = 2;
export const FLAG_ITALIC = 4;
export const FLAG_UNDERLINE = 8;
export const FLAG_BLINK = 16;
export const FLAG_INVERSE = 32;
export const FLAG_INVISIBLE = 64;
export const FLAG_STRIKETHROUGH = 128;
export const FLAG_OVERLINE = 256;

export const BLANK: Readonly<Cell> = Object.freeze({ chars: ' ', width: 1, fg: DEFAULT_COLOR, bg: DEFAULT_COLOR, flags: 0 });

export function sameCell(a: Cell, b: Cell): boolean {
  return a.chars === b.chars && a.width === b.width && a.fg === b.fg && a.bg === b.bg && a.flags === b.flags;
}

export function sameAttrs(a: Cell, b: Cell): boolean {
  return a.fg === b.fg && a.bg === b.bg && a.flags === b.flags;
}

/** A screen of blank cells (what a terminal shows after clearing with default attributes). */
export function blankGrid(cols: number, rows: number): Grid {
  const cells: Cell[][] = [];
  for (let y = 0; y < rows; y++) cells.push(Array.from({ length: cols }, () => BLANK));
  return { cols, rows, cells };
}

function colorOf(mode: 'fg' | 'bg', cell: IBufferCell): number {
  if (mode === 'fg') {
    if (cell.isFgDefault()) return DEFAULT_COLOR;
    return cell.isFgRGB() ? RGB_FLAG | cell.getFgColor() : cell.getFgColor();
  }
  if (cell.isBgDefault()) return DEFAULT_COLOR;
  return cell.isBgRGB() ? RGB_FLAG | cell.getBgColor() : cell.getBgColor();
}

function flagsOf(cell: IBufferCell): number {
  let f = 0;
  if (cell.isBold()) f |= FLAG_BOLD;
  if (cell.isDim()) f |= FLAG_DIM;
  if (cell.isItalic()) f |= FLAG_ITALIC;
  if (cell.isUnderline()) f |= FLAG_UNDERLINE;
  if (cell.isBlink()) f |= FLAG_BLINK;
  if (cell.isInverse()) f |= FLAG_INVERSE;
  if (cell.isInvisible()) f |= FLAG_INVISIBLE;
  if (cell.isStrikethrough()) f |= FLAG_STRIKETHROUGH;
  if (cell.isOverline()) f |= FLAG_OVERLINE;
  return f;
}

/**
 * The visible screen of an xterm buffer (the viewport), cell by cell. Given the grid it
 * made last (`previous`, of the same size), cells and rows that did not change are that
 * grid's own objects: an Ink frame changes a few rows of fifty, and a row that is the same
 * array is skipped by the frame diff (and costs no memory).
 */
export function gridOfBuffer(buffer: IBuffer, cols: number, rows: number, previous?: Grid): Grid {
  const before = previous && previous.cols === cols && previous.rows === rows ? previous.cells : undefined;
  const cells: Cell[][] = [];
  let scratch: IBufferCell | undefined;
  for (let y = 0; y < rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    const old = before?.[y];
    // Made only from the first cell that differs from the old row's (until then, the old row is the row).
    let row: Cell[] | undefined = old ? undefined : [];
    for (let x = 0; x < cols; x++) {
      scratch = line?.getCell(x, scratch);
      const cell = scratch ? cellOf(scratch, old?.[x]) : BLANK;
      if (row) row.push(cell);
      else if (cell !== old![x]) (row = old!.slice(0, x)).push(cell);
    }
    cells.push(row ?? old!);
  }
  return { cols, rows, cells };
}

/** One buffer cell as a Cell: `reuse` when it says the same, the shared BLANK for a default blank. */
function cellOf(scratch: IBufferCell, reuse: Cell | undefined): Cell {
  const width = scratch.getWidth();
  const fg = colorOf('fg', scratch);
  const bg = colorOf('bg', scratch);
  const flags = flagsOf(scratch);
  const chars = width === 0 ? '' : scratch.getChars() || ' ';
  // Most cells of a dashboard are default blanks: share one object for them.
  if (chars === ' ' && width === 1 && fg === DEFAULT_COLOR && bg === DEFAULT_COLOR && flags === 0) return BLANK;
  if (reuse && reuse.chars === chars && reuse.width === width && reuse.fg === fg && reuse.bg === bg && reuse.flags === flags) return reuse;
  return { chars, width, fg, bg, flags };
}

/** The screen's text, one line per row, trailing blanks dropped (as `tmux capture-pane -p` prints it). */
export function gridText(grid: Grid): string {
  return grid.cells.map((row) => row.map((c) => c.chars).join('').replace(/ +$/, '')).join('\n');
}
