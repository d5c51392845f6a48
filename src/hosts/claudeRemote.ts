import type { ClaudeSession } from '../claudeSessions/listing.js';
import type { ClaudeEntry } from '../claudeSessions/watch.js';
import type { AdoptedRow, AdoptedStatus } from '../claudeSessions/adopted.js';
import type { ClaudeRequestRow, RequestDetail } from '../claudeSessions/requests.js';
import { claudeView } from '../claudeSessions/view.js';
import { claudeSessionJson } from '../claudeSessions/json.js';
import { boundedCopy } from '../format/bounded.js';
import { isJsonObject } from '../format/jsonObject.js';

/**
 * Claude Code's sessions on another host, as its autodeck's `status --json --claude`
 * gives them (src/claudeSessions/pollLook.ts), read as untrusted data: each field checked
 * and cut, an entry with no id of any kind left out, Claude Code's own words kept as they
 * are (shown through `printable`, never run). Made into the entries the table shows for
 * this machine's sessions, their times moved by the host's clock skew. Pure.
 */

export interface RemoteClaude {
  /** The sessions as last listed there (kept from the look before when `unchanged`). */
  sessions: RemoteSession[];
  /** Why the list there may be missing or old; '' when fine. */
  note: string;
  /** What to send with the next look (`--claude-since`). */
  token: string;
  /** The host said nothing changed since the token: keep the sessions of the look before. */
  unchanged: boolean;
}

/** One session as the host said it, checked: the raw material of a row. */
export interface RemoteSession {
  session: ClaudeSession;
  request?: { id: number; kind: 'permission' | 'question'; text: string; askedAt: string; detail: RequestDetail } | undefined;
  adopted?: Omit<AdoptedRow, 'settings' | 'ownerHeartbeatAt'> | undefined;
  loop?: string | undefined;
}

const MAX_SESSIONS = 500;
const MAX_TEXT = 500;

const isObject = isJsonObject;
const str = (v: unknown, max = MAX_TEXT): string => (typeof v === 'string' ? v.slice(0, max) : '');
const optStr = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v.slice(0, MAX_TEXT) : undefined);
const num = (v: unknown, d = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);
const optNum = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const ms = (iso: unknown): number | undefined => {
  const t = typeof iso === 'string' ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? t : undefined;
};

const ADOPTED_STATUSES: readonly AdoptedStatus[] = ['running', 'quota_wait', 'stopping'];

/** The host's `claudeSessions` / `claudeUnchanged` / `claudeToken`; undefined when it said none (not asked, or too old to know). */
export function parseRemoteClaude(data: Record<string, unknown>): RemoteClaude | undefined {
  const token = str(data.claudeToken, 20_000);
  if (data.claudeUnchanged === true) return { sessions: [], note: '', token, unchanged: true };
  if (!Array.isArray(data.claudeSessions)) return undefined;
  const sessions: RemoteSession[] = [];
  for (const raw of data.claudeSessions.slice(0, MAX_SESSIONS)) {
    const s = remoteSession(raw);
    if (s) sessions.push(s);
  }
  return { sessions, note: str(data.claudeNote), token, unchanged: false };
}

function remoteSession(raw: unknown): RemoteSession | undefined {
  if (!isObject(raw)) return undefined;
  const c = isObject(raw.claude) ? raw.claude : {};
  const sessionId = str(raw.sessionId);
  const id = str(raw.id, 64);
  const key = str(raw.key) || sessionId || (id ? `id:${id}` : '');
  if (!key) return undefined;
  const extra: Record<string, string> = {};
  if (isObject(c.extra)) for (const [k, v] of Object.entries(c.extra).slice(0, 20)) extra[k.slice(0, 60)] = str(v, 200);
  const pid = optNum(raw.pid);
  const session: ClaudeSession = {
    key, sessionId, id, kind: str(raw.kind) || 'unknown', name: str(raw.name), cwd: str(raw.cwd, 4096),
    pid, startedAt: ms(raw.startedAt), status: optStr(c.status), waitingFor: optStr(c.waitingFor), state: optStr(c.state),
    detail: optStr(c.detail), needs: optStr(c.needs), updatedAt: ms(raw.updatedAt), extra,
  };
  const r = isObject(raw.request) ? raw.request : undefined;
  const request = r && typeof r.id === 'number' && Number.isSafeInteger(r.id)
    ? { id: r.id, kind: r.kind === 'question' ? 'question' as const : 'permission' as const, text: str(r.text), askedAt: str(r.askedAt, 40), detail: requestDetail(r.detail) }
    : undefined;
  const a = isObject(raw.adopted) ? raw.adopted : undefined;
  const owner = a && isObject(a.owner) ? a.owner : {};
  const adopted = a && typeof a.startedAt === 'string'
    ? {
        sessionId, shortId: id, name: session.name, cwd: session.cwd,
        status: (ADOPTED_STATUSES as readonly string[]).includes(str(a.status)) ? (a.status as AdoptedStatus) : 'running',
        maxIterations: num(a.maxIterations, 1), timeoutMinutes: num(a.timeoutMinutes, 1), turns: num(a.iteration), startedAt: str(a.startedAt, 40),
        quotaWaitSince: str(a.quotaWaitSince, 40), quotaWaitMs: num(a.quotaWaitMs), quotaResetAt: str(a.quotaResetAt, 40), quotaResumes: num(a.quotaResumes),
        tokens: numOrNull(a.tokens), costUsd: numOrNull(a.costUsd), stopReason: '', ownerPid: numOrNull(owner.pid), ownerHost: typeof owner.host === 'string' ? owner.host.slice(0, 200) : null,
      }
    : undefined;
  const loop = optStr(raw.loop);
  return { session, ...(request ? { request } : {}), ...(adopted ? { adopted } : {}), ...(loop ? { loop } : {}) };
}

