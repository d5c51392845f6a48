import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A small fake of the Gemini API (`generativelanguage` v1beta), enough to run the real
 * Gemini CLI offline with `GEMINI_API_KEY` and `GOOGLE_GEMINI_BASE_URL` pointing here
 * (test/helpers/geminiCli.ts). Listens on 127.0.0.1 only; the CLI's proxy variables
 * point here too, and every CONNECT tunnel is refused and logged.
 *
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` is a main turn, answered from
 * the script as `data: <GenerateContentResponse>` events; `:generateContent` (the CLI's own
 * side requests: model routing, next-speaker checks, …) gets a short JSON text, and
 * `:countTokens` a count. Errors are the Google API error body
 * (`{error: {code, message, status, details}}`) that the CLI classifies
 * (packages/core/src/utils/googleQuotaErrors.ts).
 */

export interface GeminiUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
  cachedContentTokenCount: number;
  thoughtsTokenCount: number;
}

export const DEFAULT_GEMINI_USAGE: GeminiUsage = { promptTokenCount: 900, candidatesTokenCount: 30, cachedContentTokenCount: 0, thoughtsTokenCount: 0 };

interface Answered {
  usage?: Partial<GeminiUsage>;
  delayMs?: number;
}

export interface GeminiQuota {
  /** HTTP status (429 by default). */
  code?: number;
  message?: string;
  /** `RetryInfo.retryDelay`, e.g. `100s`. */
  retryDelay?: string;
  /** A `QuotaFailure` violation's quotaId (`…PerDay…` makes it a daily, terminal quota). */
  quotaId?: string;
  /** An `ErrorInfo` reason (`MODEL_CAPACITY_EXHAUSTED`, `RATE_LIMIT_EXCEEDED`). */
  reason?: string;
}

export type GeminiStep =
  /** Text; `pause` stops the stream after `afterChars` characters for `ms`. */
  | ({ text: string; pause?: { afterChars: number; ms: number } } & Answered)
  /** A function call (`run_shell_command`, `write_file`, …) with its args. */
  | ({ call: { name: string; args: Record<string, unknown> }; text?: string; pause?: { afterChars: number; ms: number } } & Answered)
  /** A Google API error for `times` main-turn requests in a row (default 1), or every one until `untilMs` (wall clock). */
  | { quota: GeminiQuota; times?: number; untilMs?: number; delayMs?: number };

export interface LoggedGeminiRequest {
  method: string;
  path: string;
  /** 'main' (stream), 'side' (generateContent), 'count', 'connect', 'other'. */
  kind: string;
  answer?: string;
  body?: Record<string, unknown>;
}

export interface FakeGemini {
  port: number;
  url: string;
  requests: LoggedGeminiRequest[];
  push(...steps: GeminiStep[]): void;
  mainTurns(): number;
  close(): Promise<void>;
}

export interface FakeGeminiOptions {
  defaultText?: string;
  /**
   * Looked at before each main turn: a text it returns is the answer, and the rest of the
   * script is dropped (a model that reads the stop file and stops).
   */
  stopWhen?: (body: Record<string, unknown>) => string | undefined;
  verbose?: boolean;
}

const MAX_BODY = 32 * 1024 * 1024;
let seq = 0;
const id = () => `fake${Date.now().toString(36)}${(seq++).toString(36).padStart(6, '0')}`;

export async function startFakeGemini(script: GeminiStep[] = [], opts: FakeGeminiOptions = {}): Promise<FakeGemini> {
  const queue = [...script];
  const requests: LoggedGeminiRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let served = 0;
  let mainTurns = 0;

  const sleep = (ms: number) => new Promise<void>((resolve) => {
    const t = setTimeout(() => { timers.delete(t); resolve(); }, ms);
    timers.add(t);
  });
  const log = (r: LoggedGeminiRequest) => {
    requests.push(r);
    if (opts.verbose) process.stderr.write(`[fake-gemini] ${r.method} ${r.path} ${r.kind} -> ${r.answer ?? ''}\n`);
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { code: 500, message: String(err), status: 'INTERNAL' } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch { /* not JSON */ }
    const m = /^\/v1(?:beta|alpha)?\/models\/([^:/]+):(\w+)$/.exec(path);
    if (req.method !== 'POST' || !m) {
      log({ method: req.method ?? '', path: req.url ?? '', kind: 'other', answer: '404' });
      return sendJson(res, 404, { error: { code: 404, message: `fake: no ${req.method} ${path}`, status: 'NOT_FOUND' } });
    }
    const [, model, method] = m as unknown as [string, string, string];
    if (method === 'countTokens') {
      log({ method: 'POST', path, kind: 'count', answer: 'tokens' });
      return sendJson(res, 200, { totalTokens: 100 });
    }
    if (method === 'generateContent') {
      // the CLI's side requests ask for JSON (routing: a complexity score; next speaker: who talks next)
      log({ method: 'POST', path, kind: 'side', answer: 'json', body });
      const text = sideAnswer(body);
      return sendJson(res, 200, response(model, [{ text }], DEFAULT_GEMINI_USAGE, 'STOP'));
    }
    if (method !== 'streamGenerateContent') {
      log({ method: 'POST', path, kind: 'other', answer: '404' });
      return sendJson(res, 404, { error: { code: 404, message: `fake: no method ${method}`, status: 'NOT_FOUND' } });
    }
    mainTurns++;
    const stopText = opts.stopWhen?.(body);
    if (stopText !== undefined) queue.length = 0;
    // a limit that has lifted: the next step answers
    while (queue[0] && 'quota' in queue[0] && queue[0].untilMs !== undefined && Date.now() >= queue[0].untilMs) queue.shift();
    const step = queue[0];
    if (step && 'quota' in step) {
      if (step.untilMs === undefined && ++served >= (step.times ?? 1)) {
        queue.shift();
        served = 0;
      }
    } else queue.shift();
    if (step?.delayMs) await sleep(step.delayMs);
    if (step && 'quota' in step) {
      log({ method: 'POST', path, kind: 'main', answer: String(step.quota.code ?? 429), body });
      return sendJson(res, step.quota.code ?? 429, quotaError(step.quota));
    }
    const usage = { ...DEFAULT_GEMINI_USAGE, ...(step && 'usage' in step ? step.usage : {}) };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (value: unknown) => res.write(`data: ${JSON.stringify(value)}\r\n\r\n`);
    const text = stopText ?? (!step ? opts.defaultText ?? 'Done.' : 'text' in step ? step.text : undefined);
    const call = stopText === undefined && step && 'call' in step ? step.call : undefined;
    if (text !== undefined) {
      const pause = step && 'pause' in step ? step.pause : undefined;
      const cut = pause ? Math.min(pause.afterChars, text.length) : text.length;
      send(response(model, [{ text: text.slice(0, cut) }], undefined, undefined));
      if (pause) {
        await sleep(pause.ms);
        if (res.destroyed) return;
        send(response(model, [{ text: text.slice(cut) }], undefined, undefined));
      }
    }
    send(response(model, call ? [{ functionCall: { name: call.name, args: call.args } }] : [{ text: '' }], usage, 'STOP'));
    log({ method: 'POST', path, kind: 'main', answer: call ? `call:${call.name}` : stopText !== undefined ? 'stop' : 'text', body });
    res.end();
  }

  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    log({ method: 'CONNECT', path: req.url ?? '', kind: 'connect', answer: '403' });
    socket.on('error', () => {});
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    push: (...steps) => void queue.push(...steps),
    mainTurns: () => mainTurns,
    close: () => new Promise<void>((resolve) => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

function response(model: string, parts: Record<string, unknown>[], usage: GeminiUsage | undefined, finishReason: string | undefined): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { parts, role: 'model' }, index: 0 };
  if (finishReason) candidate.finishReason = finishReason;
  const out: Record<string, unknown> = { candidates: [candidate], modelVersion: model, responseId: id() };
  if (usage) {
    out.usageMetadata = {
      promptTokenCount: usage.promptTokenCount, candidatesTokenCount: usage.candidatesTokenCount,
      ...(usage.cachedContentTokenCount ? { cachedContentTokenCount: usage.cachedContentTokenCount } : {}),
      ...(usage.thoughtsTokenCount ? { thoughtsTokenCount: usage.thoughtsTokenCount } : {}),
      totalTokenCount: usage.promptTokenCount + usage.candidatesTokenCount + usage.thoughtsTokenCount,
    };
  }
  return out;
}

/** The JSON a side request asks for: a routing score, or who speaks next (the user: the turn is over). */
function sideAnswer(body: Record<string, unknown>): string {
  const text = JSON.stringify(body).slice(0, 200_000);
  if (/complexity_score/.test(text)) return JSON.stringify({ complexity_reasoning: 'Fake.', complexity_score: 10 });
  if (/next_speaker/.test(text)) return JSON.stringify({ reasoning: 'Fake.', next_speaker: 'user' });
  return '{}';
}

function quotaError(q: GeminiQuota): Record<string, unknown> {
  const details: Record<string, unknown>[] = [];
  if (q.quotaId) {
    details.push({ '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_requests', quotaId: q.quotaId }] });
  }
  if (q.reason) details.push({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: q.reason, domain: 'generativelanguage.googleapis.com' });
  if (q.retryDelay) details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: q.retryDelay });
  const code = q.code ?? 429;
  return { error: { code, message: q.message ?? 'Resource has been exhausted (e.g. check quota).', status: code === 429 ? 'RESOURCE_EXHAUSTED' : 'UNAVAILABLE', details } };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('request body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const data = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
  res.end(data);
}

/** The text of the last user turn of a request body (what was typed, or a tool result's name). */
export function lastGeminiUserText(body: Record<string, unknown> | undefined): string {
  const contents = Array.isArray(body?.contents) ? (body.contents as Record<string, unknown>[]) : [];
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i]!;
    if (c.role !== 'user') continue;
    const parts = Array.isArray(c.parts) ? (c.parts as Record<string, unknown>[]) : [];
    return parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
  }
  return '';
}
