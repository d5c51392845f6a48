import type { Route, RequestContext, Reply } from './routes.js';
import { excerpt, HttpError, readJsonObject } from './body.js';
import { claudeServiceOf, type AnswerInput, type ClaudeService } from '../claudeSessions/service.js';
import { claudeSessionJson } from '../claudeSessions/json.js';
import { ActionError } from '../claudeSessions/actions.js';
import { AdoptError } from '../claudeSessions/adoption.js';
import type { ClaudeEntry } from '../claudeSessions/watch.js';
import type { ActionResult } from '../claudeSessions/rowActions.js';
import { LOCAL } from './hosts.js';

/**
 * Claude Code's own sessions over the REST API (docs/claude-sessions.md): list them, and
 * stop, send to, answer, adopt and remove one. `:id` is the short id of a background
 * session or the full session id of any.
 */

function service(ctx: RequestContext): ClaudeService {
  const s = claudeServiceOf(ctx.deps.supervisor);
  if (!s) throw new HttpError(503, 'this autodeck does not watch Claude Code sessions');
  return s;
}

function id(raw: string | undefined): string {
  let v: string | undefined;
  try {
    v = decodeURIComponent(raw ?? '');
  } catch { /* not an id */ }
  if (v === undefined || !/^[A-Za-z0-9._:-]{1,100}$/.test(v)) throw new HttpError(400, `a Claude Code session id is its short id or full session id, not ${excerpt(v ?? raw ?? '', 60)}`);
  return v;
}

/** An action's refusal as the HTTP status that says it. */
function failed(err: unknown): never {
  if (err instanceof ActionError || err instanceof AdoptError) {
    const status = err.kind === 'not_found' ? 404 : err.kind === 'conflict' ? 409 : err.kind === 'refused' ? 400 : 502;
    throw new HttpError(status, excerpt(err.message, 400));
  }
  throw err;
}

/** A session of another host (a dashboard over several), when this machine has none by that id. */
function remote(ctx: RequestContext, key: string): { key: string; host: string; entry: ClaudeEntry } | undefined {
  if (claudeServiceOf(ctx.deps.supervisor)?.find(key)) return undefined;
  return ctx.deps.hosts?.remoteClaudeSessions().find(({ entry: { session: x } }) => x.sessionId === key || x.key === key || (x.id !== '' && x.id === key));
}

const remoteJson = (ctx: RequestContext, r: { host: string; entry: ClaudeEntry }): Record<string, unknown> => ({ ...claudeSessionJson(r.entry, ctx.deps.now()), host: r.host });

/** What the other host's autodeck said of an action: done, or refused with its words (409). */
function remoteDone(r: ActionResult, body: Record<string, unknown>, status = 202): Reply {
  if (!r.ok) throw new HttpError(409, excerpt(r.message, 400));
  return { status, body: { ...body, ...(r.message ? { said: r.message } : {}) } };
}

function one(ctx: RequestContext): Reply {
  const key = id(ctx.params[0]);
  const r = remote(ctx, key);
  if (r) return { status: 200, body: remoteJson(ctx, r) };
  const e = service(ctx).find(key);
  if (!e) throw new HttpError(404, `no Claude Code session ${excerpt(ctx.params[0], 60)}`);
  return { status: 200, body: claudeSessionJson(e, ctx.deps.now()) };
}

function list(ctx: RequestContext): Reply {
  const others = (ctx.deps.hosts?.remoteClaudeSessions() ?? []).map((r) => remoteJson(ctx, r));
  const s = claudeServiceOf(ctx.deps.supervisor);
  if (!s && others.length === 0) service(ctx);
  const snap = s?.watch.snapshot();
  return { status: 200, body: { sessions: [...(snap?.entries ?? []).map((e) => ({ ...claudeSessionJson(e, ctx.deps.now()), host: LOCAL })), ...others], note: snap?.note || null } };
}

async function stop(ctx: RequestContext): Promise<Reply> {
  const key = id(ctx.params[0]);
  const r = remote(ctx, key);
  if (r) return remoteDone(await ctx.deps.hosts!.claude.stop(r.key), { id: key, host: r.host, stopped: true });
  const s = service(ctx);
  await s.stop(key).catch(failed);
  return { status: 202, body: { id: key, stopped: true } };
}

