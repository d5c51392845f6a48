import { appendFileSync } from 'node:fs';

// Debugging traces, each switched on by a variable naming a file: one line per mark,
// `<ms> <pid> <what>`, appended to that file (never the terminal: the dashboard owns it).
// Off, a mark costs one boolean test; a failed write never breaks what is traced.

interface Trace {
  readonly on: boolean;
  mark(what: string): void;
}

function envTrace(variable: string, stamp: () => number): Trace {
  const file = process.env[variable];
  const on = file !== undefined && file !== '';
  return {
    on,
    mark(what) {
      if (!on) return;
      try {
        appendFileSync(file!, `${stamp().toFixed(1)} ${process.pid} ${what}\n`);
      } catch { /* a trace must never break what it traces */ }
    },
  };
}

/**
 * AUTODECK_STARTUP_TRACE=FILE: start-up steps, in ms since the process started, then the
 * CPU time used so far (`cpu=…`: on a busy machine the wall clock also counts waiting for a
 * core; docs/performance.md).
 */
const startup = envTrace('AUTODECK_STARTUP_TRACE', () => performance.now());
export const startupMark = (name: string): void => {
  if (!startup.on) return;
  const { user, system } = process.cpuUsage();
  startup.mark(`${name} cpu=${((user + system) / 1000).toFixed(1)}`);
};

/**
 * AUTODECK_KEY_TRACE=FILE: each step of a key through the dashboard (the bytes read, the
 * key handed to Ink, the command it ran, the frame that showed it), in ms since the epoch
 * (performance.timeOrigin + now(): comparable across processes, as the flood test does).
 */
const keys = envTrace('AUTODECK_KEY_TRACE', () => performance.timeOrigin + performance.now());
export const keyTraceOn = keys.on;
export const keyTrace = (what: string): void => keys.mark(what);
