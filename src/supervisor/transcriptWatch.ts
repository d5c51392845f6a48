import { findTranscript, lastQuotaError, readTranscriptTail, type TranscriptEntry } from '../agents/transcript.js';
import { parseResetTime } from '../agents/resetTime.js';
import { currentIdentity } from '../protocol/signal.js';
import { quotaWait, type BeatLimits, type QuotaWait } from './heartbeat.js';
import { within } from './loopBoundary.js';

/**
 * Claude Code's transcript of a loop's agent, read again only when it changed: its tail
 * is what the watchdog's transcript checks (a reasoning loop, an API 429) and the hung
 * watch read.
 */
export class TranscriptWatch {
  private identity: string | undefined;

  constructor(private readonly dir: string | undefined) {}

  /** The transcript's path and newest entries when it changed since the last look. */
  changed(startedAtMs: number): { path: string; entries: TranscriptEntry[] } | undefined {
    const dir = this.dir;
    if (!dir) return undefined;
    return within('transcript', () => {
      const path = findTranscript(dir, startedAtMs);
      if (!path) return undefined;
      const id = currentIdentity(path);
      if (id === this.identity) return undefined;
      this.identity = id;
      return { path, entries: readTranscriptTail(path) };
    });
  }
}

/**
 * A quota wait for an API 429 in the transcript newer than `progressWall` (the agent's
 * wall clock: the transcript's times are its own). A relative reset ("in 2 hours") counts
 * from when the error was written.
 */
export function transcriptQuotaWait(
  entries: readonly TranscriptEntry[], progressWall: number, now: number, wall: number, limits: BeatLimits,
): QuotaWait | undefined {
  const quota = lastQuotaError(entries, progressWall);
  if (!quota) return undefined;
  const reset = parseResetTime(quota.resetText ?? quota.line, new Date(wall), { timeZone: limits.timeZone, seenAt: new Date(quota.atMs ?? wall) });
  return quotaWait(now, wall, quota.line, reset?.getTime(), limits, { transient: quota.transient, selfResume: quota.selfResume });
}
