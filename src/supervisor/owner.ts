import type { LoopRow } from '../store/loops.js';
import { pidAlive as isPidAlive } from '../pidAlive.js';

export { isPidAlive };

/** Another host's owner is presumed gone after this long without a heartbeat. */
export const OWNER_LEASE_MS = 5 * 60_000;


/**
 * Whether a loop's owner is still there: on this host, its pid is alive; on another
 * host, its heartbeat is fresher than the lease. Pure apart from the injected pid check.
 */
export function ownerAlive(
  row: Pick<LoopRow, 'ownerPid' | 'ownerHost' | 'ownerHeartbeatAt'>,
  here: { host: string; now: number; pidAlive?: (pid: number) => boolean },
): boolean {
  if (row.ownerPid == null || !row.ownerHost) return false;
  if (row.ownerHost === here.host) return (here.pidAlive ?? isPidAlive)(row.ownerPid);
  const beat = row.ownerHeartbeatAt ? Date.parse(row.ownerHeartbeatAt) : NaN;
  return Number.isFinite(beat) && here.now - beat < OWNER_LEASE_MS;
}
