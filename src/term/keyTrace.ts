import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/**
 * AUTODECK_KEY_TRACE=FILE: one line per step of a key through the dashboard (the bytes read
 * from the terminal, the key handed to Ink, the command it ran, the frame that showed it),
 * each with the time in ms (performance.timeOrigin + now(): comparable across processes) and the pid. A debugging aid for lost or late keys; off
 * (and free) unless the variable is set. Write errors are ignored.
 */
const file = process.env.AUTODECK_KEY_TRACE;

export const keyTraceOn = file !== undefined && file !== '';

export function keyTrace(what: string): void {
  if (!keyTraceOn) return;
  try {
    appendFileSync(file!, `${(performance.timeOrigin + performance.now()).toFixed(1)} ${process.pid} ${what}\n`);
  } catch { /* a debugging aid must not break the dashboard */ }
}
