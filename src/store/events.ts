import type { Db } from './db.js';
import { EventPruner, type EventBounds } from './eventPruning.js';
import { boundedCopy, boundedDetail } from '../format/bounded.js';

export const EVENT_KINDS = [
  'started', 'signal', 'signal_invalid', 'stall', 'stall_unrecognized', 'recovery', 'quota_wait', 'quota_resume',
  'stop_requested', 'restart', 'recovered', 'ended', 'failed', 'agent_exit', 'hook_block', 'hook_allow', 'error',
  'budget', 'context_limit', 'approval', 'needs_you', 'dialog', 'internal_error',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/**
 * Kinds an agent can repeat as fast as it writes files: a repeat of the newest event of
 * the same module (same kind, same detail) bumps that row's count instead of adding one.
 */
const COALESCED_KINDS: ReadonlySet<EventKind> = new Set(['signal_invalid']);

export interface LoopEvent {
  id?: number;
  at: string;
  session: string;
  taskDir: string;
  /** For listeners' convenience; not stored (the task folder names it). */
  taskName?: string;
  kind: EventKind;
  detail: Record<string, unknown>;
  /** How many times this event happened in a row (1 when absent); `lastAt` the newest. */
  repeats?: number;
  lastAt?: string;
}

/** What the log has dropped to stay bounded. */
export interface PrunedSummary {
  rows: number;
  newestDroppedAt: string | undefined;
}

/** The shared event log: the dashboard, `autodeck log` and the hook read it. */
export class EventStore {
  private readonly ins;
  private readonly last;
  private readonly lastFor;
  private readonly newestFor;
  private readonly bump;
  private readonly pruned;
  private readonly pruner: EventPruner;

  constructor(db: Db, bounds: Partial<EventBounds> = {}) {
    this.ins = db.prepare('INSERT INTO events (at, session_name, task_dir, kind, detail) VALUES (?, ?, ?, ?, ?)');
    this.last = db.prepare('SELECT * FROM (SELECT * FROM events ORDER BY id DESC LIMIT ?) ORDER BY id');
    this.lastFor = db.prepare('SELECT * FROM (SELECT * FROM events WHERE task_dir = ? ORDER BY id DESC LIMIT ?) ORDER BY id');
    this.newestFor = db.prepare('SELECT id, kind, detail, repeats FROM events WHERE task_dir = ? ORDER BY id DESC LIMIT 1');
    this.bump = db.prepare('UPDATE events SET repeats = repeats + 1, last_at = ? WHERE id = ?');
    this.pruned = db.prepare('SELECT rows, newest_dropped_at FROM events_pruned WHERE id = 1');
    this.pruner = new EventPruner(db, bounds);
  }

  /** Adds an event (or counts a repeat of the module's newest one); returns its row id. */
  insert(e: LoopEvent): number {
    return this.record(e).id;
  }

  /** Like insert, and says how many times in a row the event has now happened. */
  record(e: LoopEvent): { id: number; repeats: number } {
    const detail = JSON.stringify(boundedDetail(e.detail));
    if (COALESCED_KINDS.has(e.kind)) {
      const newest = this.newestFor.get(e.taskDir) as { id: number; kind: string; detail: string; repeats: number | null } | undefined;
      if (newest && newest.kind === e.kind && newest.detail === detail) {
        this.bump.run(e.at, newest.id);
        return { id: newest.id, repeats: (newest.repeats ?? 1) + 1 };
      }
    }
    const id = Number(this.ins.run(e.at, e.session, e.taskDir, e.kind, detail).lastInsertRowid);
    this.pruner.afterInsert();
    return { id, repeats: 1 };
  }

  /** The last `limit` events, oldest first. */
  list(limit = 50, taskDir?: string): LoopEvent[] {
    const rows = (taskDir === undefined ? this.last.all(limit) : this.lastFor.all(taskDir, limit)) as Record<string, unknown>[];
    return rows.map((r) => {
      const e: LoopEvent = {
        id: r.id as number,
        at: r.at as string,
        session: r.session_name as string,
        taskDir: r.task_dir as string,
        kind: r.kind as EventKind,
        detail: parseDetail(r.detail),
      };
      if (typeof r.repeats === 'number' && r.repeats > 1) {
        e.repeats = r.repeats;
        if (typeof r.last_at === 'string') e.lastAt = r.last_at;
      }
      return e;
    });
  }

  /** How many old events were pruned so far, and the time of the newest of them. */
  prunedSummary(): PrunedSummary {
    const row = this.pruned.get() as { rows: number; newest_dropped_at: string | null } | undefined;
    return { rows: row?.rows ?? 0, newestDroppedAt: row?.newest_dropped_at ?? undefined };
  }

  /** Prunes now (the store also does it by itself every so many inserts). */
  prune(): number {
    return this.pruner.prune();
  }
}

/** Longer details may come from a version that stored them unbounded: bounded on reading. */
export const BOUND_ON_READ_CHARS = 4096;

function parseDetail(text: unknown): Record<string, unknown> {
  try {
    const s = String(text);
    const parsed: unknown = JSON.parse(s);
    const v = s.length > BOUND_ON_READ_CHARS ? boundedCopy(parsed) : parsed;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return {};
  }
}