async function remove(ctx: RequestContext): Promise<Reply> {
  const key = id(ctx.params[0]);
  const r = remote(ctx, key);
  if (r) throw new HttpError(409, `${key} is on ${r.host}: remove it there (autodeck claude rm ${key})`);
  const s = service(ctx);
  await s.remove(key).catch(failed);
  return { status: 200, body: { id: key, removed: true } };
}

async function send(ctx: RequestContext): Promise<Reply> {
  const key = id(ctx.params[0]);
  const body = await readJsonObject(ctx.req);
  if (typeof body.prompt !== 'string' || body.prompt.trim() === '') throw new HttpError(400, 'prompt must be a non-empty string');
  const r = remote(ctx, key);
  if (r) return remoteDone(await ctx.deps.hosts!.claude.send(r.key, body.prompt), { id: r.entry.session.id, sessionId: r.entry.session.sessionId, host: r.host, sent: true });
  const s = service(ctx);
  const short = await s.send(key, body.prompt).catch(failed);
  const e = s.find(key);
  return { status: 202, body: { id: short, sessionId: e?.session.sessionId ?? null, sent: true } };
}

async function answer(ctx: RequestContext): Promise<Reply> {
  const key = id(ctx.params[0]);
  const body = await readJsonObject(ctx.req);
  const input: AnswerInput = {};
  if (body.decision !== undefined) {
    if (body.decision !== 'allow' && body.decision !== 'deny') throw new HttpError(400, 'decision must be "allow" or "deny"');
    input.decision = body.decision;
  }
  if (body.message !== undefined) {
    if (typeof body.message !== 'string') throw new HttpError(400, 'message must be a string');
    input.message = body.message;
  }
  if (body.text !== undefined) {
    if (typeof body.text !== 'string') throw new HttpError(400, 'text must be a string');
    input.text = body.text;
  }
  if (body.answers !== undefined) {
    const a = body.answers;
    if (typeof a !== 'object' || a === null || Array.isArray(a) || Object.values(a).some((v) => typeof v !== 'string')) throw new HttpError(400, 'answers must map each question to a string');
    input.answers = a as Record<string, string>;
  }
  const r = remote(ctx, key);
  // (on another host the answer goes out over ssh: what came of it is in the event stream)
  if (r) return remoteDone(ctx.deps.hosts!.claude.answer(r.key, input), { id: key, host: r.host, answering: true });
  const s = service(ctx);
  const given = (() => {
    try {
      return s.answer(key, input, 'a person through the API');
    } catch (err) {
      return failed(err);
    }
  })();
  return { status: 200, body: { id: key, answer: given } };
}

function adopt(ctx: RequestContext): Promise<Reply> {
  return (async () => {
    const key = id(ctx.params[0]);
    const body = await readJsonObject(ctx.req);
    const limits: { maxIterations?: number; timeoutMinutes?: number } = {};
    if (body.maxIterations !== undefined) {
      const v = body.maxIterations;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 1000) throw new HttpError(400, 'maxIterations must be a whole number from 1 to 1000');
      limits.maxIterations = v;
    }
    if (body.timeoutMinutes !== undefined) {
      const v = body.timeoutMinutes;
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > 1440) throw new HttpError(400, 'timeoutMinutes must be a number of minutes above 0 and at most 1440');
      limits.timeoutMinutes = v;
    }
    const r = remote(ctx, key);
    if (r) return remoteDone(ctx.deps.hosts!.claude.adopt(r.key, limits), { id: key, host: r.host, adopting: true });
    const s = service(ctx);
    try {
      s.adopt(key, limits);
    } catch (err) {
      failed(err);
    }
    const e = s.find(key);
    return { status: 201, body: e ? claudeSessionJson(e, ctx.deps.now()) : { id: key } };
  })();
}

export const CLAUDE_ROUTES: readonly Route[] = [
  { pattern: /^\/api\/claude-sessions$/, handlers: { GET: list } },
  { pattern: /^\/api\/claude-sessions\/([^/]+)$/, handlers: { GET: one, DELETE: remove } },
  { pattern: /^\/api\/claude-sessions\/([^/]+)\/stop$/, handlers: { POST: stop } },
  { pattern: /^\/api\/claude-sessions\/([^/]+)\/prompt$/, handlers: { POST: send } },
  { pattern: /^\/api\/claude-sessions\/([^/]+)\/answer$/, handlers: { POST: answer } },
  { pattern: /^\/api\/claude-sessions\/([^/]+)\/adopt$/, handlers: { POST: adopt } },
];
