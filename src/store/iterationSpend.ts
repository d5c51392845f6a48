import type { Db } from './db.js';

/** What one iteration of one loop spent (migration 5). */
export interface IterationSpendRow {
  taskDir: string;
  /** The loop's `started_at`: with taskDir, names the loop and the run it becomes. */
  loopStartedAt: string;
  iteration: number;
  session: string;
  endedAt: string;
  /** Null: no transcript was read. */
  tokens: number | null;
  /** Null: no transcript, or a model without a price. */
  costUsd: number | null;
  compactions: number | null;
  /** The loop ended inside this iteration, before a signal closed it. */
  partial: boolean;
}

/** Sums over a loop's recorded iterations: where the next iteration starts counting. */
export interface IterationTotals {
  tokens: number;
  costUsd: number;
  compactions: number;
  rows: number;
}

const SELECT = `SELECT task_dir AS taskDir, loop_started_at AS loopStartedAt, iteration, session_name AS session,
  ended_at AS endedAt, tokens, cost_usd AS costUsd, compactions, partial FROM iteration_spend`;

/** The `iteration_spend` table. */
export class IterationSpendStore {
  private readonly put;
  private readonly forLoop;
  private readonly sums;

  constructor(db: Db) {
    // A signal read twice (or an adopted loop's first signal) writes its iteration again: the newer figures win.
    this.put = db.prepare(`INSERT INTO iteration_spend (task_dir, loop_started_at, iteration, session_name, ended_at, tokens, cost_usd, compactions, partial)
      VALUES (@taskDir, @loopStartedAt, @iteration, @session, @endedAt, @tokens, @costUsd, @compactions, @partial)
      ON CONFLICT (task_dir, loop_started_at, iteration) DO UPDATE SET ended_at = excluded.ended_at,
        tokens = excluded.tokens, cost_usd = excluded.cost_usd, compactions = excluded.compactions, partial = excluded.partial`);
    this.forLoop = db.prepare(`${SELECT} WHERE task_dir = ? AND loop_started_at = ? ORDER BY iteration`);
    this.sums = db.prepare(`SELECT coalesce(sum(tokens), 0) AS tokens, coalesce(sum(cost_usd), 0) AS costUsd,
      coalesce(sum(compactions), 0) AS compactions, count(*) AS rows FROM iteration_spend WHERE task_dir = ? AND loop_started_at = ? AND iteration < ?`);
  }

  record(row: IterationSpendRow): void {
    this.put.run({ ...row, partial: row.partial ? 1 : 0 });
  }

  /** A loop's iterations, in order. */
  list(taskDir: string, loopStartedAt: string): IterationSpendRow[] {
    return (this.forLoop.all(taskDir, loopStartedAt) as Record<string, unknown>[]).map((r) => ({ ...(r as unknown as IterationSpendRow), partial: r.partial === 1 }));
  }

  /** Sums over the loop's iterations before `before` (all of them by default). */
  totals(taskDir: string, loopStartedAt: string, before = Number.MAX_SAFE_INTEGER): IterationTotals {
    return this.sums.get(taskDir, loopStartedAt, before) as IterationTotals;
  }
}
