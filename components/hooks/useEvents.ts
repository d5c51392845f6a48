import { useRef, useSyncExternalStore } from 'react';
import type { LoopEvent } from '../../src/store/events.js';
import { useModel } from './useModel.js';

const NONE: LoopEvent[] = [];

/** Whether two lists hold the same events as stored (a coalesced repeat bumps `repeats` and `lastAt` of the same row). */
export function sameEvents(a: readonly LoopEvent[], b: readonly LoopEvent[]): boolean {
  return a.length === b.length && a.every((e, i) => {
    const f = b[i]!;
    return e.id === f.id && e.at === f.at && e.repeats === f.repeats && e.lastAt === f.lastAt;
  });
}

/**
 * The last `limit` events (of one module, or all), read again when the log grew. The same
 * list (the same array) while the events it holds are the same: another module's signal
 * grows the log, and must not render the detail pane of this one (each render is an Ink
 * frame; at rest, one a second with twenty loops).
 */
export function useEvents(limit: number, key?: string, active = true): LoopEvent[] {
  const model = useModel();
  const last = useRef<{ version: number; limit: number; key: string | undefined; active: boolean; events: LoopEvent[] } | undefined>(undefined);
  const read = (): LoopEvent[] => {
    const version = model.getEventsVersion();
    const l = last.current;
    const sameQuery = l !== undefined && l.limit === limit && l.key === key && l.active === active;
    if (sameQuery && l.version === version) return l.events;
    const events = active ? model.events(limit, key) : NONE;
    last.current = { version, limit, key, active, events: sameQuery && sameEvents(l.events, events) ? l.events : events };
    return last.current.events;
  };
  return useSyncExternalStore(model.subscribeEvents, read);
}
