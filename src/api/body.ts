import type { IncomingMessage } from 'node:http';
import { printable } from '../format/event.js';
import { describeValue } from '../format/bounded.js';

/** The largest request body the API reads (the same as a signal file). */
export const BODY_LIMIT = 64 * 1024;

/** An answer other than success: the status code and the `error` text. */
export class HttpError extends Error {
  constructor(readonly status: number, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
  }
}

/**
 * A short, printable excerpt of something a client sent, for an error message: control
 * characters escaped, at most `max` characters.
 */
export function excerpt(value: unknown, max = 80): string {
  const text = printable(typeof value === 'string' ? value.slice(0, max + 1) : describeValue(value, max + 1));
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Reads a JSON object body of at most `limit` bytes. A larger body is refused as soon as
 * its Content-Length says so, or once that many bytes came, and no more is kept; the
 * server then closes the connection rather than reading the rest.
 */
export function readJsonObject(req: IncomingMessage, limit = BODY_LIMIT): Promise<Record<string, unknown>> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    return Promise.reject(new HttpError(400, `request body too large (limit ${limit} bytes)`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: HttpError | undefined, value?: Record<string, unknown>): void => {
      if (done) return;
      done = true;
      req.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onAborted);
      if (err) {
        req.pause();
        reject(err);
      } else {
        resolve(value!);
      }
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        finish(new HttpError(400, `request body too large (limit ${limit} bytes)`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      const text = Buffer.concat(chunks).toString('utf8');
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        finish(new HttpError(400, text.trim() === '' ? 'a JSON object body is required' : 'the body is not valid JSON'));
        return;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        finish(new HttpError(400, 'the body must be a JSON object'));
        return;
      }
      finish(undefined, value as Record<string, unknown>);
    };
    const onError = (): void => finish(new HttpError(400, 'the request body could not be read'));
    const onAborted = (): void => finish(new HttpError(400, 'the request was aborted'));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onAborted);
  });
}
