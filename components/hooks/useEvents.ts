import { useMemo, useSyncExternalStore } from 'react';
import type { LoopEvent } from '../../src/store/events.js';
import { useModel } from './useModel.js';

/** The last `limit` events (of one module, or all), read again when the log grew. */
export function useEvents(limit: number, key?: string, active = true): LoopEvent[] {
  const model = useModel();
  const version = useSyncExternalStore(model.subscribeEvents, model.getEventsVersion);
  return useMemo(() => (active ? model.events(limit, key) : []), [model, version, limit, key, active]);
}
