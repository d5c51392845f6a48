import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: any;
}

export interface HttpRequest {
  method?: string;
  path: string;
  port: number;
  host?: string;
  /** `null`: no Authorization header at all. */
  token?: string | null;
  /** A string or Buffer is sent as is; anything else as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Send the body chunked, without a Content-Length. */
  chunked?: boolean;
}

/**
 * One request on its own connection (no keep-alive pool), bounded in time. A server that
 * answers before it read the whole body and closes may make the upload fail: the answer
 * that came is what counts.
 */
export function http(req: HttpRequest, timeoutMs = 10_000): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...req.headers };
    if (req.token !== null && req.token !== undefined) headers.authorization = `Bearer ${req.token}`;
    let payload: Buffer | undefined;
    if (req.body !== undefined) {
      payload = Buffer.isBuffer(req.body) ? req.body : Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
      headers['content-type'] ??= 'application/json';
      if (!req.chunked) headers['content-length'] = String(payload.length);
    }
    let settled = false;
    const done = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(() => done(() => {
      r.destroy();
      reject(new Error(`no answer to ${req.method ?? 'GET'} ${req.path} within ${timeoutMs} ms`));
    }), timeoutMs);
    const r = httpRequest({ host: req.host ?? '127.0.0.1', port: req.port, path: req.path, method: req.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(() => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      }));
      res.on('error', (err) => done(() => reject(err)));
    });
    r.on('error', (err) => {
      // An upload cut short after the answer began is fine; the response handler settles.
      setTimeout(() => done(() => reject(err)), 200);
    });
    if (payload) {
      if (req.chunked) {
        // Several writes, so the server sees it arrive in pieces.
        for (let i = 0; i < payload.length; i += 16 * 1024) r.write(payload.subarray(i, i + 16 * 1024));
      } else {
        r.write(payload);
      }
    }
    r.end();
  });
}
