import type { LoopEvent } from '../store/events.js';
import type { ClaudeView } from './view.js';
import type { ClaudeSession } from './listing.js';

/**
 * The changes of a Claude Code session that go into autodeck's event log (and so into
 * notifications, `autodeck log`, `run --json` and the API's event stream): it starts to
 * need a person, it hits a usage limit, it ends. Pure.
 */

/**
 * The part of a view whose change is worth noticing: the phase and why it needs a person
 * (not the words, which Claude Code and autodeck's hook put differently for one request).
 */
export function phaseKey(view: ClaudeView): string {
  return view.need ? `${view.phase}|${view.need.reason}` : view.phase;
}

const LIVE_PHASES = new Set(['needs_you', 'limit', 'working', 'idle', 'other']);
const OUTCOME: Record<string, string> = { done: 'complete', failed: 'failed', stopped: 'stopped' };

/** The task folder an event of a Claude Code session is filed under: it has none of its own. */
export const claudeTaskDir = (sessionId: string): string => `claude:${sessionId}`;

/** The session as events name it: its short id, else the start of its full id. */
export const claudeSessionName = (s: Pick<ClaudeSession, 'id' | 'sessionId'>): string => s.id || s.sessionId.slice(0, 8);

/** The event for a change from `previous` (undefined: first seen) to the entry's view; undefined when none is due. */
export function transitionEvent(e: { session: ClaudeSession; view: ClaudeView }, previous: string | undefined, at: string): LoopEvent | undefined {
  const { session, view } = e;
  const base = { at, session: claudeSessionName(session), taskDir: claudeTaskDir(session.sessionId), taskName: session.name || claudeSessionName(session) };
  const claude = { id: session.id, sessionId: session.sessionId, kind: session.kind, cwd: session.cwd };
  const was = previous?.split('|')[0];
  if (view.phase === 'needs_you' && view.need) {
    return { ...base, kind: 'needs_you', detail: { reason: view.need.reason, text: view.need.text, claude, ...(view.need.requestId !== undefined ? { requestId: view.need.requestId } : {}) } };
  }
  if (view.phase === 'limit' && view.need) {
    const reset = view.need.resetAt ? { resetAt: view.need.resetAt } : { nextProbeAt: 'its reset (none named)' };
    return { ...base, kind: 'quota_wait', detail: { message: view.need.text, ...reset, claude } };
  }
  const outcome = OUTCOME[view.phase];
  // an end seen happen, not a session that had ended before anyone looked
  if (outcome && was !== undefined && LIVE_PHASES.has(was)) {
    return { ...base, kind: 'ended', detail: { outcome, claude } };
  }
  return undefined;
}
