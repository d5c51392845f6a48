import type { UsageSource } from '../agents/agentRecord.js';
import { findTranscript } from '../agents/transcript.js';
import { mergePrices, spendOf, type ModelPrice, type Spend } from './prices.js';
import { TranscriptUsage } from './reader.js';
import { addTokens, ZERO_TOKENS, type TokenCounts } from './usage.js';
import { contextFill, mergeContextWindows, type ContextFill } from './context.js';

/** One read of a loop's transcripts: spend, compactions and the context now. */
export interface SpendReading {
  spend: Spend;
  /** Compactions in all the loop's transcripts. */
  compactions: number;
  /** The context of the newest transcript; undefined before its first request. */
  context: ContextFill | undefined;
}

/**
 * A loop's spend so far: the usage of every transcript its agent has written since the
 * loop started (the newest `*.jsonl` in the agent's project folder at each read, the way
 * the watchdog finds it; a restart that starts a new file adds it). Read incrementally.
 */
export class SpendMeter {
  private readonly readers = new Map<string, TranscriptUsage>();
  private readonly prices: Record<string, ModelPrice>;
  private readonly windows: Record<string, number>;
  private current: string | undefined;

  /** `source`: another agent's usage file (Codex, Gemini CLI) instead of Claude Code's transcripts in `dir`. */
  constructor(private readonly dir: string | undefined, private readonly sinceMs: number, prices?: Readonly<Record<string, ModelPrice>>,
    contextWindows?: Readonly<Record<string, number>>, private readonly source?: UsageSource) {
    this.prices = mergePrices(prices);
    this.windows = mergeContextWindows(contextWindows);
  }

  /** Undefined: no transcript (an agent without one, or none written yet). */
  read(): Spend | undefined {
    return this.reading()?.spend;
  }

  /**
   * Spend, compactions and context in one read; undefined: no transcript. With `asOf`
   * (ISO), spend and compactions count only what was written by then (an iteration's
   * share ends when its signal was written, not when it was read); context is always now.
   */
  reading(asOf?: string): SpendReading | undefined {
    if (!this.dir && !this.source) return undefined;
    let current: string | undefined;
    try {
      current = this.source ? this.source.locate(this.sinceMs) : findTranscript(this.dir!, this.sinceMs);
    } catch {
      current = undefined; // an unreadable folder: what was read so far still counts
    }
    if (current && !this.readers.has(current)) this.readers.set(current, new TranscriptUsage(current, this.source?.parser(current)));
    if (current) this.current = current;
    if (this.readers.size === 0) return undefined;
    const total = new Map<string, TokenCounts>();
    let compactions = 0;
    for (const r of this.readers.values()) {
      r.update();
      for (const [model, t] of r.byModel(asOf)) total.set(model, addTokens(total.get(model) ?? ZERO_TOKENS, t));
      // a resumed session's transcript may hold compactions from before the loop: not its own
      compactions += r.compactions(asOf, Number.isFinite(this.sinceMs) ? new Date(this.sinceMs).toISOString() : undefined);
    }
    const newest = this.current === undefined ? undefined : this.readers.get(this.current);
    return { spend: spendOf(total, this.prices), compactions, context: newest ? contextFill(newest.context, this.windows) : undefined };
  }
}

export interface BudgetLimits {
  /** 0 = off. */
  maxTokens?: number | undefined;
  /** USD; 0 = off. */
  maxCostUsd?: number | undefined;
}

/**
 * Whether a loop has spent its budget. Pure. A cost limit cannot be reached while the
 * cost is unknown (a model without a price): only the token limit holds then.
 */
export function budgetReached(spend: Spend | undefined, limits: BudgetLimits): boolean {
  if (!spend) return false;
  if ((limits.maxTokens ?? 0) > 0 && spend.tokens >= limits.maxTokens!) return true;
  if ((limits.maxCostUsd ?? 0) > 0 && spend.costUsd !== undefined && spend.costUsd >= limits.maxCostUsd!) return true;
  return false;
}

/** Whether any budget limit is on (otherwise the transcript need not be read at each signal). */
export const budgetOn = (limits: BudgetLimits): boolean => (limits.maxTokens ?? 0) > 0 || (limits.maxCostUsd ?? 0) > 0;
