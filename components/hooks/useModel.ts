import { createContext, useContext, useRef, useSyncExternalStore } from 'react';
import type { DashboardModel } from '../../src/deck/model.js';
import type { DeckRow, DeckSnapshot } from '../../src/deck/deck.js';
import { sameVisibleRows, type CellLimits } from '../../src/deck/cells.js';

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

/**
 * The deck's rows, kept as they were while a change moved nothing a cell shows: heartbeat
 * bookkeeping (capture hashes, lease times, a spend figure no column shows) causes no
 * render. Compared at the time of the look, so a change the clock would show is taken.
 */
export function useVisibleRows(limits: CellLimits, spendShown = true, now: () => number = Date.now): readonly DeckRow[] {
  const model = useModel();
  const shown = useRef<{ rows: readonly DeckRow[]; spendShown: boolean } | undefined>(undefined);
  const read = (): readonly DeckRow[] => {
    const next = model.getSnapshot().rows;
    const last = shown.current;
    // rows kept while the spend columns were off may hold old spend: not kept once they show
    if (last !== undefined && last.spendShown === spendShown && sameVisibleRows(last.rows, next, now(), limits, spendShown)) return last.rows;
    shown.current = { rows: next, spendShown };
    return next;
  };
  return useSyncExternalStore(model.subscribe, read);
}
