import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A small fake of the Anthropic Messages API, enough to run the real Claude Code CLI
 * offline (test/fixtures/screens/claude/README.md). Listens on 127.0.0.1 only.
 *
 * A request with a non-empty `tools` list is a main turn and is answered from the
 * script, one entry per request; anything else (session title, …) gets a short JSON
 * text. When the script is empty, main turns get `defaultText`.
 */

export interface RateLimit {
  /** Subscriber headers: `anthropic-ratelimit-unified-status: rejected` and friends. */
  unified?: {
    /** Unix epoch seconds of the reset. */
    reset: number;
    claim?: 'five_hour' | 'seven_day' | 'seven_day_opus';
  };
  message?: string;
  /** Answer this many consecutive main-turn requests with the 429 (the CLI may retry). Default 1. */
  times?: number;
  /** Let the CLI retry (`x-should-retry: true`); by default `x-should-retry: false` makes the error final. */
  retry?: boolean;
}

/** The `usage` of one response (the Messages API's field names). */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** What every response carries unless the step or `FakeOptions.usage` says otherwise. */
export const DEFAULT_USAGE: Usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

/** Per-response extras: its usage (laid over the default) and the model it names (else the request's). */
interface Answered { usage?: Partial<Usage>; model?: string }

/** One answer to one main-turn request; `delayMs` waits before answering (the CLI shows its busy screen). */
export type ScriptStep =
  | ({ text: string; delayMs?: number } & Answered)
  | ({ toolUse: { name: string; input: Record<string, unknown> }; text?: string; delayMs?: number } & Answered)
  | { rateLimit: RateLimit; delayMs?: number };

export interface LoggedRequest {
  method: string;
  path: string;
  /** 'main' | 'aux' for /v1/messages, 'count_tokens', 'connect' (proxy tunnel), 'unknown'. */
  kind: string;
  /** What was answered: 'text', 'tool_use', '429', '404', … */
  answer?: string;
  body?: unknown;
}

export interface FakeAnthropic {
  port: number;
  url: string;
  requests: LoggedRequest[];
  /** Appends steps to the script while the server runs. */
  push(...steps: ScriptStep[]): void;
  /** Main-turn requests seen so far. */
  mainTurns(): number;
  close(): Promise<void>;
}

export interface FakeOptions {
  defaultText?: string;
  /** Logs each request on stderr (exploration). */
  verbose?: boolean;
  /**
   * The usage of the n-th answered request (1-based, main turns and others alike), laid
   * over DEFAULT_USAGE; a step's own `usage` is laid over this. Lets a test grow the
   * context the way a real session does.
   */
  usage?: (n: number, kind: 'main' | 'aux') => Partial<Usage>;
  /** The model every response names (else the request's own). */
  model?: string;
}

const MAX_BODY = 32 * 1024 * 1024;
let seq = 0;
const id = (prefix: string) => `${prefix}_fake${Date.now().toString(36)}${(seq++).toString(36).padStart(6, '0')}`;

interface Block {
  type: 'text' | 'tool_use';
  text?: string;
  name?: string;
  input?: Record<string, unknown>;
}

