import type { Db } from './db.js';

export const OUTCOMES = [
  'complete', 'blocked', 'merge_conflict', 'stopped', 'max_iterations', 'timeout', 'user_stop',
  'stall_limit', 'reasoning_loop', 'killed', 'failed', 'budget', 'context_limit', 'verify_failed',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface RunRow {
  id: number;
  session: string;
  taskDir: string;
  taskName: string;
  startedAt: string;
  endedAt: string;
  iterations: number;
  maxIterations: number;
  timeoutMinutes: number;
  outcome: Outcome;
  stopReason: string;
  forced: boolean;
  recoveries: number;
  restarts: number;
  quotaWaitMs: number;
  activeMs: number;
  /** What the run spent, from the transcript: null when there was none (or, for the cost, no price). */
  tokens: number | null;
  costUsd: number | null;
  /** Compactions in the run's transcripts: null when there was none. */
  compactions?: number | null;
  /** The loop's worktree and branch ('' none), and what it held at the end: `removed`, or why it was kept. */
  worktreePath?: string;
  worktreeBranch?: string;
  worktreeState?: string;
}

export type NewRun = Omit<RunRow, 'id' | 'tokens' | 'costUsd' | 'compactions'> & Partial<Pick<RunRow, 'tokens' | 'costUsd' | 'compactions'>>;

const SELECT = `SELECT id, session_name AS session, task_dir AS taskDir, task_name AS taskName, started_at AS startedAt,
  ended_at AS endedAt, iterations, max_iterations AS maxIterations, timeout_minutes AS timeoutMinutes, outcome,
  stop_reason AS stopReason, forced, recoveries, restarts, quota_wait_ms AS quotaWaitMs, active_ms AS activeMs,
  tokens, cost_usd AS costUsd, compactions, worktree_path AS worktreePath, worktree_branch AS worktreeBranch,
  worktree_state AS worktreeState FROM runs`;

function fromRaw(r: Record<string, unknown>): RunRow {
  return { ...(r as unknown as RunRow), forced: r.forced === 1 };
}

/** The `runs` table: one row per finished loop. */
export class RunStore {
  private readonly ins;
  private readonly recent;
  private readonly recentFor;
  private readonly forDirWith;
  private readonly latest;
  private readonly countAll;
  private readonly countFor;
  private readonly worktreeDirs;

  constructor(db: Db) {
    this.ins = db.prepare(`INSERT INTO runs (session_name, task_dir, task_name, started_at, ended_at, iterations,
      max_iterations, timeout_minutes, outcome, stop_reason, forced, recoveries, restarts, quota_wait_ms, active_ms, tokens, cost_usd, compactions,
      worktree_path, worktree_branch, worktree_state)
      VALUES (@session, @taskDir, @taskName, @startedAt, @endedAt, @iterations, @maxIterations, @timeoutMinutes,
      @outcome, @stopReason, @forced, @recoveries, @restarts, @quotaWaitMs, @activeMs, @tokens, @costUsd, @compactions,
      @worktreePath, @worktreeBranch, @worktreeState)`);
    this.recent = db.prepare(`${SELECT} ORDER BY id DESC LIMIT ?`);
    this.recentFor = db.prepare(`${SELECT} WHERE task_dir = ? ORDER BY id DESC LIMIT ?`);
    // The outcomes come as one JSON array, so one statement serves any set of them.
    this.forDirWith = db.prepare(`${SELECT} WHERE task_dir = ? AND outcome IN (SELECT value FROM json_each(?)) ORDER BY id DESC LIMIT ?`);
    this.latest = db.prepare(`${SELECT} WHERE id IN (SELECT max(id) FROM runs GROUP BY task_dir)`);
    this.countAll = db.prepare('SELECT count(*) AS n FROM runs');
    this.countFor = db.prepare('SELECT count(*) AS n FROM runs WHERE task_dir = ?');
    this.worktreeDirs = db.prepare("SELECT DISTINCT task_dir AS taskDir FROM runs WHERE worktree_path != ''");
  }

  insert(run: NewRun): number {
    return Number(this.ins.run({
      ...run, tokens: run.tokens ?? null, costUsd: run.costUsd ?? null, compactions: run.compactions ?? null, forced: run.forced ? 1 : 0,
      worktreePath: run.worktreePath ?? '', worktreeBranch: run.worktreeBranch ?? '', worktreeState: run.worktreeState ?? '',
    }).lastInsertRowid);
  }

  /** Newest first. */
  list(limit = 20, taskDir?: string): RunRow[] {
    const rows = taskDir === undefined ? this.recent.all(limit) : this.recentFor.all(taskDir, limit);
    return (rows as Record<string, unknown>[]).map(fromRaw);
  }

  /**
   * One module's runs, newest first; only those with one of `outcomes` when given (the
   * limit suggestion reads `complete`, `max_iterations` and `timeout` runs).
   */
  forTaskDir(taskDir: string, limit = 20, outcomes?: readonly Outcome[]): RunRow[] {
    if (outcomes === undefined) return this.list(limit, taskDir);
    if (outcomes.length === 0) return [];
    return (this.forDirWith.all(taskDir, JSON.stringify(outcomes), limit) as Record<string, unknown>[]).map(fromRaw);
  }

  /** The newest run of every module that has one, by task folder (the dashboard's idle rows). */
  latestByTaskDir(): Map<string, RunRow> {
    return new Map((this.latest.all() as Record<string, unknown>[]).map(fromRaw).map((r) => [r.taskDir, r]));
  }

  /** The task folders whose runs left a worktree (the repositories `autodeck worktrees` looks in). */
  worktreeTaskDirs(): string[] {
    return (this.worktreeDirs.all() as { taskDir: string }[]).map((r) => r.taskDir);
  }

  /** How many runs there are, of one module or of all. */
  count(taskDir?: string): number {
    const r = (taskDir === undefined ? this.countAll.get() : this.countFor.get(taskDir)) as { n: number };
    return r.n;
  }
}
