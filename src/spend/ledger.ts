import type { IterationSpendRow, IterationSpendStore, IterationTotals } from '../store/iterationSpend.js';
import { COMPACTIONS_PER_ITERATION } from './context.js';
import type { SpendReading } from './meter.js';

/**
 * One iteration's share of a loop's spend: the loop's totals now less what its recorded
 * iterations already hold. Pure. Never below 0 (a transcript rewritten shorter, or a
 * restart whose old file is no longer read, must not make an iteration look like a refund).
 */
export function iterationShare(reading: SpendReading, recorded: IterationTotals): Pick<IterationSpendRow, 'tokens' | 'costUsd' | 'compactions'> {
  const cost = reading.spend.costUsd;
  return {
    tokens: Math.max(0, reading.spend.tokens - recorded.tokens),
    costUsd: cost === undefined ? null : Math.max(0, cost - recorded.costUsd),
    compactions: Math.max(0, reading.compactions - recorded.compactions),
  };
}

/** Whether the iteration under way has been compacted too often (`context_limit`). Pure. */
export const contextLimitReached = (compactionsThisIteration: number, limit = COMPACTIONS_PER_ITERATION): boolean => compactionsThisIteration >= limit;

export interface LedgerKey {
  taskDir: string;
  loopStartedAt: string;
  session: string;
}

/**
 * A loop's spend per iteration: each signal closes an iteration and writes its share
 * (iteration_spend); the end of the loop writes what the unfinished one spent. What is
 * already recorded comes from the database, so a loop adopted by another autodeck goes
 * on where the last owner stopped. A write that fails (the database busy) is not retried:
 * the next iteration's share then holds both.
 */
export class SpendLedger {
  constructor(private readonly store: IterationSpendStore, private readonly key: LedgerKey) {}

  /** Records iteration `iteration` as closed at `endedAt`; returns the row (undefined: no transcript, nothing written). */
  close(reading: SpendReading | undefined, iteration: number, endedAt: string, partial = false): IterationSpendRow | undefined {
    if (!reading || iteration < 1) return undefined;
    const row: IterationSpendRow = {
      ...this.key, iteration, endedAt, partial,
      // against the iterations before it: closing one again (a signal read twice) rewrites it, not adds 0
      ...iterationShare(reading, this.store.totals(this.key.taskDir, this.key.loopStartedAt, iteration)),
    };
    if (partial && row.tokens === 0 && row.compactions === 0) return row; // nothing spent since the last signal
    this.store.record(row);
    return row;
  }

  /** Compactions since the last recorded iteration: in the one under way. */
  compactionsSinceLast(reading: SpendReading | undefined): number {
    if (!reading) return 0;
    return Math.max(0, reading.compactions - this.store.totals(this.key.taskDir, this.key.loopStartedAt).compactions);
  }
}
