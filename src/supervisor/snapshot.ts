import type { LoopRow } from '../store/loops.js';
import type { RunRow } from '../store/runs.js';
import { activeMs } from './limits.js';
import type { IterationSpendRow } from '../store/iterationSpend.js';
import { contextPercent } from '../spend/context.js';
import { needsYou, type NeedsYou } from '../deck/needsYou.js';

/** One loop as `status --json` and the REST API show it. */
export interface LoopStatusJson {
  session: string;
  taskDir: string;
  taskName: string;
  status: string;
  iteration: number;
  maxIterations: number;
  step: string;
  result: string;
  next: string;
  checkpoint: string;
  elapsedMs: number;
  activeMs: number;
  timeoutMinutes: number;
  stallCount: number;
  recoveryStep: number;
  recoveryTotal: number;
  restartCount: number;
  restartsTotal: number;
  quotaWaitSince: string | null;
  quotaWaitMs: number;
  startedAt: string;
  lastSignalAt: string | null;
  stopReason: string;
  backend: string;
  owner: { pid: number | null; host: string | null; alive: boolean; heartbeatAt: string | null };
  /** From the agent's transcript; null when there is none (see `spend`). */
  tokens: number | null;
  costUsd: number | null;
  /** `no transcript`, `no price` (tokens but a model without a price), or '' when both are known. */
  spend: string;
  /** Compactions in the loop's transcripts; null without one. */
  compactions: number | null;
  /** The context now: tokens in it, the model's window, the whole percent; null when unknown (no transcript, or no window for the model). */
  contextTokens: number | null;
  contextWindow: number | null;
  ctxPercent: number | null;
  /** Per iteration, when asked (`--iterations`). */
  perIteration?: IterationJson[];
  /** Waits on a person: why and the prompt or question; null when it does not. */
  needsYou: NeedsYou | null;
}

/** One iteration's spend as `status --json` / `history --json` show it with `--iterations`. */
export interface IterationJson {
  iteration: number;
  endedAt: string;
  tokens: number | null;
  costUsd: number | null;
  compactions: number | null;
  /** The loop ended inside this iteration (no signal closed it). */
  partial: boolean;
  spend: string;
}

export function iterationJson(r: IterationSpendRow): IterationJson {
  return { iteration: r.iteration, endedAt: r.endedAt, tokens: r.tokens, costUsd: r.costUsd, compactions: r.compactions, partial: r.partial, spend: spendNote(r.tokens, r.costUsd) };
}

/** Why tokens or cost are missing, in words (never a 0 that was not measured). */
export function spendNote(tokens: number | null | undefined, costUsd: number | null | undefined): string {
  if (tokens === null || tokens === undefined) return 'no transcript';
  if (costUsd === null || costUsd === undefined) return 'no price';
  return '';
}

export function loopStatusJson(row: LoopRow, now: number, ownerIsAlive: boolean): LoopStatusJson {
  return {
    session: row.session,
    taskDir: row.taskDir,
    taskName: row.taskName,
    status: row.status,
    iteration: row.iteration,
    maxIterations: row.maxIterations,
    step: row.step,
    result: row.result,
    next: row.next,
    checkpoint: row.checkpoint,
    elapsedMs: Math.max(0, now - Date.parse(row.startedAt)),
    activeMs: activeMs(row, now),
    timeoutMinutes: row.timeoutMinutes,
    stallCount: row.stallCount,
    recoveryStep: row.recoveryStep,
    recoveryTotal: row.recoveryTotal,
    restartCount: row.restartCount,
    restartsTotal: row.restartsTotal,
    quotaWaitSince: row.quotaWaitSince || null,
    quotaWaitMs: row.quotaWaitMs,
    startedAt: row.startedAt,
    lastSignalAt: row.lastSignalAt,
    stopReason: row.stopReason,
    backend: row.backend,
    owner: { pid: row.ownerPid, host: row.ownerHost, alive: ownerIsAlive, heartbeatAt: row.ownerHeartbeatAt },
    tokens: row.tokens ?? null,
    costUsd: row.costUsd ?? null,
    spend: spendNote(row.tokens, row.costUsd),
    compactions: row.compactions ?? null,
    contextTokens: row.contextTokens ?? null,
    contextWindow: row.contextWindow ?? null,
    ctxPercent: contextPercent(row.contextTokens, row.contextWindow) ?? null,
    needsYou: needsYou(row) ?? null,
  };
}

/** One finished run as `status --json` lists it under `recent`. */
export function runJson(run: RunRow): Record<string, unknown> {
  return {
    taskDir: run.taskDir,
    taskName: run.taskName,
    session: run.session,
    outcome: run.outcome,
    forced: run.forced,
    iterations: run.iterations,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    stopReason: run.stopReason,
    activeMs: run.activeMs,
    recoveries: run.recoveries,
    restarts: run.restarts,
    quotaWaitMs: run.quotaWaitMs,
    tokens: run.tokens ?? null,
    costUsd: run.costUsd ?? null,
    spend: spendNote(run.tokens, run.costUsd),
    compactions: run.compactions ?? null,
  };
}
