/**
 * Claude Code's own sessions as `claude agents --json [--all]` lists them
 * (docs/claude-sessions.md): background sessions of its daemon and interactive ones in
 * a terminal. Claude Code changes this list between releases, so reading it never fails
 * on what it does not know: an unknown field is kept (shown in the detail view), an
 * unknown status or state is shown as its own word, an entry without any id is skipped
 * and counted. Pure.
 */

import { boundedCopy, type Bounds } from '../format/bounded.js';
import { jsonObjectOrUndefined } from '../format/jsonObject.js';

export interface ClaudeSession {
  /** The key: the full session id (a UUID), else `id:<short>` or `pid:<n>` when Claude Code gave none. */
  key: string;
  /** The full session id, as `claude --resume` takes it; '' when the listing had none. */
  sessionId: string;
  /** The short id of a background session (`claude attach|stop|logs <id>`); '' for an interactive one. */
  id: string;
  /** `background`, `interactive`, or whatever newer releases call it. */
  kind: string;
  name: string;
  cwd: string;
  /** The session's process, only while it runs. */
  pid?: number | undefined;
  /** ms since the epoch. */
  startedAt?: number | undefined;
  /** Set locally by the session (reliable): `busy`, `idle`, `waiting`, … ; absent once it ended. */
  status?: string | undefined;
  /** With `waiting`: `permission prompt`, `input needed`, `dialog open`, … */
  waitingFor?: string | undefined;
  /** Background sessions: `working`, `blocked`, `done`, `failed`, `stopped`, … (from a model call after each turn; may lag). */
  state?: string | undefined;
  /** From the job's state.json: what it is doing, and what it needs from a person. */
  detail?: string | undefined;
  needs?: string | undefined;
  /** When the job last changed state (ms since the epoch): what a reset time without a date is read against. */
  updatedAt?: number | undefined;
  /** Fields this autodeck does not know, as short printable strings. */
  extra: Record<string, string>;
}

export interface Listing {
  sessions: ClaudeSession[];
  /** Entries that could not be used (no id of any kind, not an object). */
  skipped: number;
}

const KNOWN = new Set(['pid', 'id', 'cwd', 'kind', 'startedAt', 'sessionId', 'name', 'status', 'waitingFor', 'state']);
/** A field's text is cut here: the listing is shown, not stored. */
const MAX_FIELD = 500;
const MAX_EXTRA_FIELDS = 20;

const str = (v: unknown): string => (typeof v === 'string' ? v.slice(0, MAX_FIELD) : '');
const optStr = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v.slice(0, MAX_FIELD) : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** What of an unknown field's value is kept to show: a bounded copy (a value nested thousands deep would overflow JSON.stringify). */
const EXTRA_BOUNDS: Bounds = { depth: 4, string: 200, items: 10, total: 400 };

/** A value of a field autodeck does not know, as one short line. */
function extraText(v: unknown): string {
  const text = typeof v === 'string' ? v : JSON.stringify(boundedCopy(v, EXTRA_BOUNDS)) ?? String(v);
  return text.slice(0, 200);
}

/** One entry of the list; undefined when it names no session at all. */
export function parseEntry(raw: unknown): ClaudeSession | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const o = raw as Record<string, unknown>;
  const sessionId = str(o.sessionId);
  const id = str(o.id);
  const pid = num(o.pid);
  const key = sessionId || (id ? `id:${id}` : pid !== undefined ? `pid:${pid}` : '');
  if (!key) return undefined;
  const extra: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) {
    if (KNOWN.has(k) || Object.keys(extra).length >= MAX_EXTRA_FIELDS) continue;
    extra[k.slice(0, 60)] = extraText(v);
  }
  return {
    key, sessionId, id, kind: str(o.kind) || 'unknown', name: str(o.name), cwd: str(o.cwd),
    pid, startedAt: num(o.startedAt), status: optStr(o.status), waitingFor: optStr(o.waitingFor), state: optStr(o.state), extra,
  };
}

/**
 * The output of `claude agents --json`. Throws with a one-line reason when it is not a
 * JSON array (an error page, a release that prints something else): the caller keeps what
 * it listed before.
 */
export function parseListing(text: string): Listing {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`claude agents --json did not print JSON (${(err as Error).message.split('\n')[0]})`);
  }
  if (!Array.isArray(raw)) throw new Error('claude agents --json did not print a JSON array');
  const sessions: ClaudeSession[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  for (const entry of raw) {
    const s = parseEntry(entry);
    if (!s || seen.has(s.key)) {
      skipped++;
      continue;
    }
    seen.add(s.key);
    sessions.push(s);
  }
  return { sessions, skipped };
}

/** What a job's `state.json` adds to a background session (`~/.claude/jobs/<id>/state.json`). */
export interface JobState {
  state?: string | undefined;
  detail?: string | undefined;
  needs?: string | undefined;
  /** ms since the epoch. */
  updatedAt?: number | undefined;
}

/** A job's state.json, read leniently; undefined when it is not a JSON object. */
export function parseJobState(text: string): JobState | undefined {
  const o = jsonObjectOrUndefined(text);
  if (!o) return undefined;
  const updated = typeof o.updatedAt === 'string' ? Date.parse(o.updatedAt) : NaN;
  return {
    state: optStr(o.state), detail: optStr(o.detail), needs: optStr(o.needs),
    updatedAt: Number.isNaN(updated) ? undefined : updated,
  };
}

/** The session with its job's detail and needs (the listing's own state wins: it is what `claude agents` shows). */
export function withJobState(s: ClaudeSession, job: JobState | undefined): ClaudeSession {
  if (!job) return s;
  return { ...s, detail: job.detail ?? s.detail, needs: job.needs ?? s.needs, state: s.state ?? job.state, updatedAt: job.updatedAt ?? s.updatedAt };
}
