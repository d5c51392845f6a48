import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { SIM_AGENT } from '../helpers/cli.js';
import { eventsOf, loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { http, type HttpReply } from '../helpers/http.js';
import { resolveSettings } from '../../src/config/settings.js';
import { Store } from '../../src/store/index.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { startApi, type ApiServer } from '../../src/api/server.js';
import { apiTokenPath, loadOrCreateToken, tokensEqual } from '../../src/api/token.js';
import { sessionName } from '../../src/paths.js';
import { expandAgentArgv } from '../../src/agents/command.js';
import { spawnSync } from 'node:child_process';

// A real HTTP server on an ephemeral loopback port, in front of an in-process Supervisor
// that runs the simulated agent in real PTYs against a real SQLite file.

let ws: Workspace;

/** The finished runs of a module, once there is one. */
const endedRuns = (dir: string) => {
  const runs = runsOf(ws.db, dir);
  return runs.length > 0 ? runs : undefined;
};
let store: Store;
let supervisor: Supervisor;
let api: ApiServer;
let token: string;

function settingsFor(ws: Workspace, agent = SIM_AGENT) {
  const { value, errors } = resolveSettings({
    flags: { db: ws.db, roots: [ws.root], agent, heartbeatSeconds: 0.5 },
    env: ws.env, cwd: ws.dir,
  });
  expect(errors).toEqual([]);
  return value;
}

const call = (method: string, path: string, opts: { body?: unknown; token?: string | null; chunked?: boolean; headers?: Record<string, string> } = {}): Promise<HttpReply> =>
  http({ method, path, port: api.port, token: opts.token === undefined ? token : opts.token, body: opts.body, chunked: opts.chunked, headers: opts.headers });

const start = (taskDir: unknown, extra: Record<string, unknown> = {}, id = 'auto') =>
  call('POST', `/api/sessions/${id}/task-auto`, { body: { taskDir, ...extra } });

/** A module whose simulated agent keeps going until it is stopped. */
const longModule = (name: string) => ws.module(name, { scenario: { stepSeconds: 0.2, steps: 200 } });

beforeAll(async () => {
  ws = makeWorkspace('autodeck-api-');
  const settings = settingsFor(ws);
  store = Store.open(settings.db);
  supervisor = new Supervisor({ store, settings, env: ws.env });
  token = loadOrCreateToken(apiTokenPath(ws.env));
  api = await startApi({ supervisor, store, settings, port: 0, token });
});

afterAll(async () => {
  await api?.close();
  supervisor?.stopAll({ force: true });
  await Promise.race([supervisor?.whenIdle(), new Promise((r) => setTimeout(r, 10_000))]);
  supervisor?.close();
  store?.close();
  ws?.cleanup();
});

describe('REST API: the token', () => {
  it('is created with mode 0600 under $XDG_STATE_HOME/autodeck and reused', () => {
    const path = apiTokenPath(ws.env);
    expect(path).toBe(join(ws.env.XDG_STATE_HOME!, 'autodeck', 'api-token'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(path, 'utf8').trim()).toBe(token);
    expect(loadOrCreateToken(path)).toBe(token);
  });

  it('refuses a token file others can read, a symlink, or an empty file', () => {
    const dir = join(ws.dir, 'tokens');
    mkdirSync(dir);
    const open = join(dir, 'open');
    writeFileSync(open, 'a'.repeat(64), { mode: 0o644 });
    chmodSync(open, 0o644);
    expect(() => loadOrCreateToken(open)).toThrow(/accessible to other users \(mode 644\)/);
    const empty = join(dir, 'empty');
    writeFileSync(empty, '', { mode: 0o600 });
    expect(() => loadOrCreateToken(empty)).toThrow(/is empty/);
    const link = join(dir, 'link');
    symlinkSync(apiTokenPath(ws.env), link);
    expect(() => loadOrCreateToken(link)).toThrow(/symlink/);
    for (const p of [open, empty, link]) expect(() => loadOrCreateToken(p)).toThrow(/^autodeck: [^\n]+$/);
    rmSync(dir, { recursive: true });
  });

  it('compares tokens whatever their lengths', () => {
    expect(tokensEqual(token, token)).toBe(true);
    expect(tokensEqual(`${token}x`, token)).toBe(false);
    expect(tokensEqual('', token)).toBe(false);
  });
});

describe('REST API: the server', () => {
  it('listens on 127.0.0.1 only', async () => {
    expect(api.address()).toMatchObject({ address: '127.0.0.1', family: 'IPv4', port: api.port });
    const others = Object.values(networkInterfaces()).flat()
      .filter((i): i is NonNullable<typeof i> => !!i && i.family === 'IPv4' && !i.internal && !i.address.startsWith('127.'));
    if (others.length === 0) return; // no other local address on this machine: nothing more to try
    const refused = await new Promise<string>((resolve) => {
      const s = connect({ host: others[0]!.address, port: api.port });
      const timer = setTimeout(() => { s.destroy(); resolve('timeout'); }, 5000);
      s.on('connect', () => { clearTimeout(timer); s.destroy(); resolve('connected'); });
      s.on('error', (err: NodeJS.ErrnoException) => { clearTimeout(timer); resolve(err.code ?? 'error'); });
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  it('answers 401 without a token, with a wrong one, or with another scheme, before anything else', async () => {
    const dir = ws.module('auth', { scenario: { stepSeconds: 0.05 } });
    for (const t of [null, 'wrong', `${token}0`, '']) {
      const r = await call('POST', '/api/sessions/auto/task-auto', { token: t, body: { taskDir: dir } });
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ error: expect.stringMatching(/bearer token/) });
      expect(r.headers['www-authenticate']).toBe('Bearer');
    }
    const basic = await call('GET', '/api/task-auto/lookup?taskDir=/x', { token: null, headers: { authorization: `Basic ${token}` } });
    expect(basic.status).toBe(401);
    // even an unknown path, or a wrong method, says nothing before the token
    expect((await call('GET', '/nowhere', { token: 'wrong' })).status).toBe(401);
    expect((await call('PUT', '/api/task-auto/lookup', { token: null })).status).toBe(401);
    expect(loopRow(ws.db, dir)).toBeUndefined();
  });

  it('answers 404 on an unknown path and 405 with Allow on a wrong method', async () => {
    const r = await call('GET', '/api/nothing');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ error: 'not found' });
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const m = await call('PUT', '/api/sessions/auto/task-auto', { body: {} });
    expect(m.status).toBe(405);
    expect(m.headers.allow).toBe('POST, GET, DELETE');
    const l = await call('POST', '/api/task-auto/lookup', { body: {} });
    expect(l.status).toBe(405);
    expect(l.headers.allow).toBe('GET');
  });
});

describe('REST API: starting and stopping loops', () => {
  it('starts a loop (201 with its status), refuses a duplicate (409), reports it, and stops it (202)', async () => {
    const dir = longModule('alpha');
    const session = sessionName('alpha', dir);
    const r = await start(dir, { maxIterations: 500, timeoutMinutes: 30 });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({
      session, taskDir: dir, taskName: 'alpha', maxIterations: 500, timeoutMinutes: 30,
      owner: { pid: process.pid, alive: true },
    });
    expect(['starting', 'running']).toContain(r.json.status);

    // a duplicate, by the derived name or by "auto"
    for (const id of ['auto', session]) {
      const dup = await start(dir, {}, id);
      expect(dup.status).toBe(409);
      expect(dup.json.error).toMatch(/already (starting|running)/);
    }

    await waitFor(() => (loopRow(ws.db, dir)?.iteration_count ?? 0) >= 1, 'a first signal');
    const got = await call('GET', `/api/sessions/${session}/task-auto`);
    expect(got.status).toBe(200);
    for (const field of ['session', 'taskDir', 'taskName', 'status', 'iteration', 'maxIterations', 'step', 'result', 'next',
      'checkpoint', 'elapsedMs', 'activeMs', 'timeoutMinutes', 'stallCount', 'recoveryStep', 'recoveryTotal', 'restartCount',
      'quotaWaitSince', 'startedAt', 'lastSignalAt', 'owner']) {
      expect(got.json).toHaveProperty(field);
    }
    expect(got.json).toMatchObject({ session, taskDir: dir, status: 'running', owner: { pid: process.pid, alive: true } });
    expect(got.json.iteration).toBeGreaterThanOrEqual(1);
    expect(got.json.step).not.toBe('');

    const found = await call('GET', `/api/task-auto/lookup?taskDir=${encodeURIComponent(dir)}`);
    expect(found.status).toBe(200);
    expect(found.json).toEqual({ session_name: session, status: 'running' });
    // the real path is matched: a path through a symlink finds the same loop
    const alias = join(ws.dir, 'alias');
    symlinkSync(dir, alias);
    expect((await call('GET', `/api/task-auto/lookup?taskDir=${encodeURIComponent(alias)}`)).json).toEqual({ session_name: session, status: 'running' });

    const del = await call('DELETE', `/api/sessions/${session}/task-auto`);
    expect(del.status).toBe(202);
    expect(del.json).toEqual({ session_name: session, status: 'stopping' });
    const [run] = await waitFor(() => endedRuns(dir), 'the run to end');
    expect(run).toMatchObject({ outcome: 'user_stop', stop_reason: 'user_stop', forced: 0 });
    expect(loopRow(ws.db, dir)).toBeUndefined();
    expect((await call('GET', `/api/sessions/${session}/task-auto`)).status).toBe(404);
    expect((await call('GET', `/api/task-auto/lookup?taskDir=${encodeURIComponent(dir)}`)).status).toBe(404);
  });

  it('runs a loop started by the derived session name to its end', async () => {
    const dir = ws.module('beta', { scenario: { stepSeconds: 0.05 } });
    const r = await start(dir, {}, sessionName('beta', dir));
    expect(r.status, r.text).toBe(201);
    const [run] = await waitFor(() => endedRuns(dir), 'the loop to complete');
    expect(run).toMatchObject({ outcome: 'complete', iterations: 6 });
  });

  it('takes limits left out of the body from the module\'s past runs', async () => {
    const dir = longModule('gamma');
    for (const iterations of [30, 34, 40]) {
      store.runs.insert({ session: sessionName('gamma', dir), taskDir: dir, taskName: 'gamma', startedAt: '2026-11-20T08:00:00Z',
        endedAt: '2026-11-20T09:00:00Z', iterations, maxIterations: 50, timeoutMinutes: 120, outcome: 'complete', stopReason: '',
        forced: false, recoveries: 0, restarts: 0, quotaWaitMs: 0, activeMs: 20 * 60_000 });
    }
    const r = await start(dir, { timeoutMinutes: 7 });
    expect(r.status, r.text).toBe(201);
    const body = JSON.parse(r.text) as { maxIterations: number; timeoutMinutes: number };
    // p90 of 40 iterations + 50% headroom, never the default 20; the given timeout is kept
    expect(body.maxIterations).toBeGreaterThanOrEqual(60);
    expect(body.timeoutMinutes).toBe(7);
    expect((await call('DELETE', `/api/sessions/${sessionName('gamma', dir)}/task-auto`)).status).toBe(202);
    await waitFor(() => endedRuns(dir)?.find((run) => run.outcome === 'user_stop'), 'the stop');
  });

  it('answers 404 for GET, DELETE and lookup of what does not run', async () => {
    const idle = ws.module('idle');
    for (const [method, path] of [
      ['GET', '/api/sessions/auto-nothing-000000/task-auto'],
      ['DELETE', '/api/sessions/auto-nothing-000000/task-auto'],
      ['GET', '/api/sessions/auto/task-auto'],
      ['DELETE', `/api/sessions/${sessionName('idle', idle)}/task-auto`],
      ['GET', `/api/task-auto/lookup?taskDir=${encodeURIComponent(idle)}`],
      ['GET', `/api/task-auto/lookup?taskDir=${encodeURIComponent(join(ws.root, 'no-such-module'))}`],
    ] as const) {
      const r = await call(method, path);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.json).toEqual({ error: expect.any(String) });
    }
    expect((await call('GET', '/api/task-auto/lookup')).status).toBe(400);
    expect((await call('GET', '/api/task-auto/lookup?taskDir=AiTasks/idle')).status).toBe(400);
  });
});

describe('REST API: refusals', () => {
  it('403 for a relative path, a folder outside the roots, a non-module, a missing path', async () => {
    const dir = ws.module('gamma', { scenario: { stepSeconds: 0.05 } });
    const outside = join(ws.dir, 'Elsewhere', 'gamma');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, '.index.json'), '{"status":"planning"}');
    const plain = join(ws.root, 'plain');
    mkdirSync(plain);
    for (const taskDir of ['AiTasks/gamma', './gamma', outside, plain, join(ws.root, 'missing'), ws.root, '/']) {
      const r = await start(taskDir);
      expect(r.status, taskDir).toBe(403);
      expect(r.json.error).toMatch(/^not a task module under a root/);
    }
    expect(loopRow(ws.db, dir)).toBeUndefined();
  });

  it('400 on malformed JSON, a body that is not an object, a missing or non-string taskDir, unknown fields', async () => {
    const dir = ws.module('delta');
    const cases: [unknown, RegExp][] = [
      ['{"taskDir": ', /not valid JSON/],
      ['', /JSON object body is required/],
      ['[1,2]', /must be a JSON object/],
      ['"text"', /must be a JSON object/],
      ['null', /must be a JSON object/],
      [{}, /taskDir must be a string/],
      [{ taskDir: 42 }, /taskDir must be a string/],
      [{ taskDir: dir, maxIteration: 3 }, /unknown field: maxIteration/],
    ];
    for (const [body, error] of cases) {
      const r = await call('POST', '/api/sessions/auto/task-auto', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.error).toMatch(error);
    }
    expect(loopRow(ws.db, dir)).toBeUndefined();
  });

  it('400 on bad numbers, naming the field', async () => {
    const dir = ws.module('epsilon');
    const cases: [Record<string, unknown>, string][] = [
      [{ maxIterations: 0 }, 'maxIterations'],
      [{ maxIterations: 1001 }, 'maxIterations'],
      [{ maxIterations: 1.5 }, 'maxIterations'],
      [{ maxIterations: 'x' }, 'maxIterations'],
      [{ maxIterations: '5' }, 'maxIterations'],
      [{ maxIterations: null }, 'maxIterations'],
      [{ timeoutMinutes: -1 }, 'timeoutMinutes'],
      [{ timeoutMinutes: 0 }, 'timeoutMinutes'],
      [{ timeoutMinutes: 1441 }, 'timeoutMinutes'],
      [{ timeoutMinutes: 'x' }, 'timeoutMinutes'],
    ];
    for (const [extra, field] of cases) {
      const r = await start(dir, extra);
      expect(r.status, JSON.stringify(extra)).toBe(400);
      expect(r.json.error).toMatch(new RegExp(`^${field} must be`));
    }
    expect(loopRow(ws.db, dir)).toBeUndefined();
  });

  it('400 on an oversized body, declared or chunked', async () => {
    const dir = ws.module('zeta');
    const big = JSON.stringify({ taskDir: dir, pad: 'x'.repeat(100 * 1024) });
    const declared = await call('POST', '/api/sessions/auto/task-auto', { body: big });
    expect(declared.status).toBe(400);
    expect(declared.json.error).toMatch(/too large/);
    const chunked = await call('POST', '/api/sessions/auto/task-auto', { body: big, chunked: true });
    expect(chunked.status).toBe(400);
    expect(chunked.json.error).toMatch(/too large/);
    expect(loopRow(ws.db, dir)).toBeUndefined();
    // the server is still there
    expect((await call('GET', '/api/task-auto/lookup?taskDir=/nowhere')).status).toBe(404);
  });

  it('400 on a malformed session id; the error never echoes raw input', async () => {
    const dir = ws.module('eta');
    const nasty = `%1b%5b31m${'A'.repeat(500)}`;
    const n = await start(dir, {}, nasty);
    expect(n.status).toBe(400);
    expect(n.json.error).toMatch(/session id/);
    expect(n.json.error.length).toBeLessThan(300);
    expect(n.json.error).not.toMatch(/\u001b/);
    const odd = await start(`${dir}/\u001b[31m${'B'.repeat(1000)}`);
    expect(odd.status).toBe(403);
    expect(odd.json.error).not.toMatch(/\u001b/);
    expect(odd.json.error.length).toBeLessThan(200);
    expect(loopRow(ws.db, dir)).toBeUndefined();
  });

  it('400 for what the supervisor refuses: a cancelled module, a draft without a target, a missing agent program', async () => {
    const cancelled = ws.module('cancelled', { status: 'cancelled' });
    const c = await start(cancelled);
    expect(c.status).toBe(400);
    expect(c.json.error).toMatch(/cancelled/);
    const draft = ws.module('draft', { status: 'draft', target: '# Target\n\n' });
    const d = await start(draft);
    expect(d.status).toBe(400);
    expect(d.json.error).toMatch(/fill .target.md first/);

    // a second supervisor and server whose agent is not installed
    const settings = settingsFor(ws, 'no-such-agent-program-xyz {taskDir}');
    const other = new Supervisor({ store, settings, env: ws.env });
    const otherApi = await startApi({ supervisor: other, store, settings, port: 0, token });
    try {
      const dir = ws.module('theta');
      const r = await http({ method: 'POST', path: '/api/sessions/auto/task-auto', port: otherApi.port, token, body: { taskDir: dir } });
      expect(r.status).toBe(400);
      expect(r.json.error).toMatch(/no-such-agent-program-xyz/);
      expect(loopRow(ws.db, dir)).toBeUndefined();
    } finally {
      await otherApi.close();
      other.close();
    }
  });
});

