import { findQuotaMessage } from '../agents/quota.js';
import { parseResetTime } from '../agents/resetTime.js';
import type { ClaudeSession } from './listing.js';

/**
 * What a Claude Code session is doing, in autodeck's words, and what it needs from a
 * person (docs/claude-sessions.md). `status` is set by the session itself and is read
 * first; `state` (a model's summary after each turn, which may lag or stay `working`
 * behind a gateway) only adds what status cannot say: blocked, done, failed. Pure.
 */

export type ClaudePhase = 'needs_you' | 'limit' | 'working' | 'idle' | 'done' | 'failed' | 'stopped' | 'other';

export type NeedReason = 'permission' | 'question' | 'limit' | 'input';

export interface ClaudeNeed {
  reason: NeedReason;
  /** One line for people: the request, the question, the limit. */
  text: string;
  /** A limit's reset (ISO, margin included), when its text names one. */
  resetAt?: string | undefined;
  /** The open request autodeck's PermissionRequest hook holds: answerable from autodeck. */
  requestId?: number | undefined;
}

export interface ClaudeView {
  phase: ClaudePhase;
  /** The state column's word: autodeck's, or Claude Code's own for one it does not know. */
  word: string;
  need?: ClaudeNeed | undefined;
  /** The session's process runs (it can be attached, stopped, sent to). */
  live: boolean;
}

/** A request autodeck's PermissionRequest hook holds open for a session (src/claudeSessions/requests.ts). */
export interface OpenRequestView {
  id: number;
  kind: 'permission' | 'question';
  text: string;
}

const ENDED: Record<string, ClaudePhase> = { done: 'done', completed: 'done', failed: 'failed', crashed: 'failed', stopped: 'stopped', killed: 'stopped' };

/** Whether the session's process runs: Claude Code lists a pid or a live status only then. */
export function isLive(s: ClaudeSession): boolean {
  return s.pid !== undefined || s.status !== undefined;
}

function waitingNeed(s: ClaudeSession): ClaudeNeed {
  const what = s.waitingFor ?? '';
  // the job's `needs` says which (2.1.197 lists a question as a `permission prompt` too)
  const reason: NeedReason = /^answer\b/i.test(s.needs ?? '') ? 'question'
    : /permission/i.test(what) || /^approve\b/i.test(s.needs ?? '') ? 'permission' : /input|question/i.test(what) ? 'question' : 'input';
  return { reason, text: s.needs ?? s.detail ?? (what || 'waiting') };
}

/** A blocked session's limit, when its detail or needs is a usage-limit message; the reset read against when it was blocked. */
export function limitNeed(s: ClaudeSession, now: number): ClaudeNeed | undefined {
  for (const text of [s.detail, s.needs]) {
    if (!text) continue;
    const found = findQuotaMessage(text);
    if (!found) continue;
    const at = found.resetText ? parseResetTime(found.resetText, new Date(s.updatedAt ?? now)) : undefined;
    return { reason: 'limit', text: found.line, ...(at ? { resetAt: at.toISOString() } : {}) };
  }
  return undefined;
}

export function claudeView(s: ClaudeSession, now: number, open?: OpenRequestView): ClaudeView {
  const live = isLive(s);
  const status = s.status;
  const state = s.state;
  if (open && live) {
    return { phase: 'needs_you', word: 'needs you', live, need: { reason: open.kind, text: open.text, requestId: open.id } };
  }
  // a usage limit: the job says so; a dialog open meanwhile is Claude Code's own menu about it (2.1.197)
  if (state === 'blocked' && status !== 'busy' && !/permission|input/i.test(s.waitingFor ?? '')) {
    const limit = limitNeed(s, now);
    if (limit) return { phase: 'limit', word: 'limit', live, need: limit };
  }
  if (status === 'waiting') return { phase: 'needs_you', word: 'needs you', live, need: waitingNeed(s) };
  if (state === 'blocked' && status !== 'busy' && live) {
    return { phase: 'needs_you', word: 'needs you', live, need: { reason: 'input', text: s.needs ?? s.detail ?? 'blocked' } };
  }
  if (status === 'busy') return { phase: 'working', word: 'working', live };
  if (status === 'idle') {
    const ended = state ? ENDED[state] : undefined;
    if (ended === 'done' || ended === 'failed') return { phase: ended, word: ended, live };
    return { phase: 'idle', word: 'idle', live };
  }
  if (status !== undefined) return { phase: 'other', word: status, live };
  if (live) return { phase: 'other', word: state ?? 'running', live };
  const ended = state === undefined ? 'stopped' : ENDED[state];
  if (ended) return { phase: ended, word: ended, live };
  // an ended session in a state this autodeck does not know (`resuming`, a new word): shown as it is
  return { phase: 'other', word: state ?? 'unknown', live };
}

/** One line of what a session needs, for the table and notifications. */
export function needLine(need: ClaudeNeed): string {
  const what = need.reason === 'permission' ? 'permission' : need.reason === 'question' ? 'question' : need.reason === 'limit' ? 'usage limit' : 'input';
  const text = need.text.replace(/\s+/g, ' ').trim();
  return text.toLowerCase().startsWith(what) ? text : `${what}: ${text}`;
}

/** The session's kind in one short word for the table: `bg` or `term`, or Claude Code's own word. */
export function kindWord(kind: string): string {
  return kind === 'background' ? 'bg' : kind === 'interactive' ? 'term' : kind;
}
