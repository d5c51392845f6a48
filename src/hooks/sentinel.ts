import { lastAssistantTexts, type TranscriptEntry } from '../agents/transcript.js';

/** What the agent says when every task is done. */
export const SENTINEL = '<promise>AUTODECK COMPLETE</promise>';

/** How far back the sentinel counts: the last 20 transcript lines. */
export const SENTINEL_LINES = 20;

/**
 * Whether the sentinel stands in an assistant text of the last 20 transcript entries, or
 * in the Stop event's `last_assistant_message` (Claude Code may run the hook before the
 * last line reaches the file). Only the model's own text counts: the hook's prompt, which
 * quotes the sentinel, comes back as a user message, and a tool input or result that
 * mentions it is not a claim of completion. Pure.
 */
export function sentinelSeen(entries: readonly TranscriptEntry[], lastAssistantMessage?: unknown): boolean {
  if (typeof lastAssistantMessage === 'string' && lastAssistantMessage.includes(SENTINEL)) return true;
  const tail = entries.slice(-SENTINEL_LINES);
  return lastAssistantTexts(tail, SENTINEL_LINES).some((t) => t.includes(SENTINEL));
}
