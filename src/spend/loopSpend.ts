import { lstatSync } from 'node:fs';
import type { UsageSource } from '../agents/agentRecord.js';
import { isTransientWriteError } from '../store/db.js';
import type { IterationSpendRow, IterationSpendStore } from '../store/iterationSpend.js';
import type { LoopRow } from '../store/loops.js';
import { SpendLedger, type LedgerKey } from './ledger.js';
import { SpendMeter, type SpendReading } from './meter.js';
import type { ModelPrice } from './prices.js';

export type SpendFields = Pick<LoopRow, 'tokens' | 'costUsd'> & Required<Pick<LoopRow, 'compactions' | 'contextTokens' | 'contextWindow'>>;

/** The loop row's spend fields from a reading; undefined without a transcript (the row keeps its nulls). Pure. */
export function spendFields(r: SpendReading | undefined): SpendFields | undefined {
  if (!r) return undefined;
  return {
    tokens: r.spend.tokens,
    costUsd: r.spend.costUsd ?? null,
    compactions: r.compactions,
    contextTokens: r.context?.tokens ?? null,
    contextWindow: r.context?.window ?? null,
  };
}

/** The fields of `next` that differ from `row` (nothing to write when none do). Pure. */
export function changedFields(row: Partial<LoopRow>, next: SpendFields | undefined): Partial<SpendFields> | undefined {
  if (!next) return undefined;
  const out: Partial<Record<keyof SpendFields, unknown>> = {};
  for (const k of Object.keys(next) as (keyof SpendFields)[]) if ((row[k] ?? null) !== next[k]) out[k] = next[k];
  return Object.keys(out).length > 0 ? (out as Partial<SpendFields>) : undefined;
}

/**
 * When a signal was published: the later of its file's modification (the temp file's
 * write) and status change (the rename that published it, which Linux file systems
 * stamp), so the request that ran the rename belongs to the iteration it ends.
 * Undefined when the file is gone.
 */
export function signalWrittenMs(path: string): number | undefined {
  try {
    const st = lstatSync(path);
    return Math.max(st.mtimeMs, st.ctimeMs);
  } catch {
    return undefined;
  }
}

export interface LoopSpendOptions {
  transcriptDir: string | undefined;
  /** Another agent's usage file (Codex's rollout, Gemini CLI's session), when its profile has one. */
  usageSource?: UsageSource | undefined;
  sinceMs: number;
  prices?: Readonly<Record<string, ModelPrice>> | undefined;
  contextWindows?: Readonly<Record<string, number>> | undefined;
  store: IterationSpendStore;
  key: LedgerKey;
}

/**
 * A loop's transcript, read for what the supervisor does with spend: the row's figures,
 * an iteration's share at each signal and at the end, and the compactions of the
 * iteration under way. A transcript that cannot be read now gives nothing (the next read
 * tries again); the loop goes on.
 */
export class LoopSpend {
  private readonly meter: SpendMeter;
  private readonly ledger: SpendLedger;

  constructor(opts: LoopSpendOptions) {
    this.meter = new SpendMeter(opts.transcriptDir, opts.sinceMs, opts.prices, opts.contextWindows, opts.usageSource);
    this.ledger = new SpendLedger(opts.store, opts.key);
  }

  read(asOf?: string): SpendReading | undefined {
    try {
      return this.meter.reading(asOf);
    } catch {
      return undefined;
    }
  }

  /**
   * Iteration `iteration` was just signalled (the signal written at `writtenAt`, ISO): its
   * share, up to that time, is recorded. Returns the loop's figures now, and the share.
   */
  atSignal(iteration: number, at: string, writtenAt?: string): { reading: SpendReading | undefined; closed: IterationSpendRow | undefined } {
    const upTo = writtenAt === undefined ? undefined : this.read(writtenAt);
    const reading = this.read();
    return { reading, closed: this.safely(() => this.ledger.close(upTo ?? reading, iteration, at)) };
  }

  /** Compactions in the iteration under way (0 without a transcript). */
  compactionsNow(reading: SpendReading | undefined): number {
    return this.safely(() => this.ledger.compactionsSinceLast(reading)) ?? 0;
  }

  /** The loop ends inside iteration `iteration`: what it spent is recorded as a partial one. */
  atEnd(iteration: number, at: string): SpendReading | undefined {
    const reading = this.read();
    this.safely(() => this.ledger.close(reading, iteration, at, true));
    return reading;
  }

  /** A busy database loses one row, not the loop: the next iteration's share holds it. */
  private safely<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (err) {
      if (!isTransientWriteError(err)) throw err;
      return undefined;
    }
  }
}
