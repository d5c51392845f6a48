import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as zlib from 'node:zlib';

/**
 * A small fake of the OpenAI Responses API (`POST /v1/responses`, streamed as SSE), enough
 * to run the real Codex CLI offline through a `model_providers` entry with
 * `wire_api = "responses"` (test/helpers/codexCli.ts). Listens on 127.0.0.1 only; the
 * CLI's proxy variables point here too, and every CONNECT tunnel is refused and logged.
 *
 * The event shapes are the ones Codex parses (codex-rs/codex-api/src/sse/responses.rs):
 * `response.created`, `response.output_item.added` / `.done`, `response.output_text.delta`,
 * `response.completed` with `usage`; errors as HTTP statuses with an `error` body
 * (codex-rs/codex-api/src/api_bridge.rs: a 429 whose `error.type` is `usage_limit_reached`
 * is a usage limit with `resets_at`; any other 429 is retried, then "exceeded retry limit").
 * Its rate-limit headers (`x-codex-primary-used-percent` …) feed the CLI's usage footer.
 */

export interface ResponsesUsage {
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
}

export const DEFAULT_RESPONSES_USAGE: ResponsesUsage = { input_tokens: 1200, cached_tokens: 0, output_tokens: 40, reasoning_tokens: 0 };

/** The usage window the headers report: `x-codex-primary-*`. */
export interface UsageWindow {
  usedPercent: number;
  windowMinutes: number;
  /** Unix epoch seconds. */
  resetAt: number;
}

interface Answered {
  usage?: Partial<ResponsesUsage>;
  /** Waits this long before the response starts (the CLI shows its busy screen). */
  delayMs?: number;
}

/** One answer to one main-turn request. */
export type OpenAIStep =
  /** A text answer; `pause` stops the stream after `afterChars` characters for `ms` (a model thinking mid-answer). */
  | ({ text: string; pause?: { afterChars: number; ms: number } } & Answered)
  /**
   * A shell command through Codex's `exec_command` tool; `escalate` asks to run it outside
   * the sandbox, which Codex puts to the user as an approval prompt.
   */
  | ({ exec: { cmd: string; escalate?: boolean; justification?: string; workdir?: string }; text?: string; pause?: { afterChars: number; ms: number } } & Answered)
  /**
   * HTTP 429 `usage_limit_reached` with its reset (epoch seconds), for `times` requests
   * (default 1), or for every request until the reset when `untilReset` is set.
   */
  | { usageLimit: { resetsAt: number; planType?: string }; times?: number; untilReset?: boolean; delayMs?: number }
  /** HTTP 429 without a usage-limit body: Codex retries it; `times` requests in a row (default 1). */
  | { tooManyRequests: true; times?: number; delayMs?: number };

export interface LoggedOpenAIRequest {
  method: string;
  path: string;
  /** 'main' for /v1/responses, 'connect' for a refused tunnel, 'other'. */
  kind: string;
  answer?: string;
  body?: Record<string, unknown>;
}

export interface FakeOpenAI {
  port: number;
  /** The provider's base_url (`…/v1`). */
  baseUrl: string;
  requests: LoggedOpenAIRequest[];
  push(...steps: OpenAIStep[]): void;
  /** Main-turn requests answered so far. */
  mainTurns(): number;
  /** The usage window every response reports from now on (undefined: no headers). */
  setWindow(w: UsageWindow | undefined): void;
  close(): Promise<void>;
}

export interface FakeOpenAIOptions {
  defaultText?: string;
  /**
   * Looked at before each main turn: a text it returns is the answer, and the rest of the
   * script is dropped (a model that reads the stop file and stops).
   */
  stopWhen?: (body: Record<string, unknown>) => string | undefined;
  window?: UsageWindow;
  model?: string;
  verbose?: boolean;
}

const MAX_BODY = 32 * 1024 * 1024;
let seq = 0;
const id = (prefix: string) => `${prefix}_fake${Date.now().toString(36)}${(seq++).toString(36).padStart(6, '0')}`;

