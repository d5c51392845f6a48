import {
  BLANK, DEFAULT_COLOR, RGB_FLAG, blankGrid, sameAttrs, sameCell,
  FLAG_BLINK, FLAG_BOLD, FLAG_DIM, FLAG_INVERSE, FLAG_INVISIBLE, FLAG_ITALIC, FLAG_OVERLINE, FLAG_STRIKETHROUGH, FLAG_UNDERLINE,
  type Cell, type Grid,
} from './grid.js';

/** Synchronized output (DEC mode 2026): the terminal shows the frame whole or not at all. */
export const SYNC_BEGIN = '\x1b[?2026h';
export const SYNC_END = '\x1b[?2026l';
export const HIDE_CURSOR = '\x1b[?25l';
export const SHOW_CURSOR = '\x1b[?25h';
const RESET = '\x1b[0m';
/** Attributes reset first, so the clear paints the default background (no colour erase). */
const CLEAR = `${RESET}\x1b[H\x1b[2J`;

/**
 * Unchanged cells between two changed spans of a row are written again rather than jumped
 * over when the gap is this short: a cursor move (`ESC[yy;xxH`) costs about as much.
 */
const MERGE_GAP = 6;

export interface DiffOptions {
  /** Wrap the frame in synchronized-output marks (off for terminals that do not know them). */
  sync: boolean;
}

const FLAG_CODES: [number, number][] = [
  [FLAG_BOLD, 1], [FLAG_DIM, 2], [FLAG_ITALIC, 3], [FLAG_UNDERLINE, 4], [FLAG_BLINK, 5],
  [FLAG_INVERSE, 7], [FLAG_INVISIBLE, 8], [FLAG_STRIKETHROUGH, 9], [FLAG_OVERLINE, 53],
];

function colorCodes(color: number, base: number, bright: number, extended: number): string {
  if (color === DEFAULT_COLOR) return '';
  if (color & RGB_FLAG) return `;${extended};2;${(color >> 16) & 0xff};${(color >> 8) & 0xff};${color & 0xff}`;
  if (color < 8) return `;${base + color}`;
  if (color < 16) return `;${bright + color - 8}`;
  return `;${extended};5;${color}`;
}

/** The SGR that sets exactly these attributes (from a reset, so nothing carries over). */
export function sgrFor(cell: Cell): string {
  let s = '\x1b[0';
  for (const [flag, code] of FLAG_CODES) if (cell.flags & flag) s += `;${code}`;
  s += colorCodes(cell.fg, 30, 90, 38);
  s += colorCodes(cell.bg, 40, 100, 48);
  return `${s}m`;
}

function cup(y: number, x: number): string {
  return x === 0 ? `\x1b[${y + 1}H` : `\x1b[${y + 1};${x + 1}H`;
}

/**
 * Which columns of row y must be written (1 in `changed`): the cells that differ, widened
 * so a wide character (in the old or the new row) is never written or overwritten by half.
 * `changed` is scratch space reused for every row (a clock's tick diffs twenty rows a second).
 */
function markChangedColumns(prev: Cell[], next: Cell[], cols: number, changed: Uint8Array): void {
  for (let x = 0; x < cols; x++) changed[x] = sameCell(prev[x] ?? BLANK, next[x] ?? BLANK) ? 0 : 1;
  const rows = [prev, next];
  for (let grew = true; grew;) {
    grew = false;
    for (let x = 0; x < cols; x++) {
      if (!changed[x]) continue;
      for (const row of rows) {
        const w = (row[x] ?? BLANK).width;
        const partner = w === 2 ? x + 1 : w === 0 ? x - 1 : -1;
        if (partner >= 0 && partner < cols && !changed[partner]) {
          changed[partner] = 1;
          grew = true;
        }
      }
    }
  }
}

/** Spans [start, end) of the first `cols` changed columns, close spans merged. */
function spans(changed: Uint8Array, cols: number): [number, number][] {
  const out: [number, number][] = [];
  for (let x = 0; x < cols; x++) {
    if (!changed[x]) continue;
    let end = x;
    while (end < cols && changed[end]) end++;
    const last = out[out.length - 1];
    if (last && x - last[1] <= MERGE_GAP) last[1] = end;
    else out.push([x, end]);
    x = end;
  }
  return out;
}

let scratch = new Uint8Array(256);

/** The bytes that turn `prev` (what the terminal shows) into `next`: moves, SGR and cells only. */
function cellUpdates(prev: Grid, next: Grid): string {
  let out = '';
  let pen: Cell = BLANK;
  for (let y = 0; y < next.rows; y++) {
    const p = prev.cells[y] ?? [];
    const n = next.cells[y] ?? [];
    if (p === n) continue; // rows are never changed in place: the same array is the same row
    if (scratch.length < next.cols) scratch = new Uint8Array(next.cols);
    markChangedColumns(p, n, next.cols, scratch);
    for (const [start, end] of spans(scratch, next.cols)) {
      out += cup(y, start);
      for (let x = start; x < end; x++) {
        const cell = n[x] ?? BLANK;
        if (cell.width === 0) continue; // drawn with its first half
        if (!sameAttrs(cell, pen)) {
          out += sgrFor(cell);
          pen = cell;
        }
        out += cell.chars;
      }
    }
  }
  if (!sameAttrs(pen, BLANK)) out += RESET;
  return out;
}

/**
 * The bytes that bring a terminal showing `prev` to `next`. Without `prev` (first frame,
 * after a resize or after something else drew on the terminal) the screen is cleared and
 * every non-blank cell drawn. An empty string when nothing changed.
 */
export function diffFrames(prev: Grid | undefined, next: Grid, opts: DiffOptions): string {
  const full = !prev || prev.cols !== next.cols || prev.rows !== next.rows;
  const body = full ? CLEAR + HIDE_CURSOR + cellUpdates(blankGrid(next.cols, next.rows), next) : cellUpdates(prev, next);
  if (body === '') return '';
  return synced(body, opts);
}

/**
 * A whole frame from a program's own bytes (written for a blank screen with the cursor
 * home), over whatever the terminal showed: cleared first, the scroll region reset. '\n'
 * becomes CR LF, as a tty's onlcr (and the model's convertEol) makes it.
 */
export function programFrame(bytes: string, opts: DiffOptions): string {
  return synced(`\x1b[r${CLEAR}${HIDE_CURSOR}${bytes.replace(/\r?\n/g, '\r\n')}`, opts);
}

function synced(body: string, opts: DiffOptions): string {
  return opts.sync ? SYNC_BEGIN + body + SYNC_END : body;
}
