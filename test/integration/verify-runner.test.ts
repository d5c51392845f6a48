import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVerify } from '../../src/verify/runner.js';
import { verifyArgv } from '../../src/verify/command.js';
import { waitFor } from '../helpers/wait.js';

// Real processes: a verify's exit, its output (bounded), its timeout and cancel killing its
// whole process group, its folder and environment.

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function fresh(): string {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'autodeck-verify-run-')));
  return dir;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const shell = (line: string) => verifyArgv({ kind: 'shell', line });
const base = { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: 30_000, maxOutputBytes: 64 * 1024 };

describe('running a verify command', () => {
  it('exit 0 passes; a shell line runs in its folder with its environment; stdout and stderr in order', async () => {
    const cwd = fresh();
    const r = await startVerify({ ...base, cwd, argv: shell('echo one; echo two >&2; pwd; echo "$AUTODECK_TASK_DIR"'), env: { ...base.env, AUTODECK_TASK_DIR: '/a b/$(x)' } }).result;
    expect(r).toMatchObject({ exitCode: 0, signal: null, timedOut: false, cancelled: false });
    expect(r.output).toBe(`one\ntwo\n${cwd}\n/a b/$(x)\n`);
  });

  it('a non-zero exit fails, with its output; an argv runs without a shell', async () => {
    const cwd = fresh();
    const r = await startVerify({ ...base, cwd, argv: [process.execPath, '-e', 'console.log("$HOME;"); process.exit(3)'] }).result;
    expect(r.exitCode).toBe(3);
    expect(r.output).toBe('$HOME;\n');
  });

  it('a program that is not there, or a folder that is gone, is a failure that says why', async () => {
    const r = await startVerify({ ...base, cwd: fresh(), argv: ['/nonexistent/verify-program'] }).result;
    expect(r.exitCode).toBe(127);
    expect(r.output).toMatch(/verify-program: not found/);
    const gone = await startVerify({ ...base, cwd: join(dir, 'gone'), argv: ['true'] }).result;
    expect(gone.exitCode).toBeNull();
    expect(gone.error).toMatch(/ENOENT/);
  });

  it('keeps a bounded tail of a flood, counting every byte', async () => {
    const r = await startVerify({ ...base, cwd: fresh(), maxOutputBytes: 4096, argv: [process.execPath, '-e', 'for (let i = 0; i < 200000; i++) console.log("line " + i)'] }).result;
    expect(r.exitCode).toBe(0);
    expect(r.outputBytes).toBeGreaterThan(2_000_000);
    expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(4096);
    expect(r.output.endsWith('line 199999\n')).toBe(true);
  });

  it('a verify that hangs is killed at its timeout, with the children it started', async () => {
    const cwd = fresh();
    const pids = join(cwd, 'pids');
    // a child that ignores SIGTERM, and the shell waiting on it
    const v = startVerify({
      ...base, cwd, timeoutMs: 1500, killAfterMs: 500,
      argv: shell(`trap '' TERM; sh -c 'trap "" TERM; echo $$ >> ${pids}; while :; do sleep 1; done' & echo $$ >> ${pids}; echo started; wait`),
    });
    const r = await v.result;
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.output).toContain('started');
    const started = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    expect(started).toHaveLength(2);
    await waitFor(() => started.every((p) => !alive(p)), 'every process of the verify gone', 10_000);
  });

  it('what a verify leaves running in its group when it exits is ended too', async () => {
    const cwd = fresh();
    const pidFile = join(cwd, 'bg');
    const r = await startVerify({ ...base, cwd, argv: shell(`sleep 300 & echo $! > ${pidFile}; echo done`) }).result;
    expect(r.exitCode).toBe(0);
    const bg = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !alive(bg), 'the background sleep gone', 10_000);
  });

  it('cancel ends it at once', async () => {
    const cwd = fresh();
    writeFileSync(join(cwd, 'x'), '');
    const v = startVerify({ ...base, cwd, argv: shell('echo begun; sleep 300') });
    await new Promise((r) => setTimeout(r, 200));
    v.cancel();
    const r = await v.result;
    expect(r.cancelled).toBe(true);
    expect(r.signal).toBe('SIGKILL');
    expect(v.pid !== undefined && alive(v.pid)).toBe(false);
  });
});
