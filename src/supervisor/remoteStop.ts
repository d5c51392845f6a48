import { writeStopFile, type StopReason } from '../protocol/stopFile.js';
import type { Store } from '../store/index.js';
import type { LoopRow } from '../store/loops.js';
import { ownerAlive } from './owner.js';

/**
 * Asks a loop this process does not own to stop: the stop file, which a live
 * owner's watcher turns into a stop. Nobody watches an orphan's stop file, so its row is
 * marked `stopping` too, and whoever adopts it finishes it. Returns whether
 * the owner is alive.
 */
export function stopOthersLoop(
  store: Store,
  row: LoopRow,
  opts: { reason: StopReason; force: boolean; host: string; now: number },
): boolean {
  writeStopFile(row.taskDir, opts.reason, { force: opts.force, now: new Date(opts.now) });
  const alive = ownerAlive(row, { host: opts.host, now: opts.now });
  if (!alive) store.loops.update(row.session, { status: 'stopping', stopReason: opts.reason, forced: opts.force });
  return alive;
}
