import type { Db } from '../store/db.js';

/**
 * Background sessions of Claude Code governed like loops (`autodeck adopt <id>`): their
 * limits, counters, quota wait and the autodeck process that governs them (owner lease,
 * taken over when the owner dies, as a loop's row is).
 */

export type AdoptedStatus = 'running' | 'quota_wait' | 'stopping';

/** Per adoption, what the settings said when it began. */
export interface AdoptedSettings {
  maxTokens?: number;
  maxCostUsd?: number;
  quotaProbeMinutes?: number;
  continuationMessage?: string;
}

export interface AdoptedRow {
  sessionId: string;
  shortId: string;
  name: string;
  cwd: string;
  status: AdoptedStatus;
  maxIterations: number;
  timeoutMinutes: number;
  settings: AdoptedSettings;
  /** Turns the session finished since it was adopted: its iterations. */
  turns: number;
  startedAt: string;
  quotaWaitSince: string;
  quotaWaitMs: number;
  /** The reset the limit named (ISO), '' when none; the resume goes no earlier. */
  quotaResetAt: string;
  /** Times autodeck sent the session on after a limit. */
  quotaResumes: number;
  tokens: number | null;
  costUsd: number | null;
  stopReason: string;
  ownerPid: number | null;
  ownerHost: string | null;
  ownerHeartbeatAt: string | null;
}

const COLUMNS: Record<keyof AdoptedRow, string> = {
  sessionId: 'session_id', shortId: 'short_id', name: 'name', cwd: 'cwd', status: 'status', maxIterations: 'max_iterations',
  timeoutMinutes: 'timeout_minutes', settings: 'settings_json', turns: 'turns', startedAt: 'started_at', quotaWaitSince: 'quota_wait_since',
  quotaWaitMs: 'quota_wait_ms', quotaResetAt: 'quota_reset_at', quotaResumes: 'quota_resumes', tokens: 'tokens', costUsd: 'cost_usd',
  stopReason: 'stop_reason', ownerPid: 'owner_pid', ownerHost: 'owner_host', ownerHeartbeatAt: 'owner_heartbeat_at',
};

function fromRaw(r: Record<string, unknown>): AdoptedRow {
  let settings: AdoptedSettings = {};
  try {
    settings = JSON.parse(String(r.settings_json ?? '{}')) as AdoptedSettings;
  } catch { /* defaults */ }
  return {
    sessionId: String(r.session_id), shortId: String(r.short_id), name: String(r.name ?? ''), cwd: String(r.cwd),
    status: (r.status as AdoptedStatus) ?? 'running', maxIterations: Number(r.max_iterations), timeoutMinutes: Number(r.timeout_minutes),
    settings, turns: Number(r.turns ?? 0), startedAt: String(r.started_at), quotaWaitSince: String(r.quota_wait_since ?? ''),
    quotaWaitMs: Number(r.quota_wait_ms ?? 0), quotaResetAt: String(r.quota_reset_at ?? ''), quotaResumes: Number(r.quota_resumes ?? 0),
    tokens: typeof r.tokens === 'number' ? r.tokens : null, costUsd: typeof r.cost_usd === 'number' ? r.cost_usd : null,
    stopReason: String(r.stop_reason ?? ''), ownerPid: typeof r.owner_pid === 'number' ? r.owner_pid : null,
    ownerHost: (r.owner_host as string | null) ?? null, ownerHeartbeatAt: (r.owner_heartbeat_at as string | null) ?? null,
  };
}

export class ClaudeAdoptedStore {
  private readonly ins;
  private readonly one;
  private readonly all;
  private readonly del;
  private readonly claim;

  constructor(private readonly db: Db) {
    this.ins = db.prepare(`INSERT INTO claude_adopted (session_id, short_id, name, cwd, status, max_iterations, timeout_minutes,
      settings_json, started_at, owner_pid, owner_host, owner_heartbeat_at)
      VALUES (@sessionId, @shortId, @name, @cwd, 'running', @maxIterations, @timeoutMinutes, @settings, @startedAt, @ownerPid, @ownerHost, @ownerHeartbeatAt)`);
    this.one = db.prepare('SELECT * FROM claude_adopted WHERE session_id = ?');
    this.all = db.prepare('SELECT * FROM claude_adopted ORDER BY started_at');
    this.del = db.prepare('DELETE FROM claude_adopted WHERE session_id = ?');
    // taking over from a dead owner: only when the row still names that owner
    this.claim = db.prepare(`UPDATE claude_adopted SET owner_pid = ?, owner_host = ?, owner_heartbeat_at = ?
      WHERE session_id = ? AND owner_pid IS ? AND owner_host IS ?`);
  }

  /** Throws a constraint error when the session is adopted already. */
  insert(r: Pick<AdoptedRow, 'sessionId' | 'shortId' | 'name' | 'cwd' | 'maxIterations' | 'timeoutMinutes' | 'settings' | 'startedAt' | 'ownerPid' | 'ownerHost' | 'ownerHeartbeatAt'>): void {
    this.ins.run({ ...r, settings: JSON.stringify(r.settings) });
  }

  get(sessionId: string): AdoptedRow | undefined {
    const r = this.one.get(sessionId) as Record<string, unknown> | undefined;
    return r ? fromRaw(r) : undefined;
  }

  list(): AdoptedRow[] {
    return (this.all.all() as Record<string, unknown>[]).map(fromRaw);
  }

  update(sessionId: string, fields: Partial<Omit<AdoptedRow, 'sessionId'>>): void {
    const keys = Object.keys(fields) as (keyof typeof fields)[];
    if (keys.length === 0) return;
    const values = keys.map((k) => (k === 'settings' ? JSON.stringify(fields[k]) : (fields[k] as unknown)));
    this.db.prepare(`UPDATE claude_adopted SET ${keys.map((k) => `${COLUMNS[k]} = ?`).join(', ')} WHERE session_id = ?`).run(...values, sessionId);
  }

  /** True when this process now owns the row (it named `previous` as its owner). */
  takeOver(sessionId: string, previous: { pid: number | null; host: string | null }, owner: { pid: number; host: string; at: string }): boolean {
    return this.claim.run(owner.pid, owner.host, owner.at, sessionId, previous.pid, previous.host).changes === 1;
  }

  delete(sessionId: string): void {
    this.del.run(sessionId);
  }
}