export async function startFakeOpenAI(script: OpenAIStep[] = [], opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const queue = [...script];
  const requests: LoggedOpenAIRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let window = opts.window;
  let served = 0;
  let mainTurns = 0;

  const sleep = (ms: number) => new Promise<void>((resolve) => {
    const t = setTimeout(() => { timers.delete(t); resolve(); }, ms);
    timers.add(t);
  });
  const log = (r: LoggedOpenAIRequest) => {
    requests.push(r);
    if (opts.verbose) process.stderr.write(`[fake-openai] ${r.method} ${r.path} ${r.kind} -> ${r.answer ?? ''}\n`);
  };
  const windowHeaders = (): Record<string, string> => window ? {
    'x-codex-primary-used-percent': String(window.usedPercent),
    'x-codex-primary-window-minutes': String(window.windowMinutes),
    'x-codex-primary-reset-at': String(window.resetAt),
  } : {};

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(err), type: 'server_error' } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch { /* not JSON */ }
    if (req.method !== 'POST' || !path.endsWith('/responses')) {
      log({ method: req.method ?? '', path: req.url ?? '', kind: 'other', answer: '404' });
      return sendJson(res, 404, { error: { message: `fake: no ${req.method} ${path}`, type: 'invalid_request_error' } });
    }
    const meta = turnMetadata(req, body);
    const tools = Array.isArray(body.tools) ? body.tools.length : 0;
    if (tools === 0 || (meta.thread_source !== undefined && meta.thread_source !== 'user')) {
      // Codex's side requests (a thread title: `thread_source: "thread_title"`, no tools): a short text, never a script step
      log({ method: 'POST', path, kind: `side:${String(meta.thread_source ?? 'untooled')}`, answer: 'text', body });
      return streamText(res, id('resp'), typeof body.model === 'string' ? body.model : 'gpt-5.1-codex', meta.thread_source === 'thread_title' ? 'Fake task' : 'OK');
    }
    mainTurns++;
    const stopText = opts.stopWhen?.(body);
    if (stopText !== undefined) {
      queue.length = 0;
      log({ method: 'POST', path, kind: 'main', answer: 'stop', body });
      return streamText(res, id('resp'), typeof body.model === 'string' ? body.model : 'gpt-5.1-codex', stopText);
    }
    // a limit that has lifted: the next step answers
    while (queue[0] && 'usageLimit' in queue[0] && queue[0].untilReset && Date.now() >= queue[0].usageLimit.resetsAt * 1000) queue.shift();
    // Take the step before any delay, so a request arriving meanwhile gets the next one.
    const step = queue[0];
    if (step && ('usageLimit' in step || 'tooManyRequests' in step)) {
      if (!('untilReset' in step && step.untilReset) && ++served >= (step.times ?? 1)) {
        queue.shift();
        served = 0;
      }
    } else queue.shift();
    if (step?.delayMs) await sleep(step.delayMs);
    const model = opts.model ?? (typeof body.model === 'string' ? body.model : 'gpt-5.1-codex');
    if (step && 'usageLimit' in step) {
      log({ method: 'POST', path, kind: 'main', answer: '429 usage_limit_reached', body });
      const full = window ? { ...window, usedPercent: 100 } : undefined;
      return sendJson(res, 429, {
        error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: step.usageLimit.planType ?? 'plus', resets_at: step.usageLimit.resetsAt },
      }, full ? {
        'x-codex-primary-used-percent': '100', 'x-codex-primary-window-minutes': String(full.windowMinutes), 'x-codex-primary-reset-at': String(full.resetAt),
      } : {});
    }
    if (step && 'tooManyRequests' in step) {
      log({ method: 'POST', path, kind: 'main', answer: '429', body });
      return sendJson(res, 429, { error: { type: 'rate_limit_exceeded', message: 'Rate limit reached for requests', code: 'rate_limit_exceeded' } }, { 'retry-after': '1' });
    }
    const usage = { ...DEFAULT_RESPONSES_USAGE, ...(step && 'usage' in step ? step.usage : {}) };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': id('req'), ...windowHeaders() });
    const responseId = id('resp');
    const send = (data: Record<string, unknown>) => res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
    send({ type: 'response.created', response: { id: responseId, object: 'response', model, status: 'in_progress' } });
    const items: Record<string, unknown>[] = [];
    const text = !step ? opts.defaultText ?? 'Done.' : 'text' in step ? step.text : undefined;
    if (text !== undefined) {
      const msgId = id('msg');
      const item = { type: 'message', id: msgId, role: 'assistant', status: 'in_progress', content: [] };
      send({ type: 'response.output_item.added', output_index: 0, item });
      const pause = step && 'pause' in step ? step.pause : undefined;
      const cut = pause ? Math.min(pause.afterChars, text.length) : text.length;
      send({ type: 'response.output_text.delta', item_id: msgId, output_index: 0, content_index: 0, delta: text.slice(0, cut) });
      if (pause) {
        await sleep(pause.ms);
        if (res.destroyed) return;
        send({ type: 'response.output_text.delta', item_id: msgId, output_index: 0, content_index: 0, delta: text.slice(cut) });
      }
      const done = { ...item, status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
      send({ type: 'response.output_item.done', output_index: 0, item: done });
      items.push(done);
    }
    if (step && 'exec' in step) {
      const args: Record<string, unknown> = { cmd: step.exec.cmd };
      if (step.exec.workdir) args.workdir = step.exec.workdir;
      if (step.exec.escalate) {
        args.sandbox_permissions = 'require_escalated';
        args.justification = step.exec.justification ?? 'Do you want to run this command?';
      }
      const call = { type: 'function_call', id: id('fc'), call_id: id('call'), name: 'exec_command', arguments: JSON.stringify(args), status: 'completed' };
      send({ type: 'response.output_item.added', output_index: items.length, item: { ...call, arguments: '' } });
      send({ type: 'response.output_item.done', output_index: items.length, item: call });
      items.push(call);
    }
    log({ method: 'POST', path, kind: 'main', answer: step && 'exec' in step ? 'exec' : 'text', body });
    send({
      type: 'response.completed',
      response: {
        id: responseId, object: 'response', model, status: 'completed', output: items,
        usage: {
          input_tokens: usage.input_tokens, input_tokens_details: { cached_tokens: usage.cached_tokens },
          output_tokens: usage.output_tokens, output_tokens_details: { reasoning_tokens: usage.reasoning_tokens },
          total_tokens: usage.input_tokens + usage.output_tokens,
        },
      },
    });
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
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...steps) => void queue.push(...steps),
    mainTurns: () => mainTurns,
    setWindow: (w) => { window = w; },
    close: () => new Promise<void>((resolve) => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

/** The request body, decompressed when the CLI compressed it (`content-encoding: zstd|gzip`). */
function readBody(req: IncomingMessage): Promise<Buffer> {
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
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const enc = String(req.headers['content-encoding'] ?? '');
      try {
        if (enc === 'gzip') return resolve(zlib.gunzipSync(raw));
        const zstd = (zlib as { zstdDecompressSync?: (b: Buffer) => Buffer }).zstdDecompressSync;
        if (enc === 'zstd' && zstd) return resolve(zstd(raw));
      } catch { /* as it came */ }
      resolve(raw);
    });
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const data = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), 'x-request-id': id('req'), ...headers });
  res.end(data);
}

