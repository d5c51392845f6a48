/**
 * How full the agent's context is, and how often it was compacted, from Claude Code's
 * transcript (test/fixtures/screens/claude/README.md). Pure.
 *
 * - ctx: the input side (input + cache writes + cache reads) of the last main-chain
 *   request, against the model's context window. After a compaction newer than that
 *   request, the compaction's own `postTokens` (what the context holds now) until the
 *   next request.
 * - A compaction: a `system` entry `subtype: "compact_boundary"` (each followed by a
 *   `user` entry with `isCompactSummary: true`, not counted again).
 */

/**
 * Context windows in tokens per model; the `contextWindows` setting overrides or adds.
 * Anthropic's models have 200k unless a larger window is switched on (Sonnet's 1M beta,
 * which the transcript does not show: set it in the setting). `claude-opus-4-8`: Claude
 * Code 2.1.197 shows `Opus 4.8 (1M context)` on its header.
 */
export const CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  'claude-opus-4-8': 1_000_000,
  'claude-opus-4-5': 200_000,
  'claude-opus-4-1': 200_000,
  'claude-opus-4': 200_000,
  'claude-sonnet-4-5': 200_000,
  'claude-sonnet-4': 200_000,
  'claude-3-7-sonnet': 200_000,
  'claude-haiku-4-5': 200_000,
  'claude-3-5-haiku': 200_000,
  'claude-3-haiku': 200_000,
  'claude-3-opus': 200_000,
};

/** The window of a model id: exact, or without its date suffix; never by a shorter prefix (as priceOf). */
export function contextWindowOf(model: string, table: Readonly<Record<string, number>> = CONTEXT_WINDOWS): number | undefined {
  const key = model.trim().toLowerCase();
  if (key === '') return undefined;
  return table[key] ?? table[key.replace(/-\d{8}$/, '')];
}

/** The built-in table with a user's `contextWindows` laid over it (keys lower-cased). */
export function mergeContextWindows(overrides: Readonly<Record<string, number>> | undefined): Record<string, number> {
  const out: Record<string, number> = { ...CONTEXT_WINDOWS };
  for (const [k, v] of Object.entries(overrides ?? {})) out[k.trim().toLowerCase()] = v;
  return out;
}

/** The `contextWindows` key of a settings file: `{"model-id": tokens}`. An error is one line. */
export function parseContextWindows(raw: unknown): { value: Record<string, number> } | { error: string } {
  if (raw === undefined) return { value: {} };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { error: 'is not an object of model ids to context window sizes in tokens' };
  const out: Record<string, number> = {};
  for (const [model, v] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) return { error: `${JSON.stringify(model.slice(0, 60))}: must be a whole number of tokens, 1 or more` };
    out[model.trim().toLowerCase()] = v;
  }
  return { value: out };
}

/** What the context scan keeps between chunks of one transcript. */
export interface ContextState {
  /** The newest main-chain request: when, which model, its input side. */
  last?: { at: string; model: string; tokens: number };
  /** The newest compaction: when, and what it left (undefined when it did not say). */
  lastCompaction?: { at: string; postTokens: number | undefined };
  /** Compactions seen, by entry uuid (a line read twice is one), with their timestamps. */
  compactions: Map<string, string>;
}

export const newContextState = (): ContextState => ({ compactions: new Map() });

/**
 * Compactions in the state; with `asOf` (ISO), those of that time or before; with `since`,
 * those of that time or after (a resumed session's older ones are not this loop's). One
 * without a timestamp always counts.
 */
export function compactionsAsOf(state: Readonly<ContextState>, asOf?: string, since?: string): number {
  if (asOf === undefined && since === undefined) return state.compactions.size;
  let n = 0;
  for (const at of state.compactions.values()) if (at === '' || ((asOf === undefined || at <= asOf) && (since === undefined || at >= since))) n++;
  return n;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * Takes a run of transcript entries into the state. File order is not always time order
 * (the README's note), so "newest" is by `timestamp`; an entry without one counts as
 * newer than what came before it in the file.
 */
export function scanContext(entries: readonly unknown[], state: ContextState): ContextState {
  entries.forEach((entry, i) => {
    if (!entry || typeof entry !== 'object') return;
    const e = entry as Record<string, unknown>;
    if (e.isSidechain === true) return;
    const at = str(e.timestamp);
    if (e.type === 'system' && e.subtype === 'compact_boundary') {
      state.compactions.set(str(e.uuid) || `#${state.compactions.size}:${i}:${at}`, at);
      const meta = (e.compactMetadata && typeof e.compactMetadata === 'object' ? e.compactMetadata : {}) as Record<string, unknown>;
      if (!state.lastCompaction || at === '' || at >= state.lastCompaction.at) {
        state.lastCompaction = { at, postTokens: typeof meta.postTokens === 'number' ? num(meta.postTokens) : undefined };
      }
      return;
    }
    if (e.type !== 'assistant' || e.isApiErrorMessage === true) return;
    const m = e.message as { model?: unknown; usage?: unknown } | undefined;
    if (!m || typeof m !== 'object' || !m.usage || typeof m.usage !== 'object') return;
    const u = m.usage as Record<string, unknown>;
    if (state.last && at !== '' && at < state.last.at) return;
    state.last = { at, model: str(m.model), tokens: num(u.input_tokens) + num(u.cache_creation_input_tokens) + num(u.cache_read_input_tokens) };
  });
  return state;
}

export interface ContextFill {
  model: string;
  /** Tokens in the context now (as the last request or compaction says). */
  tokens: number;
  /** The model's window; undefined when the model is not in the table (no ctx % then). */
  window: number | undefined;
}

/** What the state says about the context now; undefined before any request. */
export function contextFill(state: ContextState, windows: Readonly<Record<string, number>> = CONTEXT_WINDOWS): ContextFill | undefined {
  const last = state.last;
  if (!last) return undefined;
  const c = state.lastCompaction;
  const compactedSince = c !== undefined && c.postTokens !== undefined && c.at !== '' && c.at > last.at;
  return { model: last.model, tokens: compactedSince ? c.postTokens! : last.tokens, window: contextWindowOf(last.model, windows) };
}

/** Whole percent of the window used (may pass 100 when the table's window is too small); undefined without a window. */
export function contextPercent(tokens: number | null | undefined, window: number | null | undefined): number | undefined {
  if (tokens === null || tokens === undefined || !window || window <= 0) return undefined;
  return Math.round((tokens / window) * 100);
}

/** Compactions in one iteration that stop the loop (`context_limit`), as the auto loop's own rules do. */
export const COMPACTIONS_PER_ITERATION = 3;
