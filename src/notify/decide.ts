import type { EventKind, LoopEvent } from '../store/events.js';

/**
 * What a notification is about. The rate limit counts per loop and topic, so `failed`
 * and the `ended` after it share `end`, and a stall limit does not hide the end it causes.
 */
export type NotifyTopic = 'end' | 'stall' | 'input' | 'quota';

export interface Notification {
  /** The loop it is about: its task folder (a session name is derived from it). */
  loop: string;
  topic: NotifyTopic;
  /** For people; not yet cleaned (see cleanText): names come from folders, details from agents. */
  text: string;
}

const OUTCOME_TEXT: Record<string, string> = {
  complete: 'complete',
  blocked: 'blocked',
  merge_conflict: 'hit a merge conflict',
  stopped: 'stopped',
  max_iterations: 'reached the iteration limit',
  timeout: 'timed out',
  user_stop: 'stopped on request',
  stall_limit: 'stopped for stalling too often',
  reasoning_loop: 'stopped in a reasoning loop',
  budget: 'stopped at its spending limit',
  context_limit: 'stopped: its context was compacted three times in one iteration',
  killed: 'killed',
  failed: 'failed',
  verify_failed: 'ended unverified (its verify kept failing)',
};

/** Screen kinds (src/agents/profiles.ts) in words. */
const SCREEN_TEXT: Record<string, string> = {
  idle: 'idle at its prompt',
  permission_prompt: 'permission prompt',
  yes_no_prompt: 'yes/no prompt',
  continue_prompt: 'continue prompt',
  question: 'question',
  unknown_command: 'unknown command',
  busy: 'busy, screen frozen',
  compacting: 'compacting',
  unknown: 'unrecognised screen',
  reasoning_loop: 'reasoning loop',
};

/** Why a loop needs a person (needs_you events), in words. */
const NEEDS_YOU_WORDS: Record<string, string> = { permission: 'permission', question: 'question', answer_not_taken: 'a prompt autodeck could not answer' };

/** The hung-agent ladder's steps in words. */
const HUNG_RUNG: Record<string, string> = { interrupt: 'Esc', continue: 'the continuation message', restart: 'a restart', fail: 'giving up' };

const PROMPTS = new Set(['permission_prompt', 'yes_no_prompt', 'continue_prompt', 'question']);

function nameOf(e: LoopEvent): string {
  const name = e.taskName || e.taskDir.split(/[\\/]/).filter(Boolean).pop() || e.session;
  // read from another host: which one
  return e.host ? `${e.host}:${name}` : name;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function clockOf(iso: unknown): string | undefined {
  const t = typeof iso === 'string' ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? undefined : new Date(t).toTimeString().slice(0, 5);
}

function text(e: LoopEvent): { topic: NotifyTopic; text: string } | undefined {
  const d = e.detail;
  const kind = str(d.kind);
  const screen = SCREEN_TEXT[kind] ?? (kind.replace(/_/g, ' ') || 'no progress');
  switch (e.kind) {
    case 'ended': {
      const outcome = str(d.outcome);
      // The `failed` event just before it said so, with the reason.
      if (outcome === 'failed') return undefined;
      const iterations = typeof d.iterations === 'number' ? ` after ${plural(d.iterations, 'iteration')}` : '';
      return { topic: 'end', text: `${OUTCOME_TEXT[outcome] ?? `ended (${outcome || 'unknown outcome'})`}${iterations}${d.forced ? ' (forced)' : ''}` };
    }
    case 'failed':
      return { topic: 'end', text: `failed: ${str(d.message) || 'the loop could not go on'}` };
    case 'stall':
      if (d.limit) return { topic: 'stall', text: `stalled too often (${screen}); stopping it` };
      if (kind === 'reasoning_loop') return { topic: 'stall', text: 'is repeating itself (reasoning loop); stopping it' };
      // The `failed` event right after it says what is missing and how to fix it.
      if (kind === 'unknown_command') return undefined;
      if (kind === 'hung') return { topic: 'stall', text: `seems hung (${str(d.sign).replace(/-/g, ' ') || 'no progress'}); autodeck steps in: ${HUNG_RUNG[str(d.rung)] ?? str(d.rung)}` };
      // A stall autodeck recovers from itself: the recovery event follows.
      return {
        topic: 'stall',
        text: `stalled (${screen}${d.stepTimeout ? ', step timeout' : ''}); autodeck is ${PROMPTS.has(kind) ? 'answering' : 'nudging'} it`,
      };
    case 'stall_unrecognized':
      // No keys were sent: nothing autodeck knows would move the agent on.
      if (PROMPTS.has(kind)) return { topic: 'input', text: `needs input: a ${screen} autodeck cannot answer` };
      if (kind === 'busy') return { topic: 'input', text: 'looks stuck (busy, screen frozen); needs a look' };
      if (kind === 'compacting') return { topic: 'input', text: 'has been compacting for over 30 minutes; needs a look' };
      return { topic: 'input', text: 'needs input: its screen shows something autodeck cannot answer' };
    case 'needs_you': {
      // a prompt the approval policy leaves to a person, a question, an answer that did not take
      const why = NEEDS_YOU_WORDS[str(d.reason)] ?? 'input';
      return { topic: 'input', text: `needs you (${why})${str(d.text) ? `: ${str(d.text)}` : ''}` };
    }
    case 'quota_wait': {
      if (d.probe) return undefined; // still waiting: said once already
      const until = clockOf(d.resetAt);
      return { topic: 'quota', text: `hit a usage limit; waiting${until ? ` until ${until}` : ''}` };
    }
    default:
      return undefined;
  }
}

/** The event kinds that can give a notification; every other kind never does. */
export const NOTIFYING_KINDS: readonly EventKind[] = ['ended', 'failed', 'stall', 'stall_unrecognized', 'quota_wait', 'needs_you'];

/**
 * Whether a supervisor event deserves a notification, and its text. Pure.
 *  - ended / failed: the loop is over, with its outcome ("autodeck: fix-auth complete after 6 iterations")
 *  - stall: a suspected stall, the stall limit, or a reasoning loop
 *  - stall_unrecognized: needs input — the loop is stalled on a screen none of the
 *    recoveries fits (a question, an unknown prompt, a frozen busy screen), so autodeck
 *    sent no keys and only a person can move it on. Permission, yes/no and continue
 *    prompts autodeck answers itself are `stall` events, not this.
 *  - quota_wait: the first notice of a usage-limit wait (not its probes)
 *  - needs_you: a permission prompt the approval policy leaves to a person, a question the
 *    agent asks, an answer that did not take, with the prompt or question
 */
export function notificationFor(event: LoopEvent): Notification | undefined {
  const said = text(event);
  return said && { loop: event.taskDir || event.session, topic: said.topic, text: `autodeck: ${nameOf(event)} ${said.text}` };
}
