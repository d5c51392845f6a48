import { EventEmitter } from 'node:events';
import type { DashboardModel } from '../../src/deck/model.js';

/** This machine's part of a hosts' model, empty: for tests about another host. */
export function emptyLocal(): DashboardModel {
  const none = new EventEmitter();
  return {
    settings: { maxIterations: 20, timeoutMinutes: 30, stallThreshold: 3, recoveryTotal: 10, backend: 'pty', detachKey: 'ctrl-q' },
    getSnapshot: () => ({ rows: [] }),
    subscribe: (l) => (none.on('x', l), () => none.off('x', l)),
    getEventsVersion: () => 0,
    subscribeEvents: (l) => (none.on('x', l), () => none.off('x', l)),
    events: () => [], suggestion: () => ({ maxIterations: 20, timeoutMinutes: 30, basis: '', fromRuns: 0 }), runs: () => [],
    start: () => ({ ok: false, message: 'local' }), stop: () => ({ ok: false, message: 'local' }), restart: () => ({ ok: false, message: 'local' }),
    screen: () => undefined, summary: () => [], session: () => undefined, takeSession: () => undefined, runningHere: () => ({ pty: 0, tmux: 0 }),
  };
}
