/** Named widths (SPEC 7): full table, fewer columns, a tmux side pane. */
export type Breakpoint = 'wide' | 'normal' | 'side';

export const WIDE_MIN_COLUMNS = 100;
export const NORMAL_MIN_COLUMNS = 60;

export function breakpointFor(columns: number): Breakpoint {
  if (columns >= WIDE_MIN_COLUMNS) return 'wide';
  if (columns >= NORMAL_MIN_COLUMNS) return 'normal';
  return 'side';
}

export type ColumnId = 'name' | 'state' | 'iteration' | 'step' | 'elapsed' | 'stalls' | 'recoveries' | 'lastSignal';

export interface Column {
  id: ColumnId;
  title: string;
  /** Columns taken, a one-column gap included; undefined: shares what is left (name, step). */
  width?: number;
}

const TITLES: Record<ColumnId, string> = {
  name: 'MODULE', state: 'STATE', iteration: 'ITER', step: 'STEP', elapsed: 'ELAPSED', stalls: 'STALL', recoveries: 'RECOV', lastSignal: 'SIGNAL',
};

// Widths fit the longest usual value: `‖ suspended`, `100/1000`, `1:02:03/24h`, `2/10 of 10`.
// At 40 columns the side pane keeps ten for the name; the rest is fixed.
const BY_BREAKPOINT: Record<Breakpoint, [ColumnId, number?][]> = {
  wide: [['name'], ['state', 12], ['iteration', 9], ['step'], ['elapsed', 13], ['stalls', 8], ['recoveries', 11], ['lastSignal', 7]],
  normal: [['name'], ['state', 11], ['iteration', 7], ['step'], ['elapsed', 12], ['stalls', 7]],
  side: [['name'], ['state', 11], ['iteration', 7], ['elapsed', 10]],
};

/** The table's columns at this width. */
export function columnsFor(breakpoint: Breakpoint): Column[] {
  return BY_BREAKPOINT[breakpoint].map(([id, width]) => (width === undefined ? { id, title: TITLES[id] } : { id, title: TITLES[id], width }));
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
