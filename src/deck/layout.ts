import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';

/** Named widths: full table, fewer columns, a tmux side pane. */
export type Breakpoint = 'wide' | 'normal' | 'side';

export const WIDE_MIN_COLUMNS = 100;
export const NORMAL_MIN_COLUMNS = 60;

export function breakpointFor(columns: number): Breakpoint {
  if (columns >= WIDE_MIN_COLUMNS) return 'wide';
  if (columns >= NORMAL_MIN_COLUMNS) return 'normal';
  return 'side';
}

export type ColumnId = 'name' | 'state' | 'iteration' | 'step' | 'elapsed' | 'stalls' | 'recoveries' | 'lastSignal' | 'spend' | 'ctx';

export interface Column {
  id: ColumnId;
  title: string;
  /** Columns taken, a one-column gap included; undefined: shares what is left (name, step). */
  width?: number;
  /** Cells of a progress bar before the text (iterations, elapsed time), in the wide layout. */
  bar?: number;
}

const TITLES: Record<ColumnId, string> = {
  name: 'MODULE', state: 'STATE', iteration: 'ITER', step: 'STEP', elapsed: 'ELAPSED', stalls: 'STALL', recoveries: 'RECOV', lastSignal: 'LAST',
  spend: 'TOKENS/$', ctx: 'CTX',
};

// Widths fit the longest usual value: `‖ suspended`, `100/1000`, `1:02:03/24h`, `2/10 of 10`,
// `just now`; wide, a bar of five cells and a space before iterations and elapsed time.
// At 40 columns the side pane keeps ten for the name; the rest is fixed.
export const BAR_CELLS = 5;
const BY_BREAKPOINT: Record<Breakpoint, [ColumnId, number?][]> = {
  wide: [['name'], ['state', 12], ['iteration', 9 + BAR_CELLS + 1], ['step'], ['elapsed', 13 + BAR_CELLS + 1], ['stalls', 8], ['recoveries', 11], ['lastSignal', 9]],
  // state: 12 holds `? needs you` and its gap; a side pane cuts it
  normal: [['name'], ['state', 12], ['iteration', 7], ['step'], ['elapsed', 12], ['stalls', 7]],
  side: [['name'], ['state', 11], ['iteration', 7], ['elapsed', 10]],
};

const WITH_BAR = new Set<ColumnId>(['iteration', 'elapsed']);

const COLUMNS = Object.fromEntries(Object.entries(BY_BREAKPOINT).map(([b, list]) => [
  b, Object.freeze(list.map(([id, width]): Column => {
    if (width === undefined) return { id, title: TITLES[id] };
    return b === 'wide' && WITH_BAR.has(id) ? { id, title: TITLES[id], width, bar: BAR_CELLS } : { id, title: TITLES[id], width };
  })),
])) as Record<Breakpoint, readonly Column[]>;

/**
 * The wide layout's spend columns (`12.3k $0.41`, `85%`) need this many terminal columns
 * more: below it the name and step would be squeezed under ten columns each.
 */
export const WIDE_SPEND_MIN_COLUMNS = 130;
const SPEND_COLUMNS: readonly Column[] = [{ id: 'spend', title: TITLES.spend, width: 12 }, { id: 'ctx', title: TITLES.ctx, width: 5 }];
/** The wide columns with tokens/$ and ctx % after the step. */
const WIDE_WITH_SPEND: readonly Column[] = Object.freeze((() => {
  const wide = COLUMNS.wide;
  const at = wide.findIndex((c) => c.id === 'step') + 1;
  return [...wide.slice(0, at), ...SPEND_COLUMNS, ...wide.slice(at)];
})());

/**
 * The table's columns at this width: the same array each time, so memoised rows stay
 * memoised. `width` (terminal columns) adds the spend columns to a wide enough table.
 */
export function columnsFor(breakpoint: Breakpoint, width?: number): readonly Column[] {
  if (breakpoint === 'wide' && width !== undefined && width >= WIDE_SPEND_MIN_COLUMNS) return WIDE_WITH_SPEND;
  return COLUMNS[breakpoint];
}

/**
 * The rows of a list that fit, keeping `selected` in view: the window starts where it
 * must so the selection is visible, as near the previous start as possible.
 */
export function visibleWindow(total: number, selected: number, capacity: number, previousStart = 0): { start: number; end: number } {
  const cap = Math.max(1, capacity);
  if (total <= cap) return { start: 0, end: total };
  let start = Math.min(Math.max(0, previousStart), total - cap);
  if (selected < start) start = selected;
  if (selected >= start + cap) start = selected - cap + 1;
  return { start, end: start + cap };
}

/** The selection mark before each row (`› `). */
export const MARK_WIDTH = 2;
/** A shared column (name, step) never gets less than this. */
const MIN_SHARED_WIDTH = 6;

/**
 * Each column's width at this terminal width, its one-column gap included: fixed columns
 * as declared, the shared ones splitting what is left (the first takes the odd column).
 * Computed here rather than by flexbox so a row can be one line of text.
 */
export function columnWidths(columns: readonly Column[], width: number): number[] {
  const fixed = columns.reduce((n, c) => n + (c.width ?? 0), 0);
  const shared = columns.filter((c) => c.width === undefined).length;
  const left = Math.max(0, width - MARK_WIDTH - fixed);
  const each = shared > 0 ? Math.floor(left / shared) : 0;
  let odd = shared > 0 ? left - each * shared : 0;
  return columns.map((c) => {
    if (c.width !== undefined) return c.width;
    const w = each + odd;
    odd = 0;
    return Math.max(MIN_SHARED_WIDTH, w);
  });
}

/**
 * Whether the table is wider than the terminal (below about 40 columns): only then does
 * the screen clip sideways, since clipping every line of every frame costs more than the
 * rest of drawing it.
 */
export function tableOverflows(columns: readonly Column[], width: number): boolean {
  return MARK_WIDTH + columnWidths(columns, width).reduce((n, w) => n + w, 0) > width;
}

/**
 * `text` made exactly `width` terminal columns: cut with an ellipsis to leave the last
 * column as the gap, then padded. Wide characters count double, as the terminal draws them.
 */
export function fitCell(text: string, width: number): string {
  const cut = cutCell(text, width);
  return cut + ' '.repeat(Math.max(0, width - cellWidth(cut)));
}

// Most cells are printable ASCII and the table's own glyphs (state marks, bar blocks), each
// one column and one UTF-16 unit: measured and cut by length, skipping the Unicode tables
// (every cell of every row is cut on each clock tick, to see whether its row changed).
export const NARROW = /^[\x20-\x7e\u00b7\u2013\u2016\u2026\u203a\u2197\u2500-\u259f\u25a0\u25b6\u25cb\u2713\u2717]*$/;

/** Terminal columns `text` takes. */
export function cellWidth(text: string): number {
  return NARROW.test(text) ? text.length : stringWidth(text);
}

/** `text` cut with an ellipsis to fit a column of `width`, leaving its last column as the gap. */
export function cutCell(text: string, width: number): string {
  if (width <= 1) return '';
  if (!NARROW.test(text)) return cliTruncate(text, width - 1);
  return text.length <= width - 1 ? text : `${text.slice(0, width - 2)}…`;
}
