import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { SIM_AGENT } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { http } from '../helpers/http.js';
import { resolveSettings } from '../../src/config/settings.js';
import { Store } from '../../src/store/index.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { setBoundaryProbe } from '../../src/supervisor/loopBoundary.js';
import { startApi, type ApiServer } from '../../src/api/server.js';
import { apiTokenPath, loadOrCreateToken } from '../../src/api/token.js';
import { STOP_FILE, writeStopFile } from '../../src/protocol/stopFile.js';
import { isPidAlive } from '../../src/supervisor/owner.js';
import type { LoopEvent } from '../../src/store/events.js';

// Containment: an exception thrown at any entry into one loop (injected through the test
// seam of loopBoundary.ts, as a bug or an input nothing foresaw would throw it) ends that
// loop `failed` with an `internal_error` event, its agent stopped in order; the other loops,
// and the process, go on. In-process Supervisor, the simulated agent in real PTYs, the
// claude profile so that the transcript reader runs too.

let ws: Workspace;
let store: Store;
let supervisor: Supervisor;
let api: ApiServer;
let token: string;
/** A loop that runs through every case: "every other loop goes on". */
let bystander: string;

beforeAll(async () => {
  ws = makeWorkspace('autodeck-contain-');
  const { value: settings, errors } = resolveSettings({
    flags: { db: ws.db, roots: [ws.root], agent: SIM_AGENT, heartbeatSeconds: 0.5, agentProfile: 'claude', graceSeconds: 1, maxIterations: 1000 },
    env: ws.env, cwd: ws.dir,
  });
  expect(errors).toEqual([]);
  store = Store.open(settings.db);
  supervisor = new Supervisor({ store, settings, env: ws.env });
  token = loadOrCreateToken(apiTokenPath(ws.env));
  api = await startApi({ supervisor, store, settings, port: 0, token });
  bystander = ws.module('bystander', { scenario: { stepSeconds: 0.05, steps: 100_000, transcript: true } });
  supervisor.start(bystander);
  await atWork(bystander);
});

afterAll(async () => {
  setBoundaryProbe(undefined);
  await api?.close();
  supervisor?.stopAll({ force: true });
  await Promise.race([supervisor?.whenIdle(), new Promise((r) => setTimeout(r, 15_000))]);
  supervisor?.close();
  store?.close();
  ws?.cleanup();
});

afterEach(() => setBoundaryProbe(undefined));

const row = (dir: string) => store.loops.getByTaskDir(dir);
/** Waits until the loop of `dir` is in its first iterations; its agent's pid. */
const atWork = (dir: string): Promise<number> =>
  waitFor(() => ((row(dir)?.iteration ?? 0) >= 1 ? row(dir)?.agentPid ?? undefined : undefined), `${dir} at work`);
const events = (dir: string, kind?: string): LoopEvent[] => store.events.list(500, dir).filter((e) => kind === undefined || e.kind === kind);

/** Throws once, at `where`, inside the loop of `dir` only. */
function injectAt(where: string, dir: string, make: () => Error = () => new Error(`injected at ${where}`)): { thrown: () => boolean } {
  let thrown = false;
  setBoundaryProbe((at, taskDir) => {
    if (thrown || at !== where || taskDir !== dir) return;
    thrown = true;
    throw make();
  });
  return { thrown: () => thrown };
}

/** The bystander's iteration now, and a wait until it has gone further. */
async function bystanderGoesOn(): Promise<void> {
  const before = row(bystander)!.iteration;
  await waitFor(() => row(bystander)!.iteration > before, `the bystander past iteration ${before}`);
  expect(row(bystander)!.status).not.toBe('failed');
}

/** What every contained failure shows: the row failed, the event, the run, the agent gone. */
async function expectFailedAt(dir: string, where: string, agentPid: number): Promise<void> {
  await waitFor(() => row(dir)?.status === 'failed', `the loop failed after a throw at ${where}`, 40_000);
  const r = row(dir)!;
  expect(r.stopReason).toBe(`internal error in ${where}: Error: injected at ${where}`);
  expect(r.agentPid).toBeNull();
  const [internal] = events(dir, 'internal_error');
  expect(internal!.detail).toMatchObject({ where, message: `Error: injected at ${where}` });
  expect(String(internal!.detail.stack)).toMatch(/injected at .*\n\s+at /);
  expect(events(dir, 'failed').at(-1)!.detail).toMatchObject({ code: 'internal_error' });
  expect(store.runs.forTaskDir(dir, 5)[0]).toMatchObject({ outcome: 'failed', stopReason: 'internal_error' });
  await waitFor(() => !isPidAlive(agentPid), 'its agent gone');
  expect(existsSync(join(dir, STOP_FILE))).toBe(false);
  expect(supervisor.loopOf(dir)).toBeUndefined();
}

interface Case {
  where: string;
  scenario?: Record<string, unknown>;
  /** What makes the loop reach `where`, once the throw is armed (by default its own work does). */
  act?: (dir: string) => unknown;
}

