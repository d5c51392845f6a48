import { availableParallelism, cpus, release, totalmem, type as osType } from 'node:os';
import { columns } from '../../src/format/table.js';
import { clockTicksPerSecond } from './proc.js';

// What every benchmark prints and reads the same way: its settings from the environment,
// the machine it ran on, and a table of figures.

/** A number from the environment, `dflt` when unset; anything else below `min` stops the bench. */
export function envNumber(name: string, dflt: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min} (got ${JSON.stringify(raw)})`);
  return n;
}

export const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const progress = (text: string): void => void process.stderr.write(`bench: ${text}\n`);

/** Cores, CPU model, memory, OS and node; with the kernel's clock tick when CPU time is read from /proc. */
export function machine(opts: { clockTicks: boolean }): string {
  const model = cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  return `${availableParallelism()} CPUs (${model}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ` +
    `${osType()} ${release()}, node ${process.version}${opts.clockTicks ? `, CLK_TCK ${clockTicksPerSecond()}` : ''}`;
}

/** A table of figures, its first row the headings. */
export function table(rows: string[][], align: ('l' | 'r')[]): string {
  return columns(rows, align).join('\n');
}
