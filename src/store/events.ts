import type { Db } from './db.js';

export const EVENT_KINDS = [
  'started', 'signal', 'signal_invalid', 'stall', 'stall_unrecognized', 'recovery', 'quota_wait', 'quota_resume',
  'stop_requested', 'restart', 'recovered', 'ended', 'failed', 'agent_exit', 'hook_block', 'hook_allow', 'error',
  'budget',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface LoopEvent {
  id?: number;
  at: string;
  session: string;
  taskDir: string;
  /** For listeners' convenience; not stored (the task folder names it). */
  taskName?: string;
  kind: EventKind;
  detail: Record<string, unknown>;
}

/** The shared event log (SPEC 4): the dashboard, `autodeck log` and the hook read it. */
export class EventStore {
  private readonly ins;
  private readonly last;
  private readonly lastFor;

  constructor(db: Db) {
    this.ins = db.prepare('INSERT INTO events (at, session_name, task_dir, kind, detail) VALUES (?, ?, ?, ?, ?)');
    this.last = db.prepare('SELECT * FROM (SELECT * FROM events ORDER BY id DESC LIMIT ?) ORDER BY id');
    this.lastFor = db.prepare('SELECT * FROM (SELECT * FROM events WHERE task_dir = ? ORDER BY id DESC LIMIT ?) ORDER BY id');
  }

  insert(e: LoopEvent): number {
    return Number(this.ins.run(e.at, e.session, e.taskDir, e.kind, JSON.stringify(e.detail)).lastInsertRowid);
  }

  /** The last `limit` events, oldest first. */
  list(limit = 50, taskDir?: string): LoopEvent[] {
    const rows = (taskDir === undefined ? this.last.all(limit) : this.lastFor.all(taskDir, limit)) as Record<string, unknown>[];
    return rows.map((r) => ({
      id: r.id as number,
      at: r.at as string,
      session: r.session_name as string,
      taskDir: r.task_dir as string,
      kind: r.kind as EventKind,
      detail: parseDetail(r.detail),
    }));
  }
}

function parseDetail(text: unknown): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(String(text));
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return {};
  }
}