const CASES: Case[] = [
  { where: 'watcher' },
  { where: 'signal file' },
  { where: 'stop file', act: (dir) => writeStopFile(dir, 'user_stop') },
  { where: 'heartbeat' },
  { where: 'screen read' },
  { where: 'spend' },
  { where: 'transcript' },
  { where: 'hook report' },
  { where: 'approval' },
  { where: 'tick' },
  // the supervisor writing the loop's counters, in its one transaction for all loops: slow
  // steps, so that a heartbeat's counters wait for the tick (a signal writes them at once)
  { where: 'flush', scenario: { stepSeconds: 2 } },
  { where: 'attach', act: (dir) => supervisor.loopOf(dir)!.setAttached(true) },
  {
    where: 'stop request', // the REST API's DELETE on this loop
    act: async (dir) => expect((await http({ method: 'DELETE', path: `/api/sessions/${row(dir)!.session}/task-auto`, port: api.port, token })).status).toBe(202),
  },
  // a crash well after the throw is armed (each step is an iteration here)
  { where: 'agent exit', scenario: { crash: { atIteration: 40, exitCode: 3, times: 1 } } },
  { where: 'timer', scenario: { crash: { atIteration: 40, exitCode: 3, times: 1 } } },
];

describe('an exception at a loop\'s boundary fails that loop alone', () => {
  it.each(CASES)('at $where', async ({ where, scenario, act }) => {
    const dir = ws.module(`at-${where.replace(/\W/g, '-')}`, { scenario: { stepSeconds: 0.05, steps: 100_000, transcript: true, ...scenario } });
    supervisor.start(dir);
    const pid = await atWork(dir);
    const injected = injectAt(where, dir);
    await act?.(dir);
    await waitFor(() => injected.thrown(), `a throw at ${where}`, 40_000);
    await expectFailedAt(dir, where, pid);
    await bystanderGoesOn();
  });

  it('stops an agent that ignores the stop file in order: stop file, grace, SIGTERM, then SIGKILL', async () => {
    const dir = ws.module('deaf', { scenario: { stepSeconds: 0.05, steps: 100_000, ignoreStop: true, ignoreSigterm: true } });
    supervisor.start(dir);
    const pid = await atWork(dir);
    injectAt('tick', dir);
    // first the stop file, and the row stopping for the internal error, the agent still running
    await waitFor(() => row(dir)?.status === 'stopping', 'the loop stopping');
    expect(row(dir)!.stopReason).toBe('internal_error');
    expect(existsSync(join(dir, STOP_FILE))).toBe(true);
    expect(isPidAlive(pid)).toBe(true);
    await expectFailedAt(dir, 'tick', pid);
    const kinds = events(dir).map((e) => e.kind === 'agent_exit' && e.detail.action ? `${e.kind}:${e.detail.action}` : e.kind);
    const from = kinds.indexOf('internal_error');
    expect(kinds.slice(from)).toEqual(expect.arrayContaining(['internal_error', 'agent_exit:SIGTERM', 'agent_exit', 'failed', 'ended']));
    expect(kinds.indexOf('agent_exit:SIGTERM')).toBeGreaterThan(from);
    expect(events(dir, 'agent_exit').at(-1)!.detail.signal).toBe(9);
    await bystanderGoesOn();
  });

  it('an agent that reads the stop file leaves by itself, before any signal', async () => {
    const dir = ws.module('obedient', { scenario: { stepSeconds: 0.05, steps: 100_000 } });
    supervisor.start(dir);
    const pid = await atWork(dir);
    injectAt('tick', dir);
    await expectFailedAt(dir, 'tick', pid);
    expect(events(dir, 'agent_exit').filter((e) => e.detail.action)).toEqual([]);
    expect(events(dir, 'agent_exit').at(-1)!.detail).toMatchObject({ exitCode: 0 });
  });

  it('a database locked for a moment is no internal error: the loop goes on', async () => {
    const dir = ws.module('locked', { scenario: { stepSeconds: 0.05, steps: 100_000 } });
    supervisor.start(dir);
    await atWork(dir);
    const injected = injectAt('tick', dir, () => new Database.SqliteError('database is locked', 'SQLITE_BUSY'));
    await waitFor(() => injected.thrown(), 'a busy error at the tick');
    const before = row(dir)!.iteration;
    await waitFor(() => row(dir)!.iteration > before, 'the loop past it');
    expect(row(dir)!.status).not.toBe('failed');
    expect(events(dir, 'internal_error')).toEqual([]);
    supervisor.stop(dir, { force: true });
    await waitFor(() => row(dir) === undefined, 'the loop ended');
  });

  it('a row no loop can be made for (settings nothing foresaw) is failed at adoption, never left running', async () => {
    const dir = ws.module('unmakeable');
    const now = new Date().toISOString();
    store.loops.insert({
      session: 'unmakeable', taskDir: dir, taskName: 'unmakeable', root: ws.root, maxIterations: 3, timeoutMinutes: 10, startedAt: now,
      backend: 'pty', ownerPid: 2 ** 22 + 1, ownerHost: supervisor.host, ownerHeartbeatAt: now, agentArgv: ['true'],
      settings: { cwd: ws.dir, agentProfile: 'no-such-agent' },
    });
    expect(supervisor.adoptOrphans()).toEqual([]);
    const r = row(dir)!;
    expect(r.status).toBe('failed');
    expect(r.stopReason).toMatch(/^internal error in adopt: TypeError: /);
    expect(events(dir, 'internal_error')[0]!.detail).toMatchObject({ where: 'adopt' });
    expect(supervisor.loopOf(dir)).toBeUndefined();
    await bystanderGoesOn();
  });
});
