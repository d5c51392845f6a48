import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SIGNAL_FILE, SIGNAL_TMP_FILE, type Signal } from '../../src/protocol/signal.js';
import type { BenchWorkspace } from './workspace.js';

/** How long one signal may take to reach the database before the bench gives up. */
const SAMPLE_TIMEOUT_MS = 5000;
/** Pause after each sample before the next write. */
const SPACING_MS = 30;
/**
 * Least time between two writes to the same file by default. chokidar drops a `change`
 * of a path within 50 ms of the previous one (its per-path throttle); such a write is then
 * only found by the supervisor's own poll. Real agents write one signal per step, seconds apart.
 */
export const SAME_FILE_MS = 100;

const napCell = new Int32Array(new SharedArrayBuffer(4));
/** Sleeps synchronously for a fraction of a millisecond (setTimeout cannot go below 1 ms). */
const nap = (ms: number): void => void Atomics.wait(napCell, 0, 0, ms);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Writes a valid signal the way an agent does: a temp file, then a rename. Returns the time before the write. */
function writeSignal(taskDir: string, iteration: number): number {
  const signal: Signal = {
    step: 'exec', result: `(step-${iteration})`, next: 'exec', checkpoint: 'mid-exec', iteration, timestamp: new Date().toISOString(),
  };
  const t0 = performance.now();
  writeFileSync(join(taskDir, SIGNAL_TMP_FILE), `${JSON.stringify(signal)}\n`);
  renameSync(join(taskDir, SIGNAL_TMP_FILE), join(taskDir, SIGNAL_FILE));
  return t0;
}

interface Pending {
  taskDir: string;
  iteration: number;
  writtenAt: number;
}

/**
 * Polls the database (a read every ~0.5 ms) until every pending signal's iteration is
 * there; returns each latency in ms, in the order given.
 */
function waitSeen(ws: BenchWorkspace, pending: Pending[]): number[] {
  const latencies: number[] = new Array<number>(pending.length);
  let left = pending.length;
  const deadline = performance.now() + SAMPLE_TIMEOUT_MS;
  for (;;) {
    const rows = ws.rows();
    const now = performance.now();
    pending.forEach((p, i) => {
      if (latencies[i] !== undefined) return;
      const row = rows.find((r) => r.taskDir === p.taskDir);
      if (row && row.iteration >= p.iteration) {
        latencies[i] = now - p.writtenAt;
        left--;
      }
    });
    if (left === 0) return latencies;
    if (now > deadline) {
      const late = pending.filter((_, i) => latencies[i] === undefined);
      ws.assertRunning();
      throw new Error(`${late.length} signal(s) not in the database after ${SAMPLE_TIMEOUT_MS} ms, e.g. iteration ` +
        `${late[0]!.iteration} to ${late[0]!.taskDir} (its row says ${rows.find((r) => r.taskDir === late[0]!.taskDir)?.iteration ?? 'nothing'})`);
    }
    nap(0.5);
  }
}

/** Next iteration to write per module: one above what the database already holds. */
function counters(ws: BenchWorkspace): Map<string, number> {
  const rows = ws.rows();
  return new Map(ws.modules.map((m) => [m, (rows.find((r) => r.taskDir === m)?.iteration ?? 0) + 1]));
}

/** When each module last got a signal from the bench. */
const lastWrite = new Map<string, number>();

/** Waits until `sameFileMs` have passed since the last write to any of `taskDirs`. */
async function spaceOut(taskDirs: string[], sameFileMs: number): Promise<void> {
  const last = Math.max(...taskDirs.map((d) => lastWrite.get(d) ?? -Infinity));
  const wait = last + sameFileMs - performance.now();
  if (wait > 0) await sleep(wait);
}

/**
 * One signal at a time, to the modules in turn; `samples` latencies. Each write comes
 * `SPACING_MS` after the previous sample was seen and at least `sameFileMs` after the
 * previous write to the same module.
 */
export async function oneAtATime(ws: BenchWorkspace, samples: number, sameFileMs = SAME_FILE_MS): Promise<number[]> {
  const next = counters(ws);
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const taskDir = ws.modules[i % ws.modules.length]!;
    const iteration = next.get(taskDir)!;
    next.set(taskDir, iteration + 1);
    await sleep(SPACING_MS);
    await spaceOut([taskDir], sameFileMs);
    const writtenAt = writeSignal(taskDir, iteration);
    lastWrite.set(taskDir, writtenAt);
    out.push(...waitSeen(ws, [{ taskDir, iteration, writtenAt }]));
  }
  return out;
}

/** Every module gets a signal at the same moment, `rounds` times; one latency per signal. */
export async function allAtOnce(ws: BenchWorkspace, rounds: number): Promise<number[]> {
  const next = counters(ws);
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    await sleep(SPACING_MS);
    await spaceOut(ws.modules, SAME_FILE_MS);
    const pending = ws.modules.map((taskDir) => {
      const iteration = next.get(taskDir)!;
      next.set(taskDir, iteration + 1);
      const writtenAt = writeSignal(taskDir, iteration);
      lastWrite.set(taskDir, writtenAt);
      return { taskDir, iteration, writtenAt };
    });
    out.push(...waitSeen(ws, pending));
  }
  return out;
}
