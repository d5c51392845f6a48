import { lstatSync, type BigIntStats } from 'node:fs';
import { readAgentFile } from './safeRead.js';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic.js';
import { describeValue as describe } from '../format/bounded.js';
import { parseJsonObject } from '../format/jsonObject.js';

/** The steps of an auto loop, in the order the auto loop's routing visits them. */
export const STEPS = ['plan', 'check', 'exec', 'merge', 'report'] as const;
export type Step = (typeof STEPS)[number];

export const NEXTS = [...STEPS, '(stop)'] as const;
export type Next = (typeof NEXTS)[number];

export const CHECKPOINTS = ['', 'post-plan', 'mid-exec', 'post-exec'] as const;
export type Checkpoint = (typeof CHECKPOINTS)[number];

export const RESULTS = [
  'PASS', 'NEEDS_REVISION', 'ACCEPT', 'NEEDS_FIX', 'REPLAN', 'BLOCKED', 'CONTINUE',
  '(generated)', '(annotations)', '(done)', '(mid-exec)', '(blocked)', 'success', 'conflict',
] as const;
const STEP_N = /^\(step-(0|[1-9][0-9]*)\)$/;

/** Signals larger than this are not read at all: the file is a snapshot of a few fields. */
export const MAX_SIGNAL_BYTES = 64 * 1024;

export const SIGNAL_FILE = '.auto-signal';
export const SIGNAL_TMP_FILE = '.auto-signal.tmp';

export interface Signal {
  step: Step;
  result: string;
  next: Next;
  checkpoint: Checkpoint;
  /** Absent when the agent ran a step by hand, outside a loop. */
  iteration?: number;
  timestamp: string;
}

export type SignalParse = { ok: true; signal: Signal } | { ok: false; reason: string };

export function isValidResult(value: unknown): value is string {
  return typeof value === 'string' && ((RESULTS as readonly string[]).includes(value) || STEP_N.test(value));
}

// ISO 8601 date-time: a date, a time, optional fraction, and a zone (Z or ±hh:mm).
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

export function isIsoDateTime(value: unknown): value is string {
  return typeof value === 'string' && ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

function oneOf<T extends string>(list: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (list as readonly string[]).includes(value);
}

/** Validates the text of a signal file against the lists of allowed values. */
export function parseSignal(text: string): SignalParse {
  if (Buffer.byteLength(text, 'utf8') > MAX_SIGNAL_BYTES) return { ok: false, reason: `larger than ${MAX_SIGNAL_BYTES} bytes` };
  const parsed = parseJsonObject(text);
  if (!parsed.ok) return { ok: false, reason: parsed.problem };
  const raw = parsed.value;
  const o = raw as Record<string, unknown>;
  for (const field of ['step', 'result', 'next', 'checkpoint', 'timestamp']) {
    if (!(field in o)) return { ok: false, reason: `field "${field}" is missing` };
  }
  if (!oneOf(STEPS, o.step)) return { ok: false, reason: `step ${describe(o.step)} is not one of ${STEPS.join(' ')}` };
  if (!isValidResult(o.result)) return { ok: false, reason: `result ${describe(o.result)} is not an allowed result` };
  if (!oneOf(NEXTS, o.next)) return { ok: false, reason: `next ${describe(o.next)} is not one of ${NEXTS.join(' ')}` };
  if (!oneOf(CHECKPOINTS, o.checkpoint)) return { ok: false, reason: `checkpoint ${describe(o.checkpoint)} is not allowed` };
  if (!isIsoDateTime(o.timestamp)) return { ok: false, reason: `timestamp ${describe(o.timestamp)} is not an ISO 8601 date-time` };
  const signal: Signal = { step: o.step, result: o.result, next: o.next, checkpoint: o.checkpoint, timestamp: o.timestamp };
  if ('iteration' in o && o.iteration !== undefined) {
    if (typeof o.iteration !== 'number' || !Number.isSafeInteger(o.iteration) || o.iteration < 0) {
      return { ok: false, reason: `iteration ${describe(o.iteration)} is not an integer >= 0` };
    }
    signal.iteration = o.iteration;
  }
  return { ok: true, signal };
}

/**
 * A read of the signal file. `identity` (inode, size, modification time, taken from the
 * descriptor that was read) tells one write from the next, even with the same content.
 */
export type SignalRead = (SignalParse & { identity: string }) | { ok: false; reason: 'absent'; identity?: undefined };

/** Tells one write of a file from the next: a rename brings a new inode, a rewrite a new mtime. */
export function fileIdentity(st: BigIntStats): string {
  return `${st.ino}:${st.size}:${st.mtimeNs}`;
}

/** The identity of the file at `path` now, without reading it; undefined when absent. */
export function currentIdentity(path: string): string | undefined {
  try {
    const st = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    return st ? fileIdentity(st) : undefined;
  } catch (err) {
    return `error:${(err as NodeJS.ErrnoException).code ?? ''}`;
  }
}

/**
 * Reads and validates a signal file. Refuses symlinks and anything but a regular
 * file, never blocks, and never reads more than MAX_SIGNAL_BYTES + 1 bytes of it.
 */
export function readSignalFile(path: string): SignalRead {
  const read = readAgentFile(path, { maxBytes: MAX_SIGNAL_BYTES });
  if (read.ok) return { ...parseSignal(read.text), identity: fileIdentity(read.stat) };
  if (read.reason === 'absent') return { ok: false, reason: 'absent' };
  return { ok: false, reason: read.reason, identity: 'stat' in read && read.stat ? fileIdentity(read.stat) : 'unreadable' };
}

/** Writes `.auto-signal` as an agent must: `.auto-signal.tmp`, then a rename. */
export function writeSignalFile(taskDir: string, signal: Signal): void {
  writeFileAtomic(join(taskDir, SIGNAL_FILE), `${JSON.stringify(signal)}\n`, SIGNAL_TMP_FILE);
}
