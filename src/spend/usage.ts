/**
 * Tokens from Claude Code's transcript (CLAUDE-CODE.md): each assistant entry carries
 * `message.usage` and `message.model`; the entries of one API message (one per content
 * block) share `message.id` and repeat its usage, so each message counts once, with the
 * last usage seen for it (the final output count). Subagents' entries (`isSidechain`)
 * are not the loop's main conversation and are left out. Pure.
 */

export interface TokenCounts {
  input: number;
  output: number;
  cacheWrite: number;
  /** Of cacheWrite, the part written for an hour (priced higher), when the transcript says. */
  cacheWrite1h: number;
  cacheRead: number;
}

export const ZERO_TOKENS: TokenCounts = { input: 0, output: 0, cacheWrite: 0, cacheWrite1h: 0, cacheRead: 0 };

/** One API message's usage. */
export interface MessageUsage {
  id: string;
  model: string;
  tokens: TokenCounts;
  /** The entry's `timestamp` (ISO), when it has one: which iteration the message belongs to. */
  at?: string;
}

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);

/** The usage of one transcript entry, or undefined when it is not a main-chain assistant message with usage. */
export function usageOfEntry(entry: unknown, fallbackId: string): MessageUsage | undefined {
  if (!entry || typeof entry !== 'object') return undefined;
  const e = entry as { type?: unknown; isSidechain?: unknown; message?: unknown; timestamp?: unknown };
  if (e.type !== 'assistant' || e.isSidechain === true) return undefined;
  const m = e.message as { id?: unknown; model?: unknown; usage?: unknown } | undefined;
  if (!m || typeof m !== 'object' || !m.usage || typeof m.usage !== 'object') return undefined;
  const u = m.usage as Record<string, unknown>;
  const creation = (u.cache_creation && typeof u.cache_creation === 'object' ? u.cache_creation : {}) as Record<string, unknown>;
  const cacheWrite = count(u.cache_creation_input_tokens);
  return {
    id: typeof m.id === 'string' && m.id !== '' ? m.id : fallbackId,
    model: typeof m.model === 'string' ? m.model : '',
    tokens: {
      input: count(u.input_tokens),
      output: count(u.output_tokens),
      cacheWrite,
      cacheWrite1h: Math.min(cacheWrite, count(creation.ephemeral_1h_input_tokens)),
      cacheRead: count(u.cache_read_input_tokens),
    },
    ...(typeof e.timestamp === 'string' && e.timestamp !== '' ? { at: e.timestamp } : {}),
  };
}

export function addTokens(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    input: a.input + b.input, output: a.output + b.output, cacheWrite: a.cacheWrite + b.cacheWrite,
    cacheWrite1h: a.cacheWrite1h + b.cacheWrite1h, cacheRead: a.cacheRead + b.cacheRead,
  };
}

/** Every token of a count, whatever its kind. */
export const totalTokens = (t: TokenCounts): number => t.input + t.output + t.cacheWrite + t.cacheRead;

/**
 * Usage per message of a run of entries, in first-seen order: a later entry of the same
 * message replaces the earlier usage (it is the same message, further along).
 */
export function messagesOf(entries: readonly unknown[], into: Map<string, MessageUsage> = new Map()): Map<string, MessageUsage> {
  entries.forEach((entry, i) => {
    const u = usageOfEntry(entry, `#${into.size}:${i}`);
    if (u) into.set(u.id, u);
  });
  return into;
}

/**
 * Tokens per model over messages ('' for a message without a model); with `asOf` (ISO),
 * only the messages of that time or before (one without a timestamp always counts).
 */
export function tokensByModel(messages: Iterable<MessageUsage>, asOf?: string): Map<string, TokenCounts> {
  const out = new Map<string, TokenCounts>();
  for (const m of messages) {
    if (asOf !== undefined && m.at !== undefined && m.at > asOf) continue;
    out.set(m.model, addTokens(out.get(m.model) ?? ZERO_TOKENS, m.tokens));
  }
  return out;
}
