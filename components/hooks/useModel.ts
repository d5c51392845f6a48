import { createContext, useCallback, useContext, useRef, useSyncExternalStore } from 'react';
import type { DashboardModel } from '../../src/deck/model.js';
import type { DeckRow, DeckSnapshot } from '../../src/deck/deck.js';
import { sameVisibleRows, type CellLimits } from '../../src/deck/cells.js';
import { plainRowsChange } from '../../src/deck/plainChange.js';
import type { LiveColumns } from './liveColumns.js';

export const ModelContext = createContext<DashboardModel | undefined>(undefined);

export function useModel(): DashboardModel {
  const model = useContext(ModelContext);
  if (!model) throw new Error('useModel outside a ModelContext provider');
  return model;
}

/**
 * A slice of the deck's snapshot. The selector must return something the snapshot
 * holds (a row, the rows array), not a new object: then a component re-renders only
 * when its slice changed, since unchanged rows keep their identity.
 */
export function useDeck<T>(selector: (snapshot: DeckSnapshot) => T): T {
  const model = useModel();
  return useSyncExternalStore(model.subscribe, () => selector(model.getSnapshot()));
}

/** Plain changes of rows left to the frame writer: its live cells, and the selected row (which React must draw). */
export interface PlainRows {
  live: LiveColumns;
  /** The selected module's key; undefined: the first row. */
  pinned: string | undefined;
}

const pinnedKey = (rows: readonly DeckRow[], pinned: string | undefined): string | undefined =>
  pinned !== undefined && rows.some((r) => r.key === pinned) ? pinned : rows[0]?.key;

/**
 * The deck's rows, kept as they were while a change moved nothing a cell shows: heartbeat
 * bookkeeping (capture hashes, lease times, a spend figure no column shows) causes no
 * render. Compared at the time of the change, so a change the clock would show is taken.
 *
 * With `plain` (the dashboard), a change of plain cells only (a step, an iteration, a
 * signal's age: src/deck/plainChange.ts) of a row other than the selected one is no render
 * either: the rows stay as React drew them and the frame writer draws the new cells from
 * the model's rows (LiveColumns). The selected row is always current: a key that selects a
 * row React is behind on takes the rows as they are.
 */
export function useVisibleRows(limits: CellLimits, spendShown = true, plain?: PlainRows, now: () => number = Date.now): readonly DeckRow[] {
  const model = useModel();
  const shown = useRef<{ rows: readonly DeckRow[]; spendShown: boolean; behind: boolean } | undefined>(undefined);
  // read by the model's listener too, which outlives this render
  const props = useRef({ limits, spendShown, plain });
  props.current = { limits, spendShown, plain };
  const take = (rows: readonly DeckRow[]): readonly DeckRow[] => {
    if (shown.current?.behind) props.current.plain?.live.setBehind(false);
    shown.current = { rows, spendShown: props.current.spendShown, behind: false };
    return rows;
  };
  /** The rows React is to draw, the model's being `next`. */
  const decide = (next: readonly DeckRow[]): readonly DeckRow[] => {
    const last = shown.current;
    const { limits: l, spendShown: spend, plain: p } = props.current;
    // rows kept while the spend columns were off may hold old spend: not kept once they show
    if (last === undefined || last.spendShown !== spend) return take(next);
    if (last.rows === next) return last.rows;
    const t = now();
    if (sameVisibleRows(last.rows, next, t, l, spend)) return last.rows;
    if (p && plainRowsChange(last.rows, next, t, l, pinnedKey(last.rows, p.pinned))) {
      last.behind = true;
      p.live.setBehind(true); // the writer draws them
      return last.rows;
    }
    return take(next);
  };
  const read = (): readonly DeckRow[] => decide(model.getSnapshot().rows);
  const subscribe = useCallback((notify: () => void) => {
    const stopModel = model.subscribe(() => {
      const before = shown.current?.rows;
      if (decide(model.getSnapshot().rows) !== before) notify();
    });
    // a cell the writer could not draw: React draws the rows as they are
    const stopLive = props.current.plain?.live.onRedraw(() => {
      if (!shown.current?.behind) return;
      take(model.getSnapshot().rows);
      notify();
    });
    return () => {
      stopModel();
      stopLive?.();
    };
  }, [model, plain?.live]); // decide and take read the rest through refs
  return useSyncExternalStore(subscribe, read);
}
