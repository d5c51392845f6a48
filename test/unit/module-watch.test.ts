import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollModuleFiles, watchModuleFiles, type ModuleWatch } from '../../src/supervisor/moduleWatch.js';

// A module folder watched for the loop's two files, on a real folder: inotify, and
// chokidar's polling for when the kernel has no watch left.

const NAMES = ['.auto-signal', '.auto-stop'];
let dir: string | undefined;
let watch: ModuleWatch | undefined;
afterEach(() => {
  watch?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  watch = dir = undefined;
});

function folder(): string {
  dir = mkdtempSync(join(tmpdir(), 'autodeck-watch-'));
  return dir;
}

/** Resolves with the names told, once `until` holds or after `ms`. */
function collect(start: (on: { change(n: string | undefined): void; error(e: Error): void }) => ModuleWatch) {
  const seen: (string | undefined)[] = [];
  const errors: Error[] = [];
  watch = start({ change: (n) => seen.push(n), error: (e) => errors.push(e) });
  const settle = (until: () => boolean, ms = 3000): Promise<void> => new Promise((resolve) => {
    const t0 = Date.now();
    const look = (): void => (until() || Date.now() - t0 > ms ? resolve() : void setTimeout(look, 10));
    look();
  });
  return { seen, errors, settle };
}

describe('watchModuleFiles (inotify)', () => {
  it('tells a write to each of its files by name, and nothing of other files', async () => {
    const d = folder();
    const { seen, errors, settle } = collect((on) => watchModuleFiles(d, NAMES, on));
    writeFileSync(join(d, 'notes.md'), 'the agent works here');
    writeFileSync(join(d, '.auto-signal'), '{"iteration":1}');
    await settle(() => seen.includes('.auto-signal'));
    writeFileSync(join(d, '.auto-stop'), 'stop');
    await settle(() => seen.includes('.auto-stop'));
    writeFileSync(join(d, 'more.md'), 'x');
    await new Promise((r) => setTimeout(r, 100));
    expect(new Set(seen)).toEqual(new Set(['.auto-signal', '.auto-stop']));
    expect(errors).toEqual([]);
    expect(watch?.polling).toBe(false);
  });

  it('tells a file put in place by a rename (an atomic write)', async () => {
    const d = folder();
    const { seen, settle } = collect((on) => watchModuleFiles(d, NAMES, on));
    writeFileSync(join(d, '.auto-signal.tmp'), '{"iteration":2}');
    renameSync(join(d, '.auto-signal.tmp'), join(d, '.auto-signal'));
    await settle(() => seen.includes('.auto-signal'));
    expect(seen).toContain('.auto-signal');
  });

  it('throws at once for a folder that is not there (the loop logs it)', () => {
    const d = folder();
    expect(() => watchModuleFiles(join(d, 'gone'), NAMES, { change: () => {}, error: () => {} })).toThrow(/ENOENT/);
  });

  it('tells nothing after close', async () => {
    const d = folder();
    const { seen } = collect((on) => watchModuleFiles(d, NAMES, on));
    watch?.close();
    writeFileSync(join(d, '.auto-signal'), '{}');
    await new Promise((r) => setTimeout(r, 150));
    expect(seen).toEqual([]);
  });
});

describe('pollModuleFiles (chokidar polling)', () => {
  it('tells a new and a changed file by name, and nothing of other files', async () => {
    const d = folder();
    mkdirSync(join(d, 'sub'));
    const { seen, errors, settle } = collect((on) => pollModuleFiles(d, NAMES, 50, on));
    // chokidar reads the folder first; a write before that is an initial file, not told (the loop polls once itself)
    await new Promise((r) => setTimeout(r, 300));
    writeFileSync(join(d, 'notes.md'), 'x');
    writeFileSync(join(d, '.auto-stop'), 'stop');
    await settle(() => seen.includes('.auto-stop'));
    expect(seen).toEqual(['.auto-stop']);
    expect(errors).toEqual([]);
    expect(watch?.polling).toBe(true);
  });
});
