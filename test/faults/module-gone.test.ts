import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startCli, runFlags } from '../helpers/cli.js';
import { loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { eventsAt, integrity, makeWorkspace, type Workspace } from './helpers/loops.js';
import { recordRow, scale } from './helpers/results.js';

// Fault: the module folder is removed, removed and recreated, or renamed under a running
// loop. Must hold: never a crash (no uncaught error, the process ends by itself with an
// exit code of the contract), and a clear outcome: the run is recorded, the log says why.

let ws: Workspace;
afterEach(() => ws?.cleanup());

type Change = 'removed' | 'removed and recreated' | 'renamed';
const CRASH = /Uncaught|TypeError|RangeError|ReferenceError|at .*\.js:\d+/;

for (const change of ['removed', 'removed and recreated', 'renamed'] as Change[]) {
  describe(`fault: module folder ${change} under a running loop`, () => {
    it('no crash, and a clear outcome', async () => {
      ws = makeWorkspace('autodeck-fault-');
      const dir = ws.module('moving', { scenario: { stepSeconds: scale(0.1, 0.2), steps: scale(12, 30) } });
      const run = startCli(ws, ['run', dir, ...runFlags(ws, ['--max-iterations', '1000', '--restart-limit', '1'])]);
      await waitFor(() => (loopRow(ws.db, dir)?.iteration_count ?? 0) >= 2, 'iteration 2');
      const copy = join(mkdtempSync(join(ws.dir, 'keep-')), 'moving');
      cpSync(dir, copy, { recursive: true });
      if (change === 'renamed') renameSync(dir, `${dir}-renamed`);
      // the agent may be writing into it meanwhile (a new status file): removed whole, however long that takes
      else await waitFor(() => (rmSync(dir, { recursive: true, force: true }), true), 'the module folder removed under its writing agent', 20_000, 10);
      if (change === 'removed and recreated') cpSync(copy, dir, { recursive: true });
      const code = await Promise.race([run.exited, new Promise<number>((r) => setTimeout(() => r(-1), 60_000))]);
      if (code === -1) run.child.kill('SIGKILL');
      const [result] = runsOf(ws.db, dir);
      const events = eventsAt(ws.db, dir).map((e) => e.kind);
      const crashed = CRASH.test(run.stderr());
      const pass = [0, 1].includes(code) && !crashed && result !== undefined && integrity(ws.db) === 'ok';
      recordRow({ fault: `module folder ${change} under a running loop`, atRisk: 1, lost: result ? 0 : 1, doubled: 0, pass,
        note: `exit ${code}, outcome ${result?.outcome ?? 'none'} after ${result?.iterations ?? '?'} iterations; log: ${[...new Set(events.slice(-4))].join(', ')}` });
      expect(crashed, run.stderr()).toBe(false);
      expect([0, 1]).toContain(code);
      expect(result, run.stderr()).toBeDefined();
      expect(integrity(ws.db)).toBe('ok');
    });
  });
}

describe('fault: module folder removed under an agent that does not recreate it', () => {
  it('the log says the folder is gone; when the agent exits the loop ends, not restarted', async () => {
    ws = makeWorkspace('autodeck-fault-');
    const dir = ws.module('vanishing');
    const flags = ['--db', ws.db, '--root', ws.root, '--agent', 'sleep 3600', '--heartbeat', '0.5', '--stall-threshold', '1000000', '--restart-limit', '5'];
    const run = startCli(ws, ['run', dir, ...flags]);
    const pid = await waitFor(() => loopRow(ws.db, dir)?.agent_pid, 'the agent');
    rmSync(dir, { recursive: true, force: true });
    await waitFor(() => eventsAt(ws.db, dir).find((e) => e.kind === 'error' && e.detail.where === 'module folder'), 'the log saying so');
    process.kill(pid, 'SIGKILL');
    const code = await run.exited;
    const [result] = runsOf(ws.db, dir);
    const restarts = eventsAt(ws.db, dir).filter((e) => e.kind === 'restart').length;
    const pass = code === 1 && result?.outcome === 'stopped' && restarts === 0 && !CRASH.test(run.stderr());
    recordRow({ fault: 'module folder removed, agent does not recreate it', atRisk: 1, lost: result ? 0 : 1, doubled: 0, pass,
      note: `exit ${code}, outcome ${result?.outcome ?? 'none'}, ${restarts} restarts` });
    expect(code, run.stderr()).toBe(1);
    expect(result).toMatchObject({ outcome: 'stopped' });
    expect(restarts).toBe(0);
    expect(run.stderr()).toMatch(/module folder: the module folder is gone/);
  });
});
