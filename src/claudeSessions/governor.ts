import type { Outcome } from '../store/runs.js';
import type { AdoptedRow } from './adopted.js';
import type { ClaudeView } from './view.js';

/**
 * What autodeck does for an adopted background session at each look (`autodeck adopt`):
 * the limits of a loop — iterations (finished turns), the timeout (active time, paused in a
 * quota wait), the budget — and the quota wait that Claude Code's background sessions lack:
 * at a usage limit the session waits, and once after the reset (never before) autodeck
 * sends it on with the continuation message. Pure: the caller acts.
 */

export type StopReason = 'max_iterations' | 'timeout' | 'budget';

export type GovernorStep =
  | { kind: 'none' }
  | { kind: 'stop'; reason: StopReason }
  | { kind: 'quota_wait'; resetAt: string; text: string; named: boolean }
  | { kind: 'resume' }
  /** The wait is over without autodeck (someone sent it on, or it goes on by itself). */
  | { kind: 'quota_over' }
  | { kind: 'end'; outcome: Outcome; why: string };

export interface GovernorInput {
  row: AdoptedRow;
  /** The session as Claude Code lists it now; undefined when it is no longer listed. */
  view: ClaudeView | undefined;
  now: number;
  /** Spend since the adoption; undefined unknown. */
  spend?: { tokens: number; costUsd: number | undefined } | undefined;
}

/** Active time: since the adoption, less the time spent waiting on a usage limit. */
export function activeAdoptedMs(a: Pick<AdoptedRow, 'startedAt' | 'quotaWaitMs' | 'quotaWaitSince'>, now: number): number {
  const waiting = a.quotaWaitSince ? Math.max(0, now - Date.parse(a.quotaWaitSince)) : 0;
  return Math.max(0, now - Date.parse(a.startedAt) - a.quotaWaitMs - waiting);
}

const STOP_OUTCOME: Record<string, Outcome> = { max_iterations: 'max_iterations', timeout: 'timeout', budget: 'budget', user_stop: 'user_stop' };

export function governorStep({ row, view, now, spend }: GovernorInput): GovernorStep {
  if (!view) return { kind: 'end', outcome: row.stopReason ? STOP_OUTCOME[row.stopReason] ?? 'stopped' : 'stopped', why: 'no longer listed by Claude Code' };
  if (!view.live) {
    if (row.stopReason) return { kind: 'end', outcome: STOP_OUTCOME[row.stopReason] ?? 'stopped', why: `stopped by autodeck (${row.stopReason})` };
    if (view.phase === 'done') return { kind: 'end', outcome: 'complete', why: 'Claude Code says it is done' };
    if (view.phase === 'failed') return { kind: 'end', outcome: 'failed', why: 'Claude Code says it failed' };
    if (view.phase === 'limit' && row.status !== 'quota_wait') {
      return { kind: 'quota_wait', resetAt: view.need?.resetAt ?? probeAt(row, now), text: view.need?.text ?? 'usage limit', named: Boolean(view.need?.resetAt) };
    }
    if (view.phase !== 'limit') return { kind: 'end', outcome: 'stopped', why: 'stopped outside autodeck' };
  }
  if (row.status === 'stopping') return { kind: 'none' };
  if (view.phase === 'limit') {
    if (row.status !== 'quota_wait') {
      return { kind: 'quota_wait', resetAt: view.need?.resetAt ?? probeAt(row, now), text: view.need?.text ?? 'usage limit', named: Boolean(view.need?.resetAt) };
    }
    const reset = Date.parse(row.quotaResetAt);
    return !Number.isNaN(reset) && now >= reset ? { kind: 'resume' } : { kind: 'none' };
  }
  if (row.status === 'quota_wait') return { kind: 'quota_over' };
  // a turn that is running is left to finish; the limits are looked at between turns and while idle
  if (view.phase === 'working') {
    if (activeAdoptedMs(row, now) >= row.timeoutMinutes * 60_000) return { kind: 'stop', reason: 'timeout' };
    return { kind: 'none' };
  }
  if (row.turns >= row.maxIterations) return { kind: 'stop', reason: 'max_iterations' };
  if (activeAdoptedMs(row, now) >= row.timeoutMinutes * 60_000) return { kind: 'stop', reason: 'timeout' };
  if (spend && budgetSpent(spend, row)) return { kind: 'stop', reason: 'budget' };
  return { kind: 'none' };
}

function budgetSpent(spend: { tokens: number; costUsd: number | undefined }, row: AdoptedRow): boolean {
  const { maxTokens = 0, maxCostUsd = 0 } = row.settings;
  if (maxTokens > 0 && spend.tokens >= maxTokens) return true;
  return maxCostUsd > 0 && spend.costUsd !== undefined && spend.costUsd >= maxCostUsd;
}

/** Without a reset time in the message: try again after quotaProbeMinutes. */
function probeAt(row: AdoptedRow, now: number): string {
  const minutes = row.settings.quotaProbeMinutes ?? 15;
  return new Date(now + minutes * 60_000).toISOString();
}
