import type { Db } from './db.js';

/** The Stop hook's own counters for one loop: it never relies on Claude Code's. */
export interface HookProgress {
  taskDir: string;
  session: string;
  /** Stop events answered so far in this loop. */
  iteration: number;
  /** Tasks complete at the last Stop; -1 before the first. */
  completed: number;
  /** Stops in a row without a newly completed task. */
  staleIterations: number;
  /** Blocks in a row. */
  blocks: number;
  updatedAt: string;
}

export class HookProgressStore {
  private readonly put;
  private readonly one;
  private readonly del;

  constructor(db: Db) {
    this.put = db.prepare(`INSERT INTO hook_progress (task_dir, session_name, iteration, completed, stale_iterations, blocks, updated_at)
      VALUES (@taskDir, @session, @iteration, @completed, @staleIterations, @blocks, @updatedAt)
      ON CONFLICT(task_dir) DO UPDATE SET session_name = excluded.session_name, iteration = excluded.iteration,
      completed = excluded.completed, stale_iterations = excluded.stale_iterations, blocks = excluded.blocks, updated_at = excluded.updated_at`);
    this.one = db.prepare(`SELECT task_dir AS taskDir, session_name AS session, iteration, completed, stale_iterations AS staleIterations,
      blocks, updated_at AS updatedAt FROM hook_progress WHERE task_dir = ?`);
    this.del = db.prepare('DELETE FROM hook_progress WHERE task_dir = ?');
  }

  set(p: HookProgress): void {
    this.put.run(p);
  }

  get(taskDir: string): HookProgress | undefined {
    return this.one.get(taskDir) as HookProgress | undefined;
  }

  clear(taskDir: string): void {
    this.del.run(taskDir);
  }
}
