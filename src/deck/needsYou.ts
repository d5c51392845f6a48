import type { LoopRow, WaitingFor } from '../store/loops.js';

/**
 * "Needs you": a loop that waits on a person, and why. Derived, pure,
 * from the loop row: the supervisor marks `waitingFor` (a prompt the approval policy leaves
 * to a person, a question, a quota reset beyond the horizon, an answer that did not take);
 * a `failed` row needs a person by itself (its message is the reason). Imports types only:
 * `status --format tmux` loads this on every status-line refresh.
 */

export type NeedsYouReason = WaitingFor['reason'] | 'failed' | 'unknown_command';

export interface NeedsYou {
  reason: NeedsYouReason;
  /** The prompt, question or failure, printable, one line (cut by whoever shows it). */
  text: string;
  since?: string | undefined;
}

/** How the failed loop of an agent that does not know its start command words its message (watchdog.ts). */
const UNKNOWN_COMMAND = /^the agent does not know the command\b/;

/** Printable, one line: agent text never drives the terminal. */
export function printableOneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/[\x00-\x1f\x7f-\x9f]/g, ' ').replace(/\s+/g, ' ').trim();
}

export function needsYou(loop: Pick<LoopRow, 'status' | 'waitingFor' | 'stopReason'>): NeedsYou | undefined {
  if (loop.status === 'failed') {
    const text = printableOneLine(loop.stopReason || 'the loop failed');
    return { reason: UNKNOWN_COMMAND.test(text) ? 'unknown_command' : 'failed', text };
  }
  const w = loop.waitingFor;
  if (!w || loop.status === 'stopping' || loop.status === 'suspended') return undefined;
  return { reason: w.reason, text: printableOneLine(w.text), since: w.since };
}

/** The reasons in a person's words. */
export const REASON_WORDS: Record<NeedsYouReason, string> = {
  permission: 'permission',
  question: 'question',
  quota: 'quota',
  answer_not_taken: 'prompt not answered',
  failed: 'failed',
  unknown_command: 'unknown command',
};

/** `permission: Bash: git push --force — Do you want to proceed?` */
export function needsYouLine(n: NeedsYou): string {
  return `${REASON_WORDS[n.reason]}: ${n.text}`;
}
