import { budgetOn, budgetReached, type SpendReading } from '../spend/meter.js';
import { changedFields, LoopSpend, spendFields } from '../spend/loopSpend.js';
import { contextLimitReached } from '../spend/ledger.js';
import type { Spend } from '../spend/prices.js';
import type { StopReason } from '../protocol/stopFile.js';
import type { Store } from '../store/index.js';
import type { EventKind } from '../store/events.js';
import type { LoopRow } from '../store/loops.js';
import type { LoopSettings } from './loopSpec.js';
import type { UsageSource } from '../agents/agentRecord.js';
import { limitAfter } from './limits.js';
import { within } from './loopBoundary.js';
import { activeMsNow, anchorActive, type ActiveAnchor, type Clock } from './clock.js';

/** What a loop's governor needs of its loop. */
export interface GovernorHost {
  store: Store;
  clock: Clock;
  settings: LoopSettings;
  transcriptDir: string | undefined;
  /** Another agent's usage file (Codex's rollout, Gemini CLI's session), when its profile has one. */
  usageSource?: UsageSource | undefined;
  row(): LoopRow;
  patch(patch: Partial<LoopRow>): void;
  patchLater(patch: Partial<LoopRow>): void;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  /** How long the quota wait under way has lasted (monotonic), 0 when none. */
  quotaWaitingMs(): number;
}

/**
 * The limits a loop runs within: its iterations and active time, its budget (tokens and
 * cost, read from the agent's transcript), and its context (compactions per iteration).
 * It says which limit is reached; the loop decides what to do.
 */
export class LoopGovernor {
  /** Where this process began counting the loop's active time (its timeout). */
  private readonly anchor: ActiveAnchor;
  /** Reads the agent's transcript for the tokens spent, per loop and per iteration; made on first use. */
  private spent: LoopSpend | undefined;

  constructor(private readonly host: GovernorHost) {
    this.anchor = anchorActive(host.row(), host.clock);
  }

  /** Time the loop has worked, less quota waits: on the monotonic clock since this process took it. */
  activeMs(): number {
    return activeMsNow(this.anchor, this.host.row(), this.host.clock.mono(), this.host.quotaWaitingMs());
  }

  /** The iteration or time limit reached now, if any. */
  limit(): StopReason | undefined {
    return limitAfter(this.host.row(), this.activeMs());
  }

  /** After a signal: the first limit reached of iterations, time, budget and context. */
  limitAfterSignal(closed: { compactions: number | null } | undefined): StopReason | undefined {
    return this.limit() ?? this.budgetCheck() ?? this.contextCheck(closed?.compactions ?? 0, this.host.row().iteration);
  }

  private get spendReader(): LoopSpend {
    const row = this.host.row();
    this.spent ??= new LoopSpend({
      transcriptDir: this.host.transcriptDir, usageSource: this.host.usageSource, sinceMs: Date.parse(row.startedAt), prices: this.host.settings.prices,
      contextWindows: this.host.settings.contextWindows, store: this.host.store.iterations,
      key: { taskDir: row.taskDir, loopStartedAt: row.startedAt, session: row.session },
    });
    return this.spent;
  }

  /** What the agent's transcript says it spent; undefined when there is none. */
  spend(): Spend | undefined {
    return within('spend', () => this.spendReader.read()?.spend);
  }

  /** At a signal: the row's spend, compactions and ctx brought up to date, the iteration's share recorded (src/spend/). */
  recordSpend(signalWrittenMs: number | undefined): { compactions: number | null } | undefined {
    return within('spend', () => this.recordSpendNow(signalWrittenMs));
  }

  private recordSpendNow(signalWrittenMs: number | undefined): { compactions: number | null } | undefined {
    const row = this.host.row();
    const writtenAt = signalWrittenMs === undefined ? undefined : new Date(signalWrittenMs).toISOString();
    const { reading, closed } = this.spendReader.atSignal(row.iteration, new Date(this.host.clock.wall()).toISOString(), writtenAt);
    const changed = changedFields(this.host.row(), spendFields(reading));
    if (changed) this.host.patch(changed);
    return closed;
  }

  /**
   * At each heartbeat while the loop runs: the row's figures kept current between signals
   * (the dashboard's tokens and ctx %); `context_limit` when the iteration under way was
   * compacted too often.
   */
  watchSpend(): StopReason | undefined {
    const reading = within('spend', () => this.spendReader.read());
    const changed = changedFields(this.host.row(), spendFields(reading));
    if (changed) this.host.patchLater(changed);
    return this.contextCheck(this.spendReader.compactionsNow(reading), this.host.row().iteration + 1);
  }

  /** `context_limit` when one iteration was compacted too often. */
  private contextCheck(compactions: number, iteration: number): StopReason | undefined {
    if (!contextLimitReached(compactions)) return undefined;
    this.host.event('context_limit', { compactions, iteration, contextTokens: this.host.row().contextTokens ?? null });
    return 'context_limit';
  }

  /** `budget` when the loop has spent its maxTokens / maxCostUsd (checked at each signal, like maxIterations). */
  private budgetCheck(): StopReason | undefined {
    const { maxTokens, maxCostUsd } = this.host.settings;
    if (!budgetOn({ maxTokens, maxCostUsd })) return undefined;
    const spend = this.spend();
    if (!budgetReached(spend, { maxTokens, maxCostUsd })) return undefined;
    this.host.event('budget', { tokens: spend!.tokens, costUsd: spend!.costUsd ?? null, maxTokens: maxTokens ?? 0, maxCostUsd: maxCostUsd ?? 0 });
    return 'budget';
  }

  /** The run's spend at its end (the unfinished iteration's share recorded); the row's last figures, or nulls, without a transcript. */
  finalSpend(): { tokens: number | null; costUsd: number | null; compactions: number | null } {
    const row = this.host.row();
    let reading: SpendReading | undefined;
    try {
      reading = this.spendReader.atEnd(row.iteration + 1, new Date(this.host.clock.wall()).toISOString());
    } catch {
      reading = undefined; // the run is recorded all the same, with the row's last figures
    }
    if (!reading) return { tokens: row.tokens ?? null, costUsd: row.costUsd ?? null, compactions: row.compactions ?? null };
    return { tokens: reading.spend.tokens, costUsd: reading.spend.costUsd ?? null, compactions: reading.compactions };
  }
}
