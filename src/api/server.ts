import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { Store } from '../store/index.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import { HttpError } from './body.js';
import { matchRoute, type ApiDeps, type Method, type Reply } from './routes.js';
import { bearerToken, tokensEqual } from './token.js';
import { EventHub, type EventHubOptions } from './events.js';

export interface ApiOptions {
  supervisor: Supervisor;
  store: Store;
  settings: { roots: readonly string[] };
  /** 0 picks a free port. */
  port: number;
  token: string;
  /** A loopback address only; default 127.0.0.1. */
  host?: string;
  now?: () => number;
  /** Told of a handler's unexpected failure (the client only gets "internal error"). */
  onError?: (err: unknown) => void;
  /** The event stream's heartbeat and limits (`GET /api/events`). */
  events?: EventHubOptions;
}

export interface ApiServer {
  port: number;
  host: string;
  /** What the socket is bound to (address, family, port). */
  address(): AddressInfo;
  /** Event streams open now. */
  eventStreams(): number;
  close(): Promise<void>;
}

/** Open connections at once; the API is for a few local scripts and a dashboard. */
const MAX_CONNECTIONS = 64;

function isLoopback(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Whether the request has a body not read to its end. */
function bodyPending(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Sends one JSON answer. When the request's body was not read to its end (an early
 * refusal), the connection is closed after the answer instead of reading the rest.
 */
function send(req: IncomingMessage, res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...(bodyPending(req) ? { Connection: 'close' } : {}),
    ...headers,
  });
  res.end(text);
}

function authorized(req: IncomingMessage, token: string): boolean {
  const given = bearerToken(req.headers.authorization);
  // Compared even when absent, so a missing header costs the same as a wrong one.
  return tokensEqual(given ?? '', token) && given !== undefined;
}

async function handle(req: IncomingMessage, res: ServerResponse, deps: ApiDeps, opts: ApiOptions): Promise<void> {
  if (!authorized(req, opts.token)) {
    send(req, res, 401, { error: 'missing or wrong bearer token (Authorization: Bearer <token>)' }, { 'WWW-Authenticate': 'Bearer' });
    return;
  }
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://127.0.0.1');
  } catch {
    send(req, res, 400, { error: 'malformed request target' });
    return;
  }
  const match = matchRoute(url.pathname);
  if (!match) {
    send(req, res, 404, { error: 'not found' });
    return;
  }
  const handler = match.route.handlers[req.method as Method];
  if (!handler) {
    const allow = Object.keys(match.route.handlers).join(', ');
    send(req, res, 405, { error: `method not allowed here; allowed: ${allow}` }, { Allow: allow });
    return;
  }
  let reply: Reply;
  try {
    reply = await handler({ req, url, params: match.params, deps });
  } catch (err) {
    if (err instanceof HttpError) {
      send(req, res, err.status, { error: err.message }, err.headers);
      return;
    }
    opts.onError?.(err);
    send(req, res, 500, { error: 'internal error' });
    return;
  }
  if ('stream' in reply) reply.stream(req, res);
  else send(req, res, reply.status, reply.body);
}

/**
 * The REST API on node:http, bound to a loopback address only. Every request
 * needs the bearer token, checked before anything else. Resolves once it listens.
 */
export function startApi(opts: ApiOptions): Promise<ApiServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopback(host)) return Promise.reject(new Error(`autodeck: the API listens on a loopback address only, not ${host}`));
  if (!opts.token) return Promise.reject(new Error('autodeck: the API needs a token'));
  const events = new EventHub(opts.supervisor, opts.events);
  const deps: ApiDeps = { supervisor: opts.supervisor, store: opts.store, settings: opts.settings, now: opts.now ?? Date.now, events };
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 }, (req, res) => {
    handle(req, res, deps, opts).catch((err: unknown) => {
      opts.onError?.(err);
      send(req, res, 500, { error: 'internal error' });
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  return new Promise((resolve, reject) => {
    const onListenError = (err: NodeJS.ErrnoException): void => {
      const why = err.code === 'EADDRINUSE' ? 'the port is in use' : err.code === 'EACCES' ? 'permission denied' : err.message;
      reject(new Error(`autodeck: cannot listen on ${host}:${opts.port}: ${why}`));
    };
    server.once('error', onListenError);
    server.listen({ port: opts.port, host, exclusive: true }, () => {
      server.off('error', onListenError);
      server.on('error', (err) => opts.onError?.(err));
      const bound = server.address() as AddressInfo;
      const port = bound.port;
      let closing: Promise<void> | undefined;
      resolve({
        port,
        host,
        address: () => (server.address() as AddressInfo | null) ?? { ...bound },
        eventStreams: () => events.size,
        close: () => {
          closing ??= new Promise<void>((done) => {
            events.close();
            server.close(() => done());
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}
