import { appendFileSync } from 'node:fs';

/**
 * AUTODECK_STARTUP_TRACE=FILE: one line per start-up step, `ms-since-process-start name`,
 * appended to FILE (not the terminal: the dashboard owns it). For finding where start-up
 * time goes (docs/performance.md); costs one env lookup per mark when unset.
 */
export function startupMark(name: string): void {
  const file = process.env.AUTODECK_STARTUP_TRACE;
  if (!file) return;
  try {
    appendFileSync(file, `${performance.now().toFixed(1)} ${process.pid} ${name}\n`);
  } catch { /* a trace must never break a start */ }
}