export async function startFakeAnthropic(script: ScriptStep[] = [], opts: FakeOptions = {}): Promise<FakeAnthropic> {
  const queue = [...script];
  const requests: LoggedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let rateLimitServed = 0;
  let mainTurns = 0;
  let answered = 0;
  const usageFor = (kind: 'main' | 'aux', step?: Answered): Usage => ({ ...DEFAULT_USAGE, ...opts.usage?.(++answered, kind), ...step?.usage });

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const log = (r: LoggedRequest) => {
    requests.push(r);
    if (opts.verbose) process.stderr.write(`[fake-anthropic] ${r.method} ${r.path} ${r.kind} -> ${r.answer ?? ''}\n`);
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { type: 'error', error: { type: 'api_error', message: String(err) } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let body: Record<string, unknown> = {};
    try {
      if (raw) body = JSON.parse(raw) as Record<string, unknown>;
    } catch { /* not JSON */ }

    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      log({ method: req.method, path: req.url ?? '', kind: 'count_tokens', answer: 'tokens' });
      return json(res, 200, { input_tokens: 100 });
    }
    if (req.method !== 'POST' || path !== '/v1/messages') {
      log({ method: req.method ?? '', path: req.url ?? '', kind: 'unknown', answer: '404', body: raw.slice(0, 2000) });
      return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `fake: no ${req.method} ${path}` } });
    }

    const stream = body.stream === true;
    const tools = Array.isArray(body.tools) ? body.tools : [];
    const model = opts.model ?? (typeof body.model === 'string' ? body.model : 'claude-sonnet-4-5');
    if (tools.length === 0) {
      log({ method: 'POST', path: req.url ?? '', kind: 'aux', answer: 'title', body });
      return message(res, stream, model, [{ type: 'text', text: '{"title": "Fake session"}' }], usageFor('aux'));
    }

    mainTurns++;
    // Take the step before any delay, so a request arriving meanwhile gets the next one.
    const step = queue[0];
    if (step && 'rateLimit' in step) {
      if (++rateLimitServed >= (step.rateLimit.times ?? 1)) {
        queue.shift();
        rateLimitServed = 0;
      }
    } else queue.shift();
    if (step?.delayMs) await sleep(step.delayMs);
    if (step && 'rateLimit' in step) {
      log({ method: 'POST', path: req.url ?? '', kind: 'main', answer: '429', body });
      return rateLimited(res, step.rateLimit);
    }
    const blocks: Block[] = [];
    if (!step) blocks.push({ type: 'text', text: opts.defaultText ?? 'Done.' });
    else if ('toolUse' in step) {
      if (step.text) blocks.push({ type: 'text', text: step.text });
      blocks.push({ type: 'tool_use', name: step.toolUse.name, input: step.toolUse.input });
    } else blocks.push({ type: 'text', text: step.text });
    log({ method: 'POST', path: req.url ?? '', kind: 'main', answer: blocks.map((b) => b.type).join('+'), body });
    return message(res, stream, step?.model ?? model, blocks, usageFor('main', step));
  }

  // Through HTTPS_PROXY the CLI may try to tunnel to outside hosts: refuse, but log.
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
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
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

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const data = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), 'request-id': id('req'), ...headers });
  res.end(data);
}

function rateLimited(res: ServerResponse, rl: RateLimit): void {
  const headers: Record<string, string> = { 'x-should-retry': rl.retry ? 'true' : 'false' };
  if (rl.unified) {
    headers['anthropic-ratelimit-unified-status'] = 'rejected';
    headers['anthropic-ratelimit-unified-reset'] = String(rl.unified.reset);
    headers['anthropic-ratelimit-unified-representative-claim'] = rl.unified.claim ?? 'five_hour';
  }
  json(res, 429, { type: 'error', error: { type: 'rate_limit_error', message: rl.message ?? 'Number of request tokens has exceeded your per-minute rate limit' } }, headers);
}

function message(res: ServerResponse, stream: boolean, model: string, blocks: Block[], usage: Usage = DEFAULT_USAGE): void {
  const msgId = id('msg');
  const hasTool = blocks.some((b) => b.type === 'tool_use');
  const stopReason = hasTool ? 'tool_use' : 'end_turn';
  const content = blocks.map((b) => (b.type === 'text' ? { type: 'text', text: b.text ?? '' } : { type: 'tool_use', id: id('toolu'), name: b.name, input: b.input ?? {} }));
  if (!stream) {
    return json(res, 200, { id: msgId, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': id('req') });
  const send = (event: string, data: Record<string, unknown>) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send('message_start', {
    message: { id: msgId, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  });
  send('ping', {});
  content.forEach((c, index) => {
    if (c.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: c.text } });
    } else {
      send('content_block_start', { index, content_block: { ...c, input: {} } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.input) } });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  send('message_stop', {});
  res.end();
}
