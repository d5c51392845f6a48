import type { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { LoopEvent } from '../store/events.js';

/*
 * `GET /api/events`: Server-Sent Events of the objects `run --json` prints, one per loop
 * event of this supervisor. Hand-written rather than a package (better-sse was looked at):
 * each event is one line of JSON (JSON.stringify never emits a newline), so a frame is
 * `id:` + `data:` and a blank line; what is ours either way is the token check in front
 * of it, the cap on clients, and dropping a client that does not read.
 */

export interface EventHubOptions {
  /** How often a comment line is sent so that proxies and clients keep the stream open. */
  heartbeatMs?: number;
  /** Streams open at once; more get 503 (the server takes 64 connections in all). */
  maxClients?: number;
  /** A client with this much unsent output is cut off rather than held in memory. */
  maxBufferedBytes?: number;
}

export const HEARTBEAT = ': keepalive\n\n';

/**
 * One SSE frame for an event: its database id (when it has one) and the JSON. An event of
 * another host (a dashboard over several) names its `host` and has no id: ids are per host.
 */
export function sseFrame(e: LoopEvent): string {
  const id = e.id !== undefined && e.host === undefined ? `id: ${e.id}\n` : '';
  return `${id}data: ${JSON.stringify(e)}\n\n`;
}

/**
 * The open event streams. It listens to the supervisor only while a client is open, one
 * listener for all of them, so the supervisor's listener count is back when they are gone.
 */
export class EventHub {
  private readonly clients = new Set<ServerResponse>();
  private timer: NodeJS.Timeout | undefined;
  private readonly heartbeatMs: number;
  private readonly maxClients: number;
  private readonly maxBuffered: number;

  /** `more`: other sources of events (a dashboard's other hosts). */
  constructor(private readonly source: EventEmitter, opts: EventHubOptions = {}, private readonly more: readonly EventEmitter[] = []) {
    this.heartbeatMs = opts.heartbeatMs ?? 15_000;
    this.maxClients = opts.maxClients ?? 16;
    this.maxBuffered = opts.maxBufferedBytes ?? 1024 * 1024;
  }

  /** Streams open now. */
  get size(): number {
    return this.clients.size;
  }

  /** Whether another stream may open. */
  get full(): boolean {
    return this.clients.size >= this.maxClients;
  }

  /** Takes over `res` as an event stream until the client goes away or the hub closes. */
  attach(res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      'X-Content-Type-Options': 'nosniff',
    });
    // The first bytes tell the client the stream is open before any event comes.
    res.write(': autodeck events\nretry: 3000\n\n');
    if (this.clients.size === 0) this.listen();
    this.clients.add(res);
    // The response's close is the connection's (a client gone, or the server closing);
    // the request's own close only says its body was read.
    res.once('close', () => this.drop(res));
  }

  /** Ends every stream and stops listening. */
  close(): void {
    for (const res of [...this.clients]) {
      this.drop(res);
      res.end();
    }
  }

  private readonly onEvent = (e: LoopEvent): void => {
    this.broadcast(sseFrame(e));
  };

  private broadcast(text: string): void {
    for (const res of [...this.clients]) {
      if (res.writableLength > this.maxBuffered) {
        // A client that does not read is not worth the supervisor's memory.
        this.drop(res);
        res.destroy();
        continue;
      }
      res.write(text);
    }
  }

  private listen(): void {
    for (const s of [this.source, ...this.more]) s.on('event', this.onEvent);
    this.timer = setInterval(() => this.broadcast(HEARTBEAT), this.heartbeatMs);
    this.timer.unref();
  }

  private drop(res: ServerResponse): void {
    if (!this.clients.delete(res)) return;
    if (this.clients.size > 0) return;
    for (const s of [this.source, ...this.more]) s.off('event', this.onEvent);
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
