import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';

/** Reads the state database from a second connection, as another process would. */
export function readDb<T>(path: string, fn: (db: Database.Database) => T): T | undefined {
  if (!existsSync(path)) return undefined;
  const db = new Database(path, { readonly: true, timeout: 5000 });
  try {
    return fn(db);
  } catch (err) {
    if (/no such table/.test(String(err))) return undefined;
    throw err;
  } finally {
    db.close();
  }
}

export interface TaskAutoRow {
  session_name: string;
  task_dir: string;
  status: string;
  iteration_count: number;
  step: string;
  result: string;
  next: string;
  restart_count: number;
  agent_pid: number | null;
  owner_pid: number | null;
  stop_reason: string;
}

export function loopRow(path: string, taskDir: string): TaskAutoRow | undefined {
  return readDb(path, (db) => db.prepare('SELECT * FROM task_auto WHERE task_dir = ?').get(taskDir) as TaskAutoRow | undefined);
}

export interface RunRowRaw {
  session_name: string;
  task_dir: string;
  outcome: string;
  forced: number;
  iterations: number;
  stop_reason: string;
  restarts: number;
  active_ms: number;
  tokens: number | null;
  cost_usd: number | null;
}

export function runsOf(path: string, taskDir: string): RunRowRaw[] {
  return readDb(path, (db) => db.prepare('SELECT * FROM runs WHERE task_dir = ? ORDER BY id').all(taskDir) as RunRowRaw[]) ?? [];
}

export function eventsOf(path: string, taskDir: string, kind?: string): { kind: string; detail: Record<string, unknown>; at: string }[] {
  return (readDb(path, (db) =>
    (db.prepare('SELECT kind, detail, at FROM events WHERE task_dir = ? ORDER BY id').all(taskDir) as { kind: string; detail: string; at: string }[])
      .map((e) => ({ kind: e.kind, detail: JSON.parse(e.detail) as Record<string, unknown>, at: e.at }))
      .filter((e) => kind === undefined || e.kind === kind)) ?? []);
}
