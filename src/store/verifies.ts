import type { Db } from './db.js';

/** One run of a loop's verify command (migration 8). */
export interface VerifyRow {
  id?: number;
  taskDir: string;
  /** The loop's `started_at`: with taskDir, names the loop and the run it becomes. */
  loopStartedAt: string;
  session: string;
  /** 1 for the loop's first verify. */
  attempt: number;
  /** As a person reads it. */
  command: string;
  cwd: string;
  startedAt: string;
  durationMs: number;
  exitCode: number | null;
  /** The signal that ended it, '' none. */
  signal: string;
  timedOut: boolean;
  passed: boolean;
  /** Every byte it printed; `tail` is the end of it, escapes removed. */
  outputBytes: number;
  tail: string;
}

/** The most verify rows kept: the oldest go first (a row is a few KiB at most). */
export const MAX_VERIFY_ROWS = 5000;

const SELECT = `SELECT id, task_dir AS taskDir, loop_started_at AS loopStartedAt, session_name AS session, attempt, command, cwd,
  started_at AS startedAt, duration_ms AS durationMs, exit_code AS exitCode, signal, timed_out AS timedOut, passed,
  output_bytes AS outputBytes, tail FROM verifies`;

function fromRaw(r: Record<string, unknown>): VerifyRow {
  return { ...(r as unknown as VerifyRow), timedOut: r.timedOut === 1, passed: r.passed === 1 };
}

/** The `verifies` table. */
export class VerifyStore {
  private readonly ins;
  private readonly forLoop;
  private readonly prune;

  constructor(db: Db) {
    this.ins = db.prepare(`INSERT INTO verifies (task_dir, loop_started_at, session_name, attempt, command, cwd, started_at, duration_ms,
      exit_code, signal, timed_out, passed, output_bytes, tail) VALUES (@taskDir, @loopStartedAt, @session, @attempt, @command, @cwd,
      @startedAt, @durationMs, @exitCode, @signal, @timedOut, @passed, @outputBytes, @tail)`);
    this.forLoop = db.prepare(`${SELECT} WHERE task_dir = ? AND loop_started_at = ? ORDER BY id`);
    this.prune = db.prepare('DELETE FROM verifies WHERE id <= ?');
  }

  record(row: VerifyRow): number {
    const id = Number(this.ins.run({ ...row, timedOut: row.timedOut ? 1 : 0, passed: row.passed ? 1 : 0 }).lastInsertRowid);
    if (id > MAX_VERIFY_ROWS) this.prune.run(id - MAX_VERIFY_ROWS);
    return id;
  }

  /** A loop's verifies, in order. */
  list(taskDir: string, loopStartedAt: string): VerifyRow[] {
    return (this.forLoop.all(taskDir, loopStartedAt) as Record<string, unknown>[]).map(fromRaw);
  }
}
