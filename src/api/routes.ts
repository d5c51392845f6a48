import { realpathSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAbsolute } from 'node:path';
import { isSessionId } from '../paths.js';
import { resolveModule } from '../protocol/modules.js';
import { isBusyError } from '../store/db.js';
import type { Store } from '../store/index.js';
import type { LoopRow } from '../store/loops.js';
import { ownerAlive } from '../supervisor/owner.js';
import { loopStatusJson } from '../supervisor/snapshot.js';
import { StartRefused, type StartOptions, type Supervisor } from '../supervisor/supervisor.js';
import { excerpt, HttpError, readJsonObject } from './body.js';
import { suggestionFor } from '../history/forModule.js';
import type { EventHub } from './events.js';
import { openApiDocument } from './openapi.js';
import { LOCAL, type HostsView } from './hosts.js';
import { runJson } from '../supervisor/snapshot.js';
import { CLAUDE_ROUTES } from './claudeRoutes.js';
import { claudeServiceOf } from '../claudeSessions/service.js';
import { claudeSessionJson } from '../claudeSessions/json.js';

/** What the routes work with. */
export interface ApiDeps {
  supervisor: Supervisor;
  store: Store;
  /** The roots under which `taskDir` must lie. */
  settings: { roots: readonly string[] };
  now: () => number;
  /** The open event streams of `GET /api/events`. */
  events: EventHub;
  /** A dashboard's other hosts (src/hosts/), when it reads some. */
  hosts?: HostsView | undefined;
}

export interface RequestContext {
  req: IncomingMessage;
  url: URL;
  /** The path's captured segments, in order. */
  params: string[];
  deps: ApiDeps;
}

/** A JSON answer, or a response the handler's `stream` takes over (an event stream). */
export type Reply = { status: number; body: unknown } | { stream: (req: IncomingMessage, res: ServerResponse) => void };

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;
export type Method = 'GET' | 'POST' | 'DELETE';

export interface Route {
  pattern: RegExp;
  handlers: Partial<Record<Method, Handler>>;
}

/** `:id` of `/api/sessions/:id/task-auto` that means "the session autodeck derives". */
export const AUTO_SESSION = 'auto';

const START_FIELDS = new Set(['taskDir', 'maxIterations', 'timeoutMinutes', 'worktree']);

/** The start options of a body, checked as the settings are. */
function startOptions(body: Record<string, unknown>): StartOptions {
  const options: StartOptions = {};
  const { maxIterations, timeoutMinutes } = body;
  if (maxIterations !== undefined) {
    if (typeof maxIterations !== 'number' || !Number.isInteger(maxIterations) || maxIterations < 1 || maxIterations > 1000) {
      throw new HttpError(400, `maxIterations must be a whole number from 1 to 1000 (got ${excerpt(maxIterations, 40)})`);
    }
    options.maxIterations = maxIterations;
  }
  if (timeoutMinutes !== undefined) {
    if (typeof timeoutMinutes !== 'number' || !Number.isFinite(timeoutMinutes) || timeoutMinutes <= 0 || timeoutMinutes > 1440) {
      throw new HttpError(400, `timeoutMinutes must be a number of minutes above 0 and at most 1440 (got ${excerpt(timeoutMinutes, 40)})`);
    }
    options.timeoutMinutes = timeoutMinutes;
  }
  if (body.worktree !== undefined) {
    if (typeof body.worktree !== 'boolean') throw new HttpError(400, `worktree must be true or false (got ${excerpt(body.worktree, 40)})`);
    options.worktree = body.worktree;
  }
  return options;
}

function statusOf(row: LoopRow, deps: ApiDeps): Record<string, unknown> {
  const now = deps.now();
  return { ...loopStatusJson(row, now, ownerAlive(row, { host: deps.supervisor.host, now })), host: LOCAL };
}

/** Runs `status --json --host` lists under `recent`, per host. */
const RECENT_RUNS = 10;

