import type { ApprovalRequest } from '../policy/parse.js';
import type { MessageUsage } from '../spend/usage.js';

/**
 * What an agent writes down about itself in its own files (Codex's rollout, Gemini CLI's
 * session file): read before its screen, which may hide what it is doing (Codex hides its
 * status line while an answer streams).
 */
export interface AgentRecord {
  /**
   * `busy` from a turn's start to its end; `idle` once it ended; undefined when the record
   * cannot tell (the screen decides).
   */
  state: 'busy' | 'idle' | undefined;
  /** When what `state` rests on was written (wall clock, ms): an answer typed since is newer news. */
  at?: number | undefined;
  /** The tool call the turn is on (its whole command, as the model sent it), if one is open. */
  request?: ApprovalRequest | undefined;
  /** The usage-limit stop the last turn ended with, and when it was written (wall clock, ms). */
  quota?: { line: string; atMs: number } | undefined;
}

/**
 * How long an agent process is taken as starting up (busy) while it has written no file yet:
 * the CLI draws its empty prompt before it takes the prompt it was started with, and
 * typing into it then would queue a second one. After this, the screen decides.
 */
export const STARTUP_MS = 30_000;

/** One agent's files: where they are is found again at each look (a restart writes a new one). */
export interface AgentFiles {
  /** What the newest file of this agent process says; undefined when there is none (yet). */
  record(pid: number | undefined): AgentRecord | undefined;
  /** The file spend is read from, and how its entries carry usage (src/spend/). */
  spend: UsageSource;
}

/** Turns a usage file's entries into messages with usage; keeps what it needs between calls. */
export interface UsageParser {
  take(entries: readonly Record<string, unknown>[], into: Map<string, MessageUsage>): void;
}

export interface UsageSource {
  /** The newest usage file of the loop's agent, modified at or after `sinceMs`. */
  locate(sinceMs: number): string | undefined;
  /** A parser for one file (a new one per file). */
  parser(path: string): UsageParser;
}