/** A request's detail, for the answer dialog: a question's options come from here. */
function requestDetail(v: unknown): RequestDetail {
  if (!isObject(v)) return { tool: '' };
  const questions = Array.isArray(v.questions) ? (boundedCopy(v.questions.slice(0, 10), { depth: 6, string: 1000, items: 20, total: 20_000 }) as unknown[]) : undefined;
  return {
    tool: str(v.tool, 100),
    ...(typeof v.command === 'string' ? { command: str(v.command, 4000) } : {}),
    ...(typeof v.file_path === 'string' ? { file_path: str(v.file_path, 4096) } : {}),
    ...(typeof v.url === 'string' ? { url: str(v.url, 4096) } : {}),
    ...(typeof v.description === 'string' ? { description: str(v.description) } : {}),
    ...(questions ? { questions } : {}),
  };
}

/**
 * A session of the host as the table's entry: times moved by `skewMs` (how far the host's
 * clock is ahead), autodeck's view of it worked out here as for this machine's sessions.
 */
export function remoteClaudeEntry(r: RemoteSession, skewMs: number, now: number): ClaudeEntry {
  const shift = (t: number | undefined): number | undefined => (t === undefined ? undefined : t - skewMs);
  const shiftIso = (iso: string): string => {
    const t = Date.parse(iso);
    return iso && Number.isFinite(t) && skewMs !== 0 ? new Date(t - skewMs).toISOString() : iso;
  };
  const session: ClaudeSession = { ...r.session, startedAt: shift(r.session.startedAt), updatedAt: shift(r.session.updatedAt) };
  const request: ClaudeRequestRow | undefined = r.request
    ? {
        id: r.request.id, sessionId: session.sessionId, jobId: session.id, kind: r.request.kind, tool: r.request.detail.tool, request: r.request.detail,
        text: r.request.text, askedAt: shiftIso(r.request.askedAt), hookPid: null, answer: undefined, answeredBy: '', answeredAt: null, closedAt: null, closedHow: '',
      }
    : undefined;
  const view = claudeView(session, now, request ? { id: request.id, kind: request.kind, text: request.text } : undefined);
  const adopted: AdoptedRow | undefined = r.adopted
    ? {
        ...r.adopted, settings: {}, ownerHeartbeatAt: null,
        startedAt: shiftIso(r.adopted.startedAt), quotaWaitSince: shiftIso(r.adopted.quotaWaitSince), quotaResetAt: shiftIso(r.adopted.quotaResetAt),
      }
    : undefined;
  return { session, view, ...(request ? { request } : {}), ...(adopted ? { adopted } : {}), ...(r.loop ? { loop: r.loop } : {}) };
}

/**
 * A host's Claude Code sessions as `status --json` and the API give them (each with its
 * `host`), as last read: the sessions of a host that does not answer now are its last
 * list (`stale`: how long since it answered, ms).
 */
export function remoteClaudeJson(snap: { entry: { label: string }; status?: { claude?: RemoteClaude | undefined } | undefined; skewMs: number; issue?: unknown; answeredAt?: number | undefined }, now: number): Record<string, unknown>[] {
  const stale = snap.issue !== undefined && snap.answeredAt !== undefined ? { staleMs: Math.max(0, now - snap.answeredAt) } : {};
  return (snap.status?.claude?.sessions ?? []).map((r) => ({ ...claudeSessionJson(remoteClaudeEntry(r, snap.skewMs, now), now), host: snap.entry.label, ...stale }));
}
