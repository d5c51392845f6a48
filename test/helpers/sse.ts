import { request, type ClientRequest, type IncomingMessage } from 'node:http';

/** One parsed SSE frame. */
export interface SseFrame {
  id?: string;
  data: string;
}

/** A client of an event stream that keeps what it received: frames, and comment lines. */
export interface SseClient {
  status: number;
  headers: IncomingMessage['headers'];
  frames: SseFrame[];
  comments: string[];
  /** Closes the connection from the client's side. */
  close(): void;
  closed: Promise<void>;
}

/** Splits a stream of SSE text into frames (blank-line separated); returns what is left over. */
export function parseSse(buffer: string, frames: SseFrame[], comments: string[]): string {
  let at: number;
  while ((at = buffer.indexOf('\n\n')) >= 0) {
    const block = buffer.slice(0, at);
    buffer = buffer.slice(at + 2);
    const frame: SseFrame = { data: '' };
    let hasData = false;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      else if (line.startsWith('id: ')) frame.id = line.slice(4);
      else if (line.startsWith('data: ')) {
        frame.data += (hasData ? '\n' : '') + line.slice(6);
        hasData = true;
      }
    }
    if (hasData) frames.push(frame);
  }
  return buffer;
}

/** Opens `GET path` and resolves once the answer's headers came (the stream stays open). */
export function openSse(port: number, path: string, token: string | null): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let req: ClientRequest;
    const timer = setTimeout(() => { req.destroy(); reject(new Error(`no answer to GET ${path}`)); }, 10_000);
    req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      clearTimeout(timer);
      const frames: SseFrame[] = [];
      const comments: string[] = [];
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { buffer = parseSse(buffer + chunk, frames, comments); });
      const closed = new Promise<void>((done) => res.once('close', () => done()));
      resolve({
        status: res.statusCode ?? 0, headers: res.headers, frames, comments, closed,
        close: () => { req.destroy(); },
      });
    });
    req.on('error', (err) => { clearTimeout(timer); reject(err); });
    req.end();
  });
}
