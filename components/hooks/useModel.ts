import { createContext, useContext, useSyncExternalStore } from 'react';
import type { DashboardModel } from '../../src/deck/model.js';
import type { DeckSnapshot } from '../../src/deck/deck.js';

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