describe('REST API: session ids chosen by the caller', () => {
  const stopAndWait = async (id: string, dir: string) => {
    expect((await call('DELETE', `/api/sessions/${id}/task-auto`)).status).toBe(202);
    await waitFor(() => endedRuns(dir)?.find((run) => run.outcome === 'user_stop'), `the stop of ${id}`);
  };

  it('starts loops in sessions s1 and my.session-2, finds them by id and by lookup, stops them by id', async () => {
    const one = longModule('caller-one');
    const two = longModule('caller-two');
    for (const [id, dir] of [['s1', one], ['my.session-2', two]] as const) {
      const r = await start(dir, {}, id);
      expect(r.status, r.text).toBe(201);
      expect(r.json).toMatchObject({ session: id, taskDir: dir });
      expect(loopRow(ws.db, dir)).toMatchObject({ session_name: id });
    }
    await waitFor(() => (loopRow(ws.db, two)?.iteration_count ?? 0) >= 1, 'a first signal in my.session-2');
    for (const [id, dir] of [['s1', one], ['my.session-2', two]] as const) {
      const got = await call('GET', `/api/sessions/${id}/task-auto`);
      expect(got.status, got.text).toBe(200);
      expect(got.json).toMatchObject({ session: id, taskDir: dir });
      const found = await call('GET', `/api/task-auto/lookup?taskDir=${encodeURIComponent(dir)}`);
      expect(found.json).toEqual({ session_name: id, status: expect.any(String) });
    }
    // the agent was told its session: the hooks find their loop by it
    const env = readFileSync(`/proc/${loopRow(ws.db, two)!.agent_pid}/environ`, 'latin1').split('\0');
    expect(env).toContain('AUTODECK_SESSION=my.session-2');
    for (const [id, dir] of [['s1', one], ['my.session-2', two]] as const) {
      const del = await call('DELETE', `/api/sessions/${id}/task-auto`);
      expect(del.status).toBe(202);
      expect(del.json).toEqual({ session_name: id, status: 'stopping' });
      const [run] = await waitFor(() => endedRuns(dir), `the run in ${id} to end`);
      expect(run).toMatchObject({ outcome: 'user_stop', session_name: id });
      expect((await call('GET', `/api/sessions/${id}/task-auto`)).status).toBe(404);
    }
  });

  it('400 for an id outside [A-Za-z0-9._-]{1,64}, on POST, GET and DELETE; nothing starts', async () => {
    const dir = ws.module('caller-bad');
    for (const id of ['a/b', 'a%2Fb', 'x'.repeat(65), encodeURIComponent('sp ace'), 'a:b', '%E0%A4%A']) {
      const r = await start(dir, {}, id);
      expect(r.status, id).toBe(400);
      expect(r.json.error).toMatch(/^a session id is 1 to 64 of A-Z a-z 0-9 \. _ -/);
      for (const method of ['GET', 'DELETE']) expect((await call(method, `/api/sessions/${id}/task-auto`)).status, `${method} ${id}`).toBe(400);
    }
    expect(loopRow(ws.db, dir)).toBeUndefined();
    // 64 characters is still an id
    const long = 'x'.repeat(64);
    expect((await call('GET', `/api/sessions/${long}/task-auto`)).status).toBe(404);
  });

  it('409 for a second module in a taken session and for the same module in another session', async () => {
    const first = longModule('caller-first');
    const second = longModule('caller-second');
    expect((await start(first, {}, 'shared')).status).toBe(201);
    const again = await start(second, {}, 'shared');
    expect(again.status).toBe(409);
    expect(again.json.error).toMatch(/caller-second: session shared is taken: a loop on caller-first is already/);
    expect(loopRow(ws.db, second)).toBeUndefined();
    for (const id of ['elsewhere', 'auto']) {
      const moved = await start(first, {}, id);
      expect(moved.status, id).toBe(409);
      expect(moved.json.error).toMatch(/caller-first: a loop is already \w+ in session shared/);
    }
    expect(loopRow(ws.db, first)).toMatchObject({ session_name: 'shared' });
    await stopAndWait('shared', first);
  });

  it('"auto" still derives the session name', async () => {
    const dir = longModule('caller-auto');
    const r = await start(dir, {}, 'auto');
    expect(r.status, r.text).toBe(201);
    expect(r.json.session).toBe(sessionName('caller-auto', dir));
    await stopAndWait(sessionName('caller-auto', dir), dir);
  });
  it('a loop left by a dead autodeck keeps its session: adopted by "auto", 409 for another id', async () => {
    const dir = longModule('caller-orphan');
    // an owner that has exited: its pid is dead on this host
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const at = new Date().toISOString();
    store.loops.insert({
      session: 'kept.id', taskDir: dir, taskName: 'caller-orphan', root: ws.root, maxIterations: 200, timeoutMinutes: 30,
      startedAt: at, backend: 'pty', ownerPid: dead, ownerHost: supervisor.host, ownerHeartbeatAt: at,
      agentArgv: expandAgentArgv(supervisor.settings.agent, { taskDir: dir, taskName: 'caller-orphan', session: 'kept.id', root: ws.root }),
      settings: {}, status: 'running',
    });
    const other = await start(dir, {}, 'other');
    expect(other.status).toBe(409);
    expect(other.json.error).toMatch(/caller-orphan: a loop is already running in session kept\.id/);
    const adopted = await start(dir, {}, 'auto');
    expect(adopted.status, adopted.text).toBe(201);
    expect(adopted.json).toMatchObject({ session: 'kept.id', taskDir: dir, owner: { pid: process.pid } });
    expect(eventsOf(ws.db, dir, 'recovered')[0]!.detail).toMatchObject({ action: 'restart', from: { pid: dead } });
    await waitFor(() => (loopRow(ws.db, dir)?.agent_pid ? loopRow(ws.db, dir) : undefined), 'the restarted agent');
    await stopAndWait('kept.id', dir);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ session_name: 'kept.id', restarts: 1 });
  });
});
