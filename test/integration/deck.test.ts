import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { SIM_AGENT } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { Deck } from '../../src/deck/deck.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { Store } from '../../src/store/index.js';
import { resolveSettings } from '../../src/config/settings.js';
import { sessionName } from '../../src/paths.js';
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The dashboard's data: immutable snapshots of every module and loop, with change
// notifications, from a real supervisor running the simulated agent.

let ws: Workspace;
let store: Store | undefined;
let supervisor: Supervisor | undefined;
let deck: Deck | undefined;
afterEach(async () => {
  deck?.close();
  supervisor?.stopAll({ force: true });
  await supervisor?.whenIdle();
  supervisor?.close();
  store?.close();
  ws?.cleanup();
  deck = supervisor = store = undefined;
});

function setup(now?: () => number): Deck {
  const { value: settings, errors } = resolveSettings({
    flags: { db: ws.db, root: [ws.root], agent: SIM_AGENT, heartbeat: '0.5' }, env: ws.env, cwd: ws.dir,
  });
  expect(errors).toEqual([]);
  store = Store.open(ws.db);
  supervisor = new Supervisor({ store, settings, env: ws.env });
  deck = new Deck(supervisor, store, settings.roots, now);
  return deck;
}

describe('the deck', () => {
  it('lists modules by name, follows a loop live, and keeps unchanged rows as they were', async () => {
    ws = makeWorkspace();
    const b = ws.module('b-second', { status: 'review', scenario: { stepSeconds: 0.2 } });
    ws.module('a-first', { status: 'draft' });
    const d = setup();
    const first = d.getSnapshot();
    expect(first.rows.map((r) => [r.name, r.lifecycle, r.loop])).toEqual([['a-first', 'draft', undefined], ['b-second', 'review', undefined]]);

    let changes = 0;
    const unsubscribe = d.subscribe(() => changes++);
    supervisor!.start(b);
    const running = await waitFor(() => d.getSnapshot().rows[1]?.loop?.iteration ? d.getSnapshot() : undefined, 'a signal on screen');
    expect(changes).toBeGreaterThan(0);
    expect(running.rows[1]).toMatchObject({ here: true, ownerAlive: true, loop: { status: 'running' } });
    // the other module's row is the very same object: nothing in it changed
    expect(running.rows[0]).toBe(first.rows[0]);
    // no change, no new snapshot
    expect(d.getSnapshot()).toBe(d.getSnapshot());
    unsubscribe();
  });

  it('shows loops of other processes, marked, and a loop outside the roots', async () => {
    ws = makeWorkspace();
    const m = ws.module('elsewhere');
    const d = setup();
    const now = new Date().toISOString();
    const row = { maxIterations: 20, timeoutMinutes: 30, startedAt: now, backend: 'pty', ownerHeartbeatAt: now, agentArgv: [], settings: {} };
    store!.loops.insert({ ...row, session: sessionName('elsewhere', m), taskDir: m, taskName: 'elsewhere', root: ws.root, ownerPid: process.ppid, ownerHost: supervisor!.host });
    store!.loops.insert({ ...row, session: 'auto-outside-abcdef', taskDir: '/nowhere/outside', taskName: 'outside', root: '/nowhere', ownerPid: 999_999_999, ownerHost: supervisor!.host });
    d.poll();
    const rows = d.getSnapshot().rows;
    expect(rows.map((r) => r.name)).toEqual(['elsewhere', 'outside']);
    expect(rows[0]).toMatchObject({ here: false, ownerAlive: true, loop: { status: 'starting' } });
    expect(rows[1]).toMatchObject({ here: false, ownerAlive: false, lifecycle: 'unknown' });

    // A lease refresh or a new screen hash shows nowhere: the row stays the same object.
    store!.loops.update(rows[0]!.loop!.session, { ownerHeartbeatAt: new Date(Date.now() + 1000).toISOString(), lastCaptureHash: 'abc' });
    d.poll();
    expect(d.getSnapshot().rows[0]).toBe(rows[0]);
    // Again, and a rebuild without a read in between (the loop object it already compared).
    store!.loops.update(rows[0]!.loop!.session, { lastCaptureHash: 'def', agentPid: 4242 });
    d.poll();
    supervisor!.emit('change');
    expect(d.getSnapshot().rows[0]).toBe(rows[0]);
    // What is shown does change it.
    store!.loops.update(rows[0]!.loop!.session, { iteration: 4 });
    d.poll();
    expect(d.getSnapshot().rows[0]).not.toBe(rows[0]);
    expect(d.getSnapshot().rows[0]!.loop!.iteration).toBe(4);
  });

  it('reads a module\'s status again when its files change, and at least every minute', () => {
    ws = makeWorkspace();
    const m = ws.module('status', { status: 'planning' });
    let clock = Date.now();
    const d = setup(() => clock);
    expect(d.getSnapshot().rows[0]!.lifecycle).toBe('planning');
    const index = join(m, '.index.json');
    const write = (status: string): void => writeFileSync(index, JSON.stringify({ status, title: 'status' }));
    write('executing');
    const T = 1_700_000_000; // whole seconds: set again below to the very nanosecond
    utimesSync(index, T, T);
    clock += 5000;
    d.poll();
    expect(d.getSnapshot().rows[0]!.lifecycle).toBe('executing');
    // Rewritten in place to the same size with its old times: nothing tells the change from
    // the file's identity, so the status read before stands, until a minute has passed.
    const size = statSync(index).size;
    writeFileSync(index, JSON.stringify({ status: 'complete', title: 'status' }).padEnd(size));
    utimesSync(index, T, T);
    expect(statSync(index).size).toBe(size);
    clock += 5000;
    d.poll();
    expect(d.getSnapshot().rows[0]!.lifecycle).toBe('executing');
    clock += 60_000;
    d.poll();
    expect(d.getSnapshot().rows[0]!.lifecycle).toBe('complete');
  });

  it('reads other processes\' loops when another connection wrote, and the folders every few seconds', async () => {
    ws = makeWorkspace();
    const m = ws.module('watched');
    let clock = Date.now();
    const d = setup(() => clock);
    const reads = vi.spyOn(store!.loops, 'list');
    const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
    // Nothing written by anyone: the timer's looks read no table.
    await sleep(2300);
    expect(reads).not.toHaveBeenCalled();

    // Another process starts a loop: it shows within about a second.
    const other = Store.open(ws.db);
    try {
      const now = new Date().toISOString();
      other.loops.insert({
        session: sessionName('watched', m), taskDir: m, taskName: 'watched', root: ws.root, maxIterations: 20, timeoutMinutes: 30, startedAt: now,
        backend: 'pty', ownerHeartbeatAt: now, agentArgv: [], settings: {}, ownerPid: process.ppid, ownerHost: supervisor!.host,
      });
    } finally {
      other.close();
    }
    await waitFor(() => d.getSnapshot().rows[0]?.loop, 'the other process\'s loop', 3000);
    expect(d.getSnapshot().rows[0]).toMatchObject({ here: false, ownerAlive: true });

    // A new folder waits for the next read of the roots, a few seconds apart.
    ws.module('added-later');
    await sleep(1300);
    expect(d.getSnapshot().rows.map((r) => r.name)).toEqual(['watched']);
    clock += 5000;
    await waitFor(() => (d.getSnapshot().rows.length === 2 ? true : undefined), 'the new module', 3000);
    expect(d.getSnapshot().rows.map((r) => r.name)).toEqual(['added-later', 'watched']);
  });
});
