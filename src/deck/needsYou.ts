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

/** Which of the four headline groups a module is in. */
export type Triage = 'running' | 'needs_you' | 'done' | 'failed' | 'other';

/** Outcomes of a finished run that count as failed (a person should look); others are stops by limit or by hand. */
const FAILED_OUTCOMES = new Set(['blocked', 'merge_conflict', 'stall_limit', 'reasoning_loop', 'killed', 'failed']);

/**
 * A live loop that waits on a person needs you; any other live loop is running; a failed
 * loop row is failed (it needs a person too, and says why); with no loop, the last run's
 * outcome decides (complete: done; a failure: failed); anything else is other.
 */
export function triage(loop: Pick<LoopRow, 'status' | 'waitingFor' | 'stopReason'> | undefined, lastOutcome?: string, lifecycle?: string): Triage {
  if (loop) {
    if (loop.status === 'failed') return 'failed';
    if (needsYou(loop)) return 'needs_you';
    return loop.status === 'suspended' ? 'other' : 'running';
  }
  if (lastOutcome !== undefined) return lastOutcome === 'complete' ? 'done' : FAILED_OUTCOMES.has(lastOutcome) ? 'failed' : 'other';
  return lifecycle === 'complete' ? 'done' : 'other';
}

export interface TriageCounts {
  running: number;
  needsYou: number;
  done: number;
  failed: number;
}

export function countTriage(groups: readonly Triage[]): TriageCounts {
  const c: TriageCounts = { running: 0, needsYou: 0, done: 0, failed: 0 };
  for (const g of groups) {
    if (g === 'running') c.running++;
    else if (g === 'needs_you') c.needsYou++;
    else if (g === 'done') c.done++;
    else if (g === 'failed') c.failed++;
  }
  return c;
}

/** The glyphs, as the dashboard's STATE column draws them. */
export const TRIAGE_GLYPHS = { running: '▶', needsYou: '?', done: '✓', failed: '✗' } as const;

/**
 * The tmux status-right segment: `▶3 ?1 ✗1`, groups with none left out, `done` too when
 * asked; '' when there is nothing to say (the status line stays clean).
 */
export function tmuxSegment(c: TriageCounts, withDone = false): string {
  const parts: string[] = [];
  if (c.running) parts.push(`${TRIAGE_GLYPHS.running}${c.running}`);
  if (c.needsYou) parts.push(`${TRIAGE_GLYPHS.needsYou}${c.needsYou}`);
  if (withDone && c.done) parts.push(`${TRIAGE_GLYPHS.done}${c.done}`);
  if (c.failed) parts.push(`${TRIAGE_GLYPHS.failed}${c.failed}`);
  return parts.join(' ');
}
