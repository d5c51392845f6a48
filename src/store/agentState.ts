import type { Db } from './db.js';
import { boundedCopy, boundedDetail } from '../format/bounded.js';
import { BOUND_ON_READ_CHARS } from './events.js';

/** What an agent's own hooks say it is doing. */
export const AGENT_STATES = ['busy', 'waiting', 'idle', 'compacting', 'compacted', 'exited'] as const;
export type AgentState = (typeof AGENT_STATES)[number];

export interface AgentStateRow {
  session: string;
  state: AgentState;
  /** The hook event that reported it (e.g. `Notification`). */
  event: string;
  detail: Record<string, unknown>;
  at: string;
}

/** The `agent_state` table: the newest state per session. */
export class AgentStateStore {
  private readonly put;
  private readonly one;
  private readonly del;
  /** Rows read since the database's data_version was `cachedVersion` (see `recent`). */
  private readonly cache = new Map<string, AgentStateRow | undefined>();
  private cachedVersion: number | undefined;

  constructor(db: Db) {
    this.put = db.prepare(`INSERT INTO agent_state (session_name, state, event, detail, at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(session_name) DO UPDATE SET state = excluded.state, event = excluded.event, detail = excluded.detail, at = excluded.at`);
    this.one = db.prepare('SELECT * FROM agent_state WHERE session_name = ?');
    this.del = db.prepare('DELETE FROM agent_state WHERE session_name = ?');
  }

  set(row: AgentStateRow): void {
    this.put.run(row.session, row.state, row.event, JSON.stringify(boundedDetail(row.detail)), row.at);
    this.cache.delete(row.session);
  }

  /**
   * Keeps what `recent` read while the database's data_version is `version` (another
   * connection's commit moves it; this connection's own writes drop their rows here).
   */
  sync(version: number): void {
    if (version === this.cachedVersion) return;
    this.cachedVersion = version;
    this.cache.clear();
  }

  /**
   * The row as of the last `sync`: the supervisor's tick looks at every loop's state twice
   * a second, and only the agents' hooks (other processes) write it, so one data_version
   * per tick stands for a read per loop.
   */
  recent(session: string): AgentStateRow | undefined {
    if (this.cachedVersion === undefined) return this.get(session);
    if (this.cache.has(session)) return this.cache.get(session);
    const row = this.get(session);
    this.cache.set(session, row);
    return row;
  }

  get(session: string): AgentStateRow | undefined {
    const r = this.one.get(session) as Record<string, unknown> | undefined;
    if (!r) return undefined;
    let detail: Record<string, unknown> = {};
    try {
      const text = String(r.detail);
      const parsed: unknown = JSON.parse(text);
      const v = text.length > BOUND_ON_READ_CHARS ? boundedCopy(parsed) : parsed;
      if (v && typeof v === 'object' && !Array.isArray(v)) detail = v as Record<string, unknown>;
    } catch { /* keep empty */ }
    return { session: String(r.session_name), state: r.state as AgentState, event: String(r.event ?? ''), detail, at: String(r.at) };
  }

  clear(session: string): void {
    this.del.run(session);
    this.cache.delete(session);
  }
}
