import type Database from 'better-sqlite3';
import type { Db } from './db.js';
import { statement } from './statements.js';

export const LOOP_STATUSES = ['starting', 'running', 'stalled', 'quota_wait', 'stopping', 'suspended', 'failed'] as const;
export type LoopStatus = (typeof LOOP_STATUSES)[number];

/**
 * Loop fields no screen shows: they change on every heartbeat (the screen hash) or lease
 * refresh. A change of these alone is bookkeeping: it is written, but it redraws nothing.
 */
export const BOOKKEEPING_FIELDS: ReadonlySet<keyof LoopRow> = new Set(['lastCaptureHash', 'ownerHeartbeatAt', 'agentPid', 'agentArgv']);

/** A `task_auto` row, as the rest of the program sees it. */
export interface LoopRow {
  session: string;
  taskDir: string;
  taskName: string;
  root: string;
  status: LoopStatus;
  maxIterations: number;
  timeoutMinutes: number;
  iteration: number;
  recoveryStep: number;
  recoveryTotal: number;
  lastCaptureHash: string;
  stallCount: number;
  quotaWaitSince: string;
  /** The reset time the agent named for the current quota wait (ISO, wall clock); '' none. */
  quotaResetAt?: string;
  startedAt: string;
  lastSignalAt: string | null;
  restartCount: number;
  /** Every restart of this loop (restartCount resets on progress). */
  restartsTotal: number;
  quotaWaitMs: number;
  step: string;
  result: string;
  next: string;
  checkpoint: string;
  stopReason: string;
  backend: string;
  ownerPid: number | null;
  ownerHost: string | null;
  ownerHeartbeatAt: string | null;
  agentArgv: string[];
  settings: Record<string, unknown>;
  agentPid: number | null;
  forced: boolean;
  /** Spent so far, from the agent's transcript: null when none was read; costUsd null also when a model has no price. */
  tokens: number | null;
  costUsd: number | null;
  /** Compactions in the loop's transcripts, and the context's fill now (tokens, the model's window): null when unknown. */
  compactions?: number | null;
  contextTokens?: number | null;
  contextWindow?: number | null;
  /** What the loop waits on a person for (a prompt the approval policy leaves to one, a question), or null. */
  waitingFor: WaitingFor | null;
}

/** Why a live loop waits on a person; `failed` rows need one too, derived from the row. */
export interface WaitingFor {
  reason: 'permission' | 'question' | 'quota' | 'answer_not_taken';
  /** The prompt or question, printable, one line. */
  text: string;
  since: string;
}

/** Column for each field; the one place the two naming schemes meet. */
const COLUMNS = {
  session: 'session_name', taskDir: 'task_dir', taskName: 'task_name', root: 'root', status: 'status',
  maxIterations: 'max_iterations', timeoutMinutes: 'timeout_minutes', iteration: 'iteration_count',
  recoveryStep: 'recovery_count_step', recoveryTotal: 'recovery_count_total', lastCaptureHash: 'last_capture_hash',
  stallCount: 'stall_count', quotaWaitSince: 'quota_wait_since', quotaResetAt: 'quota_reset_at', startedAt: 'started_at', lastSignalAt: 'last_signal_at',
  restartCount: 'restart_count', restartsTotal: 'restarts_total', quotaWaitMs: 'quota_wait_ms', step: 'step', result: 'result', next: 'next',
  checkpoint: 'checkpoint', stopReason: 'stop_reason', backend: 'backend', ownerPid: 'owner_pid',
  ownerHost: 'owner_host', ownerHeartbeatAt: 'owner_heartbeat_at', agentArgv: 'agent_argv', settings: 'settings_json',
  agentPid: 'agent_pid', forced: 'forced', tokens: 'tokens', costUsd: 'cost_usd',
  compactions: 'compactions', contextTokens: 'context_tokens', contextWindow: 'context_window', waitingFor: 'waiting_for',
} as const satisfies Record<keyof LoopRow, string>;

type Raw = Record<string, unknown>;

function fromRaw(r: Raw): LoopRow {
  const out: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(COLUMNS)) out[field] = r[column];
  out.agentArgv = safeJson(r.agent_argv, []);
  out.settings = safeJson(r.settings_json, {});
  out.forced = r.forced === 1;
  out.quotaWaitSince = r.quota_wait_since ?? '';
  out.quotaResetAt = r.quota_reset_at ?? '';
  out.waitingFor = r.waiting_for ? safeJson(r.waiting_for, null) : null;
  return out as unknown as LoopRow;
}

