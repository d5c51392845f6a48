import { parseJsonObject } from '../format/jsonObject.js';
/** Claude Code sends a few kilobytes; more than this is not an event. */
export const MAX_EVENT_BYTES = 1024 * 1024;
/** A hook run by hand, or by a caller that never closes stdin, must not hang. */
export const STDIN_TIMEOUT_MS = 500;

export interface RawInput {
  text: string;
  /** More than MAX_EVENT_BYTES arrived: the rest was not read. */
  oversized: boolean;
  /** Neither the end of input nor a whole JSON object came in time. */
  timedOut: boolean;
}

type Input = NodeJS.ReadableStream & { isTTY?: boolean; destroy?: () => void };

/**
 * Reads a hook's event from `stream`: at most MAX_EVENT_BYTES, for at most `timeoutMs`.
 * It stops as soon as the text read so far is a whole JSON object, so a caller that keeps
 * its end open costs nothing; a terminal is not read at all. The stream is released
 * afterwards, so it never keeps the process alive.
 */
export function readEventInput(stream: Input, timeoutMs = STDIN_TIMEOUT_MS, maxBytes = MAX_EVENT_BYTES): Promise<RawInput> {
  if (stream.isTTY) return Promise.resolve({ text: '', oversized: false, timedOut: false });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (oversized: boolean, timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onEnd);
      try {
        stream.pause();
        stream.destroy?.();
      } catch { /* already closed */ }
      resolve({ text: Buffer.concat(chunks).toString('utf8'), oversized, timedOut });
    };
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > maxBytes) {
        finish(true, false);
        return;
      }
      chunks.push(buf);
      if (isWholeObject(buf, chunks)) finish(false, false);
    };
    const onEnd = () => finish(false, false);
    const timer = setTimeout(() => finish(false, true), timeoutMs);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onEnd);
    stream.resume();
  });
}

/** Cheap first: only a chunk ending in `}` (before trailing white space) can complete an object. */
function isWholeObject(last: Buffer, chunks: Buffer[]): boolean {
  const tail = last.toString('utf8').trimEnd();
  if (!tail.endsWith('}')) return false;
  try {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

export type EventParse = { ok: true; event: Record<string, unknown> } | { ok: false; reason: string };

/** The event object, or why the input is not one. */
export function parseEvent(input: RawInput): EventParse {
  if (input.oversized) return { ok: false, reason: `the event on stdin is larger than ${MAX_EVENT_BYTES} bytes` };
  if (input.text.trim() === '') return { ok: false, reason: input.timedOut ? 'no event on stdin (timed out)' : 'no event on stdin' };
  const parsed = parseJsonObject(input.text);
  if (!parsed.ok) return { ok: false, reason: `the event on stdin is ${parsed.problem}${parsed.problem === 'not JSON' && input.timedOut ? ' (timed out)' : ''}` };
  const raw = parsed.value;
  return { ok: true, event: raw as Record<string, unknown> };
}

/** A string field of an event, or undefined. */
export function field(event: Record<string, unknown>, name: string): string | undefined {
  const v = event[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}
