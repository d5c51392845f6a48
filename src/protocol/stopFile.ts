import { join } from 'node:path';
import { writeFileAtomic } from './atomic.js';
import { readAgentFile } from './safeRead.js';

/** A stop request is a few fields; the head of a bigger file is enough to say "stop". */
const MAX_STOP_BYTES = 4096;

export const STOP_FILE = '.auto-stop';

export const STOP_REASONS = ['timeout', 'max_iterations', 'user_stop', 'stall_limit', 'reasoning_loop', 'budget', 'context_limit'] as const;
export type StopReason = (typeof STOP_REASONS)[number];
/** What autodeck itself may write besides: a loop that failed inside stops its agent too. A reader takes it as any stop. */
export type WrittenStopReason = StopReason | 'internal_error';

export interface StopRequest {
  reason: StopReason;
  timestamp: string;
  force?: boolean;
}

export function stopFilePath(taskDir: string): string {
  return join(taskDir, STOP_FILE);
}

/** Writes `.auto-stop` atomically (temp file in the same folder, then rename). */
export function writeStopFile(taskDir: string, reason: WrittenStopReason, opts: { force?: boolean; now?: Date } = {}): void {
  const request: { reason: WrittenStopReason; timestamp: string; force?: true } = { reason, timestamp: (opts.now ?? new Date()).toISOString() };
  if (opts.force) request.force = true;
  writeFileAtomic(stopFilePath(taskDir), `${JSON.stringify(request)}\n`);
}

/**
 * Reads a stop file. A person may write it by hand, so any regular file, whatever it
 * says, means "stop": an unknown reason becomes `user_stop`. Anything else at that name
 * (a FIFO, a directory, a link, a device) is not a stop file and is ignored; it is read
 * without blocking and without following links, and at most MAX_STOP_BYTES of it.
 */
export function readStopFile(taskDir: string): StopRequest | undefined {
  const read = readAgentFile(stopFilePath(taskDir), { maxBytes: MAX_STOP_BYTES, tooLarge: 'truncate' });
  return read.ok ? parseStopRequest(read.text) : undefined;
}

export function parseStopRequest(text: string, now = new Date()): StopRequest {
  let o: Record<string, unknown> = {};
  try {
    const raw: unknown = JSON.parse(text);
    if (raw && typeof raw === 'object' && !Array.isArray(raw)) o = raw as Record<string, unknown>;
  } catch { /* an empty or hand-written file still asks to stop */ }
  const reason = (STOP_REASONS as readonly string[]).includes(o.reason as string) ? (o.reason as StopReason) : 'user_stop';
  const request: StopRequest = { reason, timestamp: typeof o.timestamp === 'string' ? o.timestamp : now.toISOString() };
  if (o.force === true) request.force = true;
  return request;
}
