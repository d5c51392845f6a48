import { makeWorkspace, type Workspace } from '../../helpers/workspace.js';
import { readDb } from '../../helpers/db.js';

export { makeWorkspace, type Workspace };

/** Every event of a module, with its time, oldest first. */
export function eventsAt(db: string, taskDir: string): { kind: string; at: string; detail: Record<string, unknown> }[] {
  return readDb(db, (d) => (d.prepare('SELECT kind, at, detail FROM events WHERE task_dir = ? ORDER BY id').all(taskDir) as { kind: string; at: string; detail: string }[])
    .map((e) => ({ kind: e.kind, at: e.at, detail: JSON.parse(e.detail) as Record<string, unknown> }))) ?? [];
}

/** `PRAGMA integrity_check` of the state database: 'ok' when sound. */
export function integrity(db: string): string {
  return readDb(db, (d) => String(d.pragma('integrity_check', { simple: true }))) ?? 'no database';
}

/** The loop's iteration now (undefined once its row is gone). */
export function iterationOf(db: string, taskDir: string): number | undefined {
  return readDb(db, (d) => (d.prepare('SELECT iteration_count AS n FROM task_auto WHERE task_dir = ?').get(taskDir) as { n: number } | undefined)?.n);
}

/** Milliseconds between two ISO times. */
export function msBetween(a: string, b: string): number {
  return Date.parse(b) - Date.parse(a);
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
