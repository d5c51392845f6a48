import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { startCli, runFlags } from '../helpers/cli.js';
import { loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { integrity, makeWorkspace, type Workspace } from './helpers/loops.js';
import { recordRow } from './helpers/results.js';

// Fault: the disk holding the state database and the module fills up under a running
// loop, then space comes back. Must hold: a clear message, no crash, no corruption
// (integrity_check ok), and the loop's state recovers when space is back: the run is
// recorded with its outcome. Needs root to mount a tiny tmpfs; skipped with the reason
// otherwise.

function canMount(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root to mount a tmpfs';
  const probe = join('/tmp', `autodeck-mount-probe-${process.pid}`);
  mkdirSync(probe, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'mount -t tmpfs is not allowed here';
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
const cannot = canMount();
if (cannot) console.warn(`disk-full fault skipped: ${cannot}`);

let ws: Workspace;
let mnt = '';
afterEach(() => {
  if (mnt) execFileSync('umount', ['-l', mnt], { stdio: 'ignore' });
  mnt = '';
  ws?.cleanup();
});

/** Fills the filesystem at `dir` to the last byte; returns the filler's path. */
function fill(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch { /* ENOSPC: full */ }
  try {
    for (;;) writeSync(fd, chunk, 0, 512);
  } catch { /* and the last blocks */ }
  closeSync(fd);
  return path;
}

describe.runIf(!cannot)('fault: disk full under a running loop', () => {
  it('a clear message, no crash, no corruption; the loop recovers when space is back', async () => {
    ws = makeWorkspace('autodeck-fault-');
    mnt = join(ws.dir, 'tiny');
    mkdirSync(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt]);
    const root = join(mnt, 'AiTasks');
    mkdirSync(root);
    const db = join(mnt, 'state.db');
    const tinyWs = { ...ws, root, db };
    const dir = join(root, 'cramped');
    mkdirSync(dir);
    execFileSync('cp', [join(ws.module('template', { scenario: { stepSeconds: 0.2, steps: 12 } }), '.index.json'), dir]);
    execFileSync('cp', [join(ws.root, 'template', '.target.md'), join(ws.root, 'template', '.sim.json'), dir]);
    const run = startCli(ws, ['run', dir, ...runFlags(tinyWs, ['--max-iterations', '1000', '--restart-limit', '10'])]);
    await waitFor(() => (loopRow(db, dir)?.iteration_count ?? 0) >= 2, 'iteration 2');
    const filler = fill(mnt);
    // Full for a while: the agent cannot write its signal, autodeck cannot write its state.
    await waitFor(() => /the disk holding the state database is full/.test(run.stderr()), 'a message about the full disk', 20_000).catch(() => undefined);
    const said = /the disk holding the state database is full/.test(run.stderr());
    rmSync(filler);
    const code = await Promise.race([run.exited, new Promise<number>((r) => setTimeout(() => r(-1), 90_000))]);
    if (code === -1) run.child.kill('SIGKILL');
    const [result] = runsOf(db, dir);
    const crashed = /Uncaught|SqliteError|at .*\.js:\d+/.test(run.stderr());
    const ok = integrity(db);
    const pass = said && !crashed && [0, 1].includes(code) && result !== undefined && ok === 'ok';
    recordRow({ fault: 'disk full (state database and module on an 8 MiB tmpfs), then space back', atRisk: 1, lost: result ? 0 : 1, doubled: 0, pass,
      note: `message: ${said ? 'yes' : 'NO'}; exit ${code}; outcome ${result?.outcome ?? 'none'} after ${result?.iterations ?? '?'} iterations; integrity ${ok}` });
    expect(crashed, run.stderr()).toBe(false);
    expect(said, run.stderr()).toBe(true);
    expect([0, 1], run.stderr()).toContain(code);
    expect(result).toBeDefined();
    expect(ok).toBe('ok');
  });
});
