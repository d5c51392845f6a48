import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { SIM_AGENT } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { resolveSettings } from '../../src/config/settings.js';
import { Store } from '../../src/store/index.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { isPidAlive } from '../../src/supervisor/owner.js';

// The process's last resort: an exception no loop's boundary catches (thrown outside every
// loop) in a real process that supervises two loops. The error is recorded, every row is
// left adoptable, the process exits; a second supervisor adopts both loops.

const dist = (path: string): string => JSON.stringify(pathToFileURL(fileURLToPath(new URL(`../../dist/src/${path}`, import.meta.url))).href);

/** A process with its own supervisor (as `run` has: the last resort on) that throws outside its loops once both run. */
const CHILD = `
import { Store } from ${dist('store/index.js')};
import { Supervisor } from ${dist('supervisor/supervisor.js')};
import { resolveSettings } from ${dist('config/settings.js')};
const { DB, ROOT, AGENT, DIRS } = process.env;
const { value: settings } = resolveSettings({ flags: { db: DB, roots: [ROOT], agent: AGENT, heartbeatSeconds: 0.5 }, env: process.env, cwd: process.cwd() });
const store = Store.open(settings.db);
const supervisor = new Supervisor({ store, settings, lastResort: true });
const dirs = JSON.parse(DIRS);
for (const dir of dirs) supervisor.start(dir);
const poll = setInterval(() => {
  if (!dirs.every((d) => (store.loops.getByTaskDir(d)?.iteration ?? 0) >= 1)) return;
  clearInterval(poll);
  setTimeout(() => { throw new Error('boom outside every loop'); }, 0);
}, 50);
`;

let ws: Workspace | undefined;
let adopter: { store: Store; supervisor: Supervisor } | undefined;
afterEach(async () => {
  if (adopter) {
    adopter.supervisor.stopAll({ force: true });
    await Promise.race([adopter.supervisor.whenIdle(), new Promise((r) => setTimeout(r, 10_000))]);
    adopter.supervisor.close();
    adopter.store.close();
    adopter = undefined;
  }
  ws?.cleanup();
});

describe('the last resort', () => {
  it('records an exception outside every loop, leaves every row adoptable, and exits', async () => {
    ws = makeWorkspace('autodeck-last-');
    const dirs = [ws.module('one', { scenario: { stepSeconds: 0.05, steps: 100_000 } }), ws.module('two', { scenario: { stepSeconds: 0.05, steps: 100_000 } })];
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
      cwd: ws.dir, env: { ...ws.env, DB: ws.db, ROOT: ws.root, AGENT: SIM_AGENT, DIRS: JSON.stringify(dirs) }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(/^autodeck: internal error: Error: boom outside every loop; its loops are left for the next autodeck to adopt/m);

    const store = Store.open(ws.db);
    const { value: settings } = resolveSettings({ flags: { db: ws.db, roots: [ws.root], agent: SIM_AGENT, heartbeatSeconds: 0.5 }, env: ws.env, cwd: ws.dir });
    const supervisor = new Supervisor({ store, settings, env: ws.env });
    adopter = { store, supervisor };
    const [internal] = store.events.list(500).filter((e) => e.kind === 'internal_error');
    expect(internal!.detail).toMatchObject({ where: 'process', message: 'Error: boom outside every loop' });
    expect(String(internal!.detail.stack)).toMatch(/boom outside every loop\n\s+at /);
    const rows = dirs.map((d) => store.loops.getByTaskDir(d)!);
    for (const r of rows) {
      expect(r.status).not.toBe('failed');
      expect(r.ownerPid).toBeNull(); // released: adoptable at once, by a supervisor on any host
    }
    // the pty agents ended with their process
    for (const r of rows) await waitFor(() => r.agentPid === null || !isPidAlive(r.agentPid), `agent ${r.agentPid} gone`);
    const adopted = supervisor.adoptOrphans();
    expect(adopted.map((l) => l.taskDir).sort()).toEqual([...dirs].sort());
    for (const d of dirs) {
      const before = store.loops.getByTaskDir(d)!.iteration;
      await waitFor(() => (store.loops.getByTaskDir(d)?.iteration ?? 0) > before, `${d} going on under its new owner`);
      expect(store.loops.getByTaskDir(d)!.ownerPid).toBe(process.pid);
    }
  });
});
