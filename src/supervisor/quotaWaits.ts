import type { Session } from '../sessions/session.js';
import type { EventKind } from '../store/events.js';
import type { LoopRow, WaitingFor } from '../store/loops.js';
import { monoOfWall, type Clock } from './clock.js';
import type { QuotaWait } from './heartbeat.js';
import { QUOTA_HORIZON_MS } from './needsYouScreen.js';
import { showKeys } from './screenLook.js';

/** What a loop's quota waits need of its watchdog. */
export interface QuotaHost {
  /** Monotonic time. */
  now(): number;
  wall(): number;
  /** A monotonic time as a wall time, read on the wall clock as it stands now. */
  wallOf(mono: number): number;
  row(): LoopRow;
  patch(patch: Partial<LoopRow>): void;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  setWaiting(w: WaitingFor | null): void;
  sendKeys(session: Session, keys: readonly string[]): void;
  typeContinuation(session: Session): void;
}

/**
 * A wait an earlier owner began (the row's quotaWaitSince): it goes on until the reset
 * time the agent named, kept in the row (quotaResetAt), reckoned on both clocks from
 * now; with none kept (none named, or a row from before it was kept), it probes now.
 */
export function storedWait(sinceWall: number, resetAt: number, clock: Clock): QuotaWait {
  const since = Number.isFinite(sinceWall) ? monoOfWall(sinceWall, clock) : clock.mono();
  if (!Number.isFinite(resetAt)) return { since, sinceWall, line: '', nextProbeAt: clock.mono() };
  const resetMono = clock.mono() + Math.max(0, resetAt - clock.wall());
  return { since, sinceWall, line: '', resetAt, resetMono, nextProbeAt: resetMono };
}

/** The row, the events and the keys of a quota wait's start and end. */
export class QuotaWaits {
  constructor(private readonly host: QuotaHost) {}

  enter(wait: QuotaWait, keys: string[] | undefined, session: Session): void {
    const host = this.host;
    const sinceWall = wait.sinceWall ?? host.wallOf(wait.since);
    host.patch({ status: 'quota_wait', quotaWaitSince: new Date(sinceWall).toISOString(), quotaResetAt: wait.resetAt === undefined ? '' : new Date(wait.resetAt).toISOString() });
    // a reset beyond the horizon (or none known): a person may want to know
    if (wait.resetAt === undefined || wait.resetAt - sinceWall > QUOTA_HORIZON_MS) {
      const until = wait.resetAt === undefined ? 'no reset time given' : `until ${new Date(wait.resetAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
      const line = wait.line.replace(/^[^\p{L}\p{N}]+/u, '') || 'a usage limit'; // without the screen's `⎿`
      host.setWaiting({ reason: 'quota', text: `${line} (${until})`.slice(0, 200), since: new Date(sinceWall).toISOString() });
    }
    host.event('quota_wait', {
      message: wait.line, resetAt: wait.resetAt ? new Date(wait.resetAt).toISOString() : null,
      nextProbeAt: new Date(host.wallOf(wait.nextProbeAt)).toISOString(), answeredMenu: keys ? showKeys(keys) : null,
    });
    if (keys) host.sendKeys(session, keys);
  }

  /** Ends a quota wait; how long it lasted is measured on the monotonic clock from `wait.since`. */
  finish(why: string, typeInto: Session | undefined, wait: QuotaWait | undefined): void {
    const host = this.host;
    const row = host.row();
    const stored = row.quotaWaitSince ? Date.parse(row.quotaWaitSince) : NaN;
    const waited = wait ? Math.max(0, host.now() - wait.since) : Number.isFinite(stored) ? Math.max(0, host.wall() - stored) : 0;
    host.patch({ status: 'running', quotaWaitSince: '', quotaResetAt: '', quotaWaitMs: row.quotaWaitMs + waited });
    if (row.waitingFor?.reason === 'quota') host.setWaiting(null);
    host.event('quota_resume', { why, waitedMs: waited });
    if (typeInto) host.typeContinuation(typeInto);
  }
}
