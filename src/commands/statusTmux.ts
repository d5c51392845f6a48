import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { pragma, statement } from '../store/statements.js';
import { stateOf, tmuxSegment } from '../deck/states.js';
import type { LoopStatus, WaitingFor } from '../store/loops.js';

/**
 * `autodeck status --format tmux`: `?1 ✗1 ▶3` for a tmux status-right, run every few
 * seconds: the live loops in the header's groups (src/deck/states.ts). One read-only query
 * of the loop table and nothing else (no migrations, no runs, no owner checks): it must
 * stay well under 100 ms. No database yet: nothing to say.
 */
export function tmuxStatus(dbPath: string): string {
  if (!existsSync(dbPath)) return '';
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    pragma(db, 'busy_timeout = 1000');
    let rows: { status: string; waiting_for?: string | null; stop_reason?: string | null }[];
    try {
      rows = statement(db, 'SELECT status, waiting_for, stop_reason FROM task_auto').all() as typeof rows;
    } catch {
      // a database from before "needs you" (schema 4): the statuses alone
      rows = statement(db, 'SELECT status FROM task_auto').all() as typeof rows;
    }
    return tmuxSegment(rows.map((r) => stateOf({
      loop: { status: r.status as LoopStatus, stopReason: r.stop_reason ?? '', waitingFor: parseWaiting(r.waiting_for) },
    })));
  } finally {
    db.close();
  }
}

function parseWaiting(text: string | null | undefined): WaitingFor | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as WaitingFor;
  } catch {
    return null;
  }
}
