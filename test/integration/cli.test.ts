import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags, startCli } from '../helpers/cli.js';
import { eventsOf, loopRow, runsOf } from '../helpers/db.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait.js';
import { spawn } from 'node:child_process';
import { Store } from '../../src/store/index.js';
import { BIN } from '../helpers/cli.js';

let ws: Workspace;
afterEach(() => ws?.cleanup());

/** The loop fields `status --json` promises. */
const LOOP_FIELDS = ['session', 'taskDir', 'taskName', 'status', 'iteration', 'maxIterations', 'step', 'result', 'next',
  'checkpoint', 'elapsedMs', 'activeMs', 'timeoutMinutes', 'stallCount', 'recoveryStep', 'recoveryTotal', 'restartCount',
  'quotaWaitSince', 'startedAt', 'lastSignalAt', 'owner'];

describe('the command line', () => {
  it("--help after a command shows that command's help and runs nothing (demo, run, hook), as --version shows the version", async () => {
    ws = makeWorkspace();
    const dir = ws.module('helped', { status: 'planning', scenario: { stepSeconds: 0.05 } });
    for (const args of [['--help'], ['-h'], ['help']]) {
      const overview = await runCli(ws, args);
      expect(overview.code, args.join(' ')).toBe(0);
      expect(overview.stdout).toMatch(/^ {2}demo +real loops/m);
    }
    for (const [args, name] of [[['demo', '--help'], 'demo'], [['run', dir, ...runFlags(ws), '--help'], 'run'], [['hook', 'stop', '-h'], 'hook'], [['help', 'run'], 'run']] as const) {
      const r = await runCli(ws, [...args]);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: autodeck ${name} `));
      expect(r.stderr).toBe('');
    }
    expect(existsSync(ws.db) ? runsOf(ws.db, dir) : []).toEqual([]);
    const version = await runCli(ws, ['status', '--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('without a terminal, the bare command says what to run instead', async () => {
    ws = makeWorkspace();
    const r = await runCli(ws, []);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/needs a terminal.*autodeck run.*autodeck status/);
  });

  it('a reader that goes away early (log --json | head -1) is no failure: exit 0, no stack trace', async () => {
    ws = makeWorkspace();
    const store = Store.open(ws.db);
    store.tx(() => {
      for (let i = 0; i < 3000; i++) store.events.insert({ at: new Date().toISOString(), session: 's', taskDir: '/x', kind: 'signal', detail: { iteration: i, pad: 'x'.repeat(200) } });
    });
    store.close();
    const child = spawn(process.execPath, [BIN, 'log', '--json', '--last', '3000', '--db', ws.db], { env: ws.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('a flag given twice: the last one counts, nothing is said (the shell convention)', async () => {
    ws = makeWorkspace();
    const ok = await runCli(ws, ['status', '--grace', 'abc', '--grace', '5', '--json', '--json']);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ loops: [] });
    // the other way round, the bad one is last: refused as a bad value, not as a repeat
    const bad = await runCli(ws, ['status', '--grace', '5', '--grace', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('autodeck: --grace: "abc" is not a number');
  });

  it('refuses an unknown command, an unknown flag, a missing value and a stray word with exit 2 and one line', async () => {
    ws = makeWorkspace();
    const dir = ws.module('typo', { status: 'planning', scenario: { stepSeconds: 0.05 } });
    for (const [args, message] of [
      [['frobnicate'], /^autodeck: unknown command "frobnicate"/],
      [['stauts'], /^autodeck: unknown command "stauts" \(did you mean status\?\)/],
      [['run', dir, ...runFlags(ws), '--max-iteratons', '5'], /^autodeck: unknown flag --max-iteratons for run \(did you mean --max-iterations\?\)/],
      [['run', dir, ...runFlags(ws), '--max-iterations'], /^autodeck: --max-iterations needs a value/],
      [['new', 'x', '--root', ws.root, '--title'], /^autodeck: --title needs a value/],
      [['status', 'extra', '--db', ws.db], /^autodeck: status takes no other words \(got "extra"\)/],
      [['hook'], /^autodeck: hook needs stop or state/],
    ] as const) {
      const r = await runCli(ws, [...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    }
    // nothing was started or created
    expect(existsSync(ws.db) ? runsOf(ws.db, dir) : []).toEqual([]);
    expect(existsSync(join(ws.root, 'x'))).toBe(false);
  });

  it('status, lookup and log see a live loop from another process', async () => {
    ws = makeWorkspace();
    const dir = ws.module('watched', { scenario: { stepSeconds: 0.3, steps: 100 } });
    const loop = startCli(ws, ['run', dir, ...runFlags(ws, ['--max-iterations', '1000'])]);
    await waitFor(() => (loopRow(ws.db, dir)?.iteration_count ?? 0) >= 2, 'two iterations');

    const status = await runCli(ws, ['status', '--json', '--db', ws.db]);
    expect(status.code).toBe(0);
    const { loops } = JSON.parse(status.stdout) as { loops: Record<string, unknown>[] };
    expect(loops).toHaveLength(1);
    for (const f of LOOP_FIELDS) expect(loops[0], f).toHaveProperty(f);
    expect(loops[0]).toMatchObject({ taskDir: dir, taskName: 'watched', status: 'running', maxIterations: 1000 });
    expect(loops[0]!.owner).toMatchObject({ pid: loop.child.pid, alive: true });
    expect(loops[0]!.iteration).toBeGreaterThanOrEqual(2);

    const human = await runCli(ws, ['status', '--db', ws.db]);
    expect(human.stdout).toMatch(/watched {2}running/);

    const lookup = await runCli(ws, ['lookup', dir, '--json', '--db', ws.db]);
    expect(lookup.code).toBe(0);
    expect(JSON.parse(lookup.stdout)).toEqual({ session_name: loops[0]!.session, status: 'running' });

    const log = await runCli(ws, ['log', dir, '--last', '2', '--json', '--db', ws.db]);
    const events = log.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; taskDir: string });
    expect(events).toHaveLength(2);
    expect(events.every((e) => e.taskDir === dir)).toBe(true);

    expect((await runCli(ws, ['stop', dir, '--db', ws.db])).code).toBe(0);
    expect(await loop.exited).toBe(1);
    const after = JSON.parse((await runCli(ws, ['status', '--json', '--db', ws.db])).stdout) as { loops: unknown[]; recent: Record<string, unknown>[] };
    expect(after.loops).toEqual([]);
    expect(after.recent[0]).toMatchObject({ taskDir: dir, outcome: 'user_stop', forced: false });
  });

  it('status marks a loop whose owner was killed', async () => {
    ws = makeWorkspace();
    const dir = ws.module('abandoned', { scenario: { stepSeconds: 0.3, steps: 100 } });
    const loop = startCli(ws, ['run', dir, ...runFlags(ws, ['--max-iterations', '1000'])]);
    await waitFor(() => (loopRow(ws.db, dir)?.iteration_count ?? 0) >= 1, 'a signal');
    loop.child.kill('SIGKILL');
    await loop.exited;
    const { loops } = JSON.parse((await runCli(ws, ['status', '--json', '--db', ws.db])).stdout) as { loops: { owner: { alive: boolean } }[] };
    expect(loops[0]!.owner.alive).toBe(false);
    // stopping it is accepted, and the next autodeck to adopt it finishes it instead of restarting it
    const stop = await runCli(ws, ['stop', dir, '--db', ws.db]);
    expect(stop.code).toBe(0);
    expect(stop.stderr).toMatch(/owner is gone/);
    const adopter = await runCli(ws, ['run', dir, ...runFlags(ws)]);
    expect(adopter.code).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'user_stop' });
    expect(eventsOf(ws.db, dir, 'recovered')[0]!.detail).toMatchObject({ action: 'finish' });
    expect(existsSync(join(dir, '.auto-stop'))).toBe(false);
  });

  it('a database locked past the busy timeout is one line, exit 1, and nothing written', async () => {
    ws = makeWorkspace();
    const dir = ws.module('locked', { scenario: { stepSeconds: 0.02 } });
    expect((await runCli(ws, ['status', '--db', ws.db])).code).toBe(0); // creates it
    const holder = new Database(ws.db);
    holder.exec('BEGIN IMMEDIATE'); // a writer that holds on (readers still read, WAL)
    try {
      const r = await runCli(ws, ['run', dir, ...runFlags(ws)]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/locked/);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(loopRow(ws.db, dir)).toBeUndefined();
    // once the lock is gone, the same command works
    expect((await runCli(ws, ['run', dir, ...runFlags(ws)])).code).toBe(0);
  });
});
