import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

/** One loop as a benchmark watches it. */
export interface LoopState {
  taskDir: string;
  status: string;
  iteration: number;
  agentPid: number | null;
  restarts: number;
  /** ISO time of the last signal, or null. */
  lastSignalAt: string | null;
}

/**
 * The loops of a benchmark's database, read through a read-only connection as another
 * process would; every agent pid seen is kept, so none can outlive the bench unnoticed.
 */
export class LoopRows {
  readonly agentPids = new Set<number>();
  private reader: Database.Database | undefined;
  private query: Database.Statement | undefined;

  constructor(private readonly db: string) {}

  /** Every loop row; none before the autodeck under test has made its database. */
  read(): LoopState[] {
    if (!this.query) {
      if (!existsSync(this.db)) return [];
      this.reader ??= new Database(this.db, { readonly: true, fileMustExist: true, timeout: 5000 });
      try {
        this.query = this.reader.prepare(
          'SELECT task_dir AS taskDir, status, iteration_count AS iteration, agent_pid AS agentPid, restart_count AS restarts, last_signal_at AS lastSignalAt FROM task_auto');
      } catch (err) {
        if (/no such table/.test(String(err))) return [];
        throw err;
      }
    }
    const rows = this.query.all() as LoopState[];
    for (const r of rows) if (r.agentPid) this.agentPids.add(r.agentPid);
    return rows;
  }

  close(): void {
    this.query = undefined;
    this.reader?.close();
    this.reader = undefined;
  }
}