/** GET: every loop and the last finished runs, this machine's and (in a dashboard over several hosts) the others', each with its host. */
export function getStatus({ deps }: RequestContext): Reply {
  const others = deps.hosts?.hostStatus() ?? [];
  const loops = [...deps.store.loops.list().map((row) => statusOf(row, deps)), ...others.flatMap((h) => h.loops.map((l) => ({ ...l, host: h.host })))];
  const recent: Record<string, unknown>[] = [...deps.store.runs.list(RECENT_RUNS).map((r) => ({ ...runJson(r), host: LOCAL })), ...others.flatMap((h) => h.recent.map((r) => ({ ...r, host: h.host })))];
  recent.sort((a, b) => String(b.endedAt ?? '').localeCompare(String(a.endedAt ?? '')));
  const hosts = [{ host: LOCAL, state: 'ok' }, ...others.map(({ loops: _l, recent: _r, claudeSessions: _c, ...h }) => h)];
  // Claude Code's own sessions, as status --json has them: this machine's, then each host's
  const claude = claudeServiceOf(deps.supervisor)?.watch.snapshot();
  const remote = others.flatMap((h) => h.claudeSessions);
  const sessions = claude || remote.length > 0
    ? { claudeSessions: [...(claude?.entries ?? []).map((e) => ({ ...claudeSessionJson(e, deps.now()), host: LOCAL })), ...remote], ...(claude?.note ? { claudeNote: claude.note } : {}) }
    : {};
  return { status: 200, body: { loops, recent, ...sessions, hosts } };
}

/** POST: starts a loop and answers with its status object. */
export async function startLoop({ req, params, deps }: RequestContext): Promise<Reply> {
  const body = await readJsonObject(req);
  const unknown = Object.keys(body).filter((k) => !START_FIELDS.has(k));
  if (unknown.length > 0) throw new HttpError(400, `unknown field${unknown.length > 1 ? 's' : ''}: ${excerpt(unknown.join(', '))}`);
  const { taskDir } = body;
  if (typeof taskDir !== 'string' || taskDir === '') throw new HttpError(400, 'taskDir must be a string: the absolute path of a task module');
  const options = startOptions(body);
  if (!isAbsolute(taskDir)) throw new HttpError(403, `not a task module under a root: taskDir must be an absolute path (got ${excerpt(taskDir)})`);
  const resolved = resolveModule(taskDir, deps.settings.roots);
  if (!resolved.ok) throw new HttpError(403, `not a task module under a root: ${excerpt(taskDir)}`);
  const { module } = resolved;
  const id = sessionId(params[0]);
  if (id !== AUTO_SESSION) options.session = id;
  // Limits the client left out come from the module's past runs, else the defaults.
  if (options.maxIterations === undefined || options.timeoutMinutes === undefined) {
    const { maxIterations, timeoutMinutes } = deps.supervisor.settings;
    const suggested = suggestionFor(deps.store, module.dir, { maxIterations, timeoutMinutes });
    options.maxIterations ??= suggested.maxIterations;
    options.timeoutMinutes ??= suggested.timeoutMinutes;
  }
  try {
    deps.supervisor.start(module.dir, options);
  } catch (err) {
    if (err instanceof StartRefused) throw new HttpError(err.kind === 'conflict' ? 409 : 400, excerpt(err.message, 300));
    if (isBusyError(err)) throw new HttpError(503, 'the state database is locked by another process; try again');
    throw err;
  }
  const row = deps.store.loops.getByTaskDir(module.dir);
  // Adopting an orphan that was stopping finishes it at once: nothing runs now.
  if (!row) throw new HttpError(409, `${excerpt(module.name, 60)}: a loop left there by an autodeck that died was being stopped and has been finished; start again`);
  return { status: 201, body: statusOf(row, deps) };
}