function toColumnValue(field: keyof LoopRow, value: unknown): unknown {
  if (field === 'agentArgv' || field === 'settings') return JSON.stringify(value);
  if (field === 'forced') return value ? 1 : 0;
  if (field === 'waitingFor') return value ? JSON.stringify(value) : '';
  return value;
}

function safeJson<T>(text: unknown, fallback: T): T {
  try {
    return typeof text === 'string' ? (JSON.parse(text) as T) : fallback;
  } catch {
    return fallback;
  }
}

export type NewLoop = Pick<LoopRow, 'session' | 'taskDir' | 'taskName' | 'root' | 'maxIterations' | 'timeoutMinutes' | 'startedAt' | 'backend' | 'ownerPid' | 'ownerHost' | 'ownerHeartbeatAt' | 'agentArgv' | 'settings'> & { status?: LoopStatus };

/** The `task_auto` table: one row per active (or failed) loop. */
export class LoopStore {
  private readonly byTaskDir;
  private readonly bySession;
  private readonly all;
  private readonly del;
  private readonly delFailed;
  private readonly updates = new Map<string, Database.Statement>();

  constructor(private readonly db: Db) {
    this.byTaskDir = db.prepare('SELECT * FROM task_auto WHERE task_dir = ?');
    this.bySession = db.prepare('SELECT * FROM task_auto WHERE session_name = ?');
    this.all = db.prepare('SELECT * FROM task_auto ORDER BY task_name, task_dir');
    this.del = db.prepare('DELETE FROM task_auto WHERE session_name = ?');
    this.delFailed = db.prepare("DELETE FROM task_auto WHERE (task_dir = ? OR session_name = ?) AND status = 'failed'");
  }

  /**
   * Inserts a new loop row. A failed row of the same module is replaced (starting it
   * again is how a person clears it); any other existing row makes the UNIQUE
   * constraints throw, which callers turn into a conflict.
   */
  insert(loop: NewLoop): LoopRow {
    const row: Partial<LoopRow> = { status: 'starting', ...loop };
    const fields = Object.keys(row) as (keyof LoopRow)[];
    const sql = `INSERT INTO task_auto (${fields.map((f) => COLUMNS[f]).join(', ')}) VALUES (${fields.map(() => '?').join(', ')})`;
    this.db.transaction(() => {
      this.delFailed.run(loop.taskDir, loop.session);
      statement(this.db, sql).run(...fields.map((f) => toColumnValue(f, row[f])));
    }).immediate();
    return this.get(loop.session)!;
  }

  get(session: string): LoopRow | undefined {
    const r = this.bySession.get(session) as Raw | undefined;
    return r ? fromRaw(r) : undefined;
  }

  getByTaskDir(taskDir: string): LoopRow | undefined {
    const r = this.byTaskDir.get(taskDir) as Raw | undefined;
    return r ? fromRaw(r) : undefined;
  }

  list(): LoopRow[] {
    return (this.all.all() as Raw[]).map(fromRaw);
  }

  /** Updates some fields of one row; returns false when the row is gone. */
  update(session: string, patch: Partial<LoopRow>): boolean {
    const fields = (Object.keys(patch) as (keyof LoopRow)[]).filter((f) => f !== 'session');
    if (fields.length === 0) return true;
    const info = this.updateStatement(fields).run(...fields.map((f) => toColumnValue(f, patch[f])), session);
    return info.changes > 0;
  }

  /** One prepared statement per set of fields: the heartbeat updates the same few every beat. */
  private updateStatement(fields: readonly (keyof LoopRow)[]): Database.Statement {
    const key = fields.join(',');
    let stmt = this.updates.get(key);
    if (!stmt) {
      stmt = this.db.prepare(`UPDATE task_auto SET ${fields.map((f) => `${COLUMNS[f]} = ?`).join(', ')} WHERE session_name = ?`);
      this.updates.set(key, stmt);
    }
    return stmt;
  }

  /**
   * Takes a row over from its previous owner, only if that owner is still the one
   * recorded: of two processes adopting one orphan, exactly one succeeds.
   */
  claim(row: Pick<LoopRow, 'session' | 'ownerPid' | 'ownerHost'>, owner: Pick<LoopRow, 'ownerPid' | 'ownerHost' | 'ownerHeartbeatAt'>): boolean {
    const info = statement(this.db, `UPDATE task_auto SET owner_pid = ?, owner_host = ?, owner_heartbeat_at = ?
      WHERE session_name = ? AND owner_pid IS ? AND owner_host IS ?`)
      .run(owner.ownerPid, owner.ownerHost, owner.ownerHeartbeatAt, row.session, row.ownerPid, row.ownerHost);
    return info.changes === 1;
  }

  delete(session: string): void {
    this.del.run(session);
  }
}
