import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdirSync, openSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Hostile things an agent can leave at a file name autodeck reads. */
export const HOSTILE_KINDS = [
  'random-bytes', 'huge', 'deep-nesting', 'deep-field', 'wrong-types', 'huge-iteration', 'negative-iteration', 'fraction-iteration',
  'fifo', 'directory', 'dev-zero-link', 'link-to-valid', 'empty', 'bad-utf8',
] as const;
export type HostileKind = (typeof HOSTILE_KINDS)[number];

/** A deterministic generator, so that a failing fuzz run can be replayed. */
export function rng(start: number): () => number {
  let s = start >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function validSignal(iteration: number): string {
  return JSON.stringify({ step: 'exec', result: `(step-${iteration})`, next: 'exec', checkpoint: '', iteration, timestamp: new Date().toISOString() });
}

/**
 * Puts a hostile thing at `dir/name` the way an agent would: made beside it, then
 * renamed over it (a directory cannot be renamed over a file: the old one goes first).
 */
export function plant(dir: string, name: string, kind: HostileKind, rand: () => number, hugeBytes = 8 * 1024 * 1024): void {
  const tmp = join(dir, `.fuzz-${process.pid}-${Math.floor(rand() * 1e9)}`);
  const target = join(dir, name);
  switch (kind) {
    case 'random-bytes':
      writeFileSync(tmp, Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 300) }, () => Math.floor(rand() * 256))));
      break;
    case 'huge': {
      const fd = openSync(tmp, 'w');
      ftruncateSync(fd, hugeBytes); // sparse: costs no disk, but a whole read would cost memory
      closeSync(fd);
      break;
    }
    case 'deep-nesting':
      writeFileSync(tmp, `${'['.repeat(60_000)}${']'.repeat(60_000)}`);
      break;
    case 'deep-field': {
      // under the 64 KiB cap, a field nested ~30,000 deep: fine for JSON.parse, deadly for recursion
      const field = ['step', 'result', 'next', 'checkpoint', 'timestamp', 'iteration'][Math.floor(rand() * 6)]!;
      const depth = 20_000 + Math.floor(rand() * 12_000);
      writeFileSync(tmp, JSON.stringify({ ...JSON.parse(validSignal(1)), [field]: '@' }).replace('"@"', `${'['.repeat(depth)}${']'.repeat(depth)}`));
      break;
    }
    case 'wrong-types':
      writeFileSync(tmp, JSON.stringify({ step: 5, result: ['PASS'], next: null, checkpoint: {}, iteration: '7', timestamp: 12 }));
      break;
    case 'huge-iteration':
      writeFileSync(tmp, validSignal(1).replace('"iteration":1', '"iteration":1e300'));
      break;
    case 'negative-iteration':
      writeFileSync(tmp, validSignal(1).replace('"iteration":1', '"iteration":-42'));
      break;
    case 'fraction-iteration':
      writeFileSync(tmp, validSignal(1).replace('"iteration":1', '"iteration":1.5'));
      break;
    case 'fifo':
      execFileSync('mkfifo', [tmp]);
      break;
    case 'directory':
      mkdirSync(tmp);
      rmSync(target, { recursive: true, force: true });
      break;
    case 'dev-zero-link':
      symlinkSync('/dev/zero', tmp);
      break;
    case 'link-to-valid':
      writeFileSync(`${tmp}.v`, validSignal(999_999));
      symlinkSync(`${tmp}.v`, tmp);
      break;
    case 'empty':
      writeFileSync(tmp, '');
      break;
    case 'bad-utf8':
      writeFileSync(tmp, Buffer.from([0x7b, 0xff, 0xfe, 0xc0, 0x80, 0x7d]));
      break;
  }
  try {
    renameSync(tmp, target);
  } catch {
    // A directory left there by the last plant: clear it and try once more.
    rmSync(target, { recursive: true, force: true });
    renameSync(tmp, target);
  }
}

/** Writes a valid signal atomically, as a well-behaved agent does. */
export function plantValid(dir: string, iteration: number): void {
  const target = join(dir, '.auto-signal');
  rmSync(target, { recursive: true, force: true, maxRetries: 0 });
  writeFileSync(join(dir, '.auto-signal.tmp'), validSignal(iteration));
  renameSync(join(dir, '.auto-signal.tmp'), target);
}
