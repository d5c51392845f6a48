import { appendFileSync, mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { claudeProjectDir } from '../agents/transcript.js';

/** The model and usage of every simulated assistant message: 1,000 + 200 + 5,000 = 6,200 tokens. */
export const SIM_MODEL = 'claude-sonnet-4-5';
export const SIM_USAGE = { input_tokens: 1000, cache_creation_input_tokens: 0, cache_read_input_tokens: 5000, output_tokens: 200 } as const;

/**
 * A Claude Code-like session transcript (CLAUDE-CODE.md): one JSON object per line in
 * `$HOME/.claude/projects/<cwd with / and . as ->/<session>.jsonl`, each assistant text
 * its own entry, API errors as synthetic assistant entries.
 */
export class SimTranscript {
  readonly path: string;
  private readonly sessionId = randomUUID();

  constructor(home: string, cwd: string, private readonly now: () => Date) {
    const dir = claudeProjectDir(home, cwd);
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, `${this.sessionId}.jsonl`);
  }

  private append(entry: Record<string, unknown>): void {
    const line = { parentUuid: null, isSidechain: false, sessionId: this.sessionId, uuid: randomUUID(), timestamp: this.now().toISOString(), ...entry };
    appendFileSync(this.path, `${JSON.stringify(line)}\n`);
  }

  /** Each text its own message, with a usage like the API's (SIM_USAGE), for the spend meter. */
  assistant(text: string): void {
    this.append({ type: 'assistant', message: { id: `msg_${randomUUID()}`, role: 'assistant', model: SIM_MODEL, content: [{ type: 'text', text }], usage: SIM_USAGE } });
  }

  /**
   * A compaction as Claude Code 2.1.197 writes it (test/fixtures/transcripts/claude-2.1.197-compact.jsonl):
   * a `compact_boundary` system entry, then the summary as a user entry.
   */
  compaction(): void {
    const preTokens = SIM_USAGE.input_tokens + SIM_USAGE.cache_read_input_tokens + SIM_USAGE.output_tokens;
    this.append({
      type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', isMeta: false, level: 'info',
      compactMetadata: { trigger: 'auto', preTokens, durationMs: 10, postTokens: 700 },
    });
    this.append({ type: 'user', isCompactSummary: true, isVisibleInTranscriptOnly: true, message: { role: 'user', content: 'This session is being continued from a previous conversation that ran out of context.' } });
  }

  apiError(status: number, text: string): void {
    this.append({
      type: 'assistant', isApiErrorMessage: true, apiErrorStatus: status, error: status === 429 ? 'rate_limit' : 'api_error',
      message: { id: `msg_${randomUUID()}`, role: 'assistant', content: [{ type: 'text', text }] },
    });
  }
}