/** The text of the last user message of a main-turn request body (what was typed). */
export function lastUserText(body: Record<string, unknown> | undefined): string {
  const input = Array.isArray(body?.input) ? (body.input as Record<string, unknown>[]) : [];
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i]!;
    if (item.type !== 'message' || item.role !== 'user') continue;
    const content = Array.isArray(item.content) ? (item.content as Record<string, unknown>[]) : [];
    return content.map((c) => (typeof c.text === 'string' ? c.text : '')).join('');
  }
  return '';
}

/** Codex's turn metadata (`x-codex-turn-metadata`, header or `client_metadata`): `request_kind` says what a request is for. */
function turnMetadata(req: IncomingMessage, body: Record<string, unknown>): Record<string, unknown> {
  const fromBody = (body.client_metadata as Record<string, unknown> | undefined)?.['x-codex-turn-metadata'];
  const raw = req.headers['x-codex-turn-metadata'] ?? fromBody;
  try {
    const v = JSON.parse(String(raw)) as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A whole text answer as one SSE response. */
function streamText(res: ServerResponse, responseId: string, model: string, text: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: Record<string, unknown>) => res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
  send({ type: 'response.created', response: { id: responseId, object: 'response', model, status: 'in_progress' } });
  const item = { type: 'message', id: id('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
  send({ type: 'response.output_item.done', output_index: 0, item });
  send({ type: 'response.completed', response: { id: responseId, object: 'response', model, status: 'completed', output: [item], usage: { input_tokens: 50, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 55 } } });
  res.end();
}