/** The path's `:id`, decoded and checked (`[A-Za-z0-9._-]{1,64}`), or 400. */
function sessionId(raw: string | undefined): string {
  let id: string | undefined;
  try {
    id = decodeURIComponent(raw ?? '');
  } catch { /* malformed escape: not an id */ }
  if (id === undefined || !isSessionId(id)) {
    throw new HttpError(400, `a session id is 1 to 64 of A-Z a-z 0-9 . _ - (or "${AUTO_SESSION}"), not ${excerpt(id ?? raw ?? '', 60)}`);
  }
  return id;
}

/** The active row of a session, or 404. */
function sessionRow(deps: ApiDeps, raw: string | undefined): LoopRow {
  const id = sessionId(raw);
  const row = deps.store.loops.get(id);
  if (!row) throw new HttpError(404, `no loop in session ${excerpt(id, 60)}`);
  return row;
}

/** GET: a loop's status object, as in `status --json`. */
export function getLoop({ params, deps }: RequestContext): Reply {
  return { status: 200, body: statusOf(sessionRow(deps, params[0]), deps) };
}

/** DELETE: a user stop, through the stop file. */
export function stopLoop({ params, deps }: RequestContext): Reply {
  const row = sessionRow(deps, params[0]);
  if (row.status === 'failed' || !deps.supervisor.stop(row.taskDir, { reason: 'user_stop' })) {
    throw new HttpError(404, `no active loop in session ${row.session}`);
  }
  return { status: 202, body: { session_name: row.session, status: 'stopping' } };
}

/** GET lookup: which session runs the module at `taskDir`. */
export function lookupLoop({ url, deps }: RequestContext): Reply {
  const taskDir = url.searchParams.get('taskDir');
  if (taskDir === null || taskDir === '') throw new HttpError(400, 'the taskDir query parameter is required');
  if (!isAbsolute(taskDir)) throw new HttpError(400, `taskDir must be an absolute path (got ${excerpt(taskDir)})`);
  let real: string;
  try {
    real = realpathSync(taskDir);
  } catch {
    throw new HttpError(404, `no loop for ${excerpt(taskDir)}`);
  }
  const row = deps.store.loops.getByTaskDir(real);
  if (!row) throw new HttpError(404, `no loop for ${excerpt(taskDir)}`);
  return { status: 200, body: { session_name: row.session, status: row.status } };
}

/** GET: the loops' events as Server-Sent Events, until the client goes away. */
export function streamEvents({ deps }: RequestContext): Reply {
  if (deps.events.full) throw new HttpError(503, 'too many event streams are open; try again later', { 'Retry-After': '10' });
  return { stream: (_req, res) => deps.events.attach(res) };
}

/** GET: the OpenAPI 3.1 description of these routes. */
export function getOpenApi(): Reply {
  return { status: 200, body: openApiDocument() };
}

/**
 * A path matches one route at most. `:id` takes anything up to the last
 * `/task-auto`, so a bad id (`a/b`) is a 400 that says why, not a 404.
 */
export const ROUTES: readonly Route[] = [
  { pattern: /^\/api\/sessions\/(.+)\/task-auto$/, handlers: { POST: startLoop, GET: getLoop, DELETE: stopLoop } },
  { pattern: /^\/api\/task-auto\/lookup$/, handlers: { GET: lookupLoop } },
  { pattern: /^\/api\/events$/, handlers: { GET: streamEvents } },
  { pattern: /^\/api\/status$/, handlers: { GET: getStatus } },
  { pattern: /^\/api\/openapi\.json$/, handlers: { GET: getOpenApi } },
  // Claude Code's own sessions
  ...CLAUDE_ROUTES,
];

export type Match = { route: Route; params: string[] } | undefined;

export function matchRoute(path: string, routes: readonly Route[] = ROUTES): Match {
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (m) return { route, params: m.slice(1).map((s) => s ?? '') };
  }
  return undefined;
}
