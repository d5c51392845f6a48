import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { SIM_AGENT } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { http } from '../helpers/http.js';
import { openSse, type SseClient } from '../helpers/sse.js';
import { resolveSettings } from '../../src/config/settings.js';
import { Store } from '../../src/store/index.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { startApi, type ApiServer } from '../../src/api/server.js';
import { apiTokenPath, loadOrCreateToken } from '../../src/api/token.js';
import type { LoopEvent } from '../../src/store/events.js';

// GET /api/events against a real server and an in-process Supervisor running the simulated
// agent in real PTYs: what two clients receive, and what is left when one goes away.

let ws: Workspace;
let store: Store;
let supervisor: Supervisor;
let api: ApiServer;
let token: string;
/** What `run --json` would print: every event the supervisor emits, as JSON text. */
const printed: string[] = [];

beforeAll(async () => {
  ws = makeWorkspace('autodeck-sse-');
  const { value: settings, errors } = resolveSettings({
    flags: { db: ws.db, roots: [ws.root], agent: SIM_AGENT, heartbeatSeconds: 0.5 }, env: ws.env, cwd: ws.dir,
  });
  expect(errors).toEqual([]);
  store = Store.open(settings.db);
  supervisor = new Supervisor({ store, settings, env: ws.env });
  supervisor.on('event', (e: LoopEvent) => printed.push(JSON.stringify(e)));
  token = loadOrCreateToken(apiTokenPath(ws.env));
  // A short heartbeat, so the test sees one without waiting long.
  api = await startApi({ supervisor, store, settings, port: 0, token, events: { heartbeatMs: 200, maxClients: 2 } });
});

afterAll(async () => {
  await api?.close();
  supervisor?.stopAll({ force: true });
  await Promise.race([supervisor?.whenIdle(), new Promise((r) => setTimeout(r, 10_000))]);
  supervisor?.close();
  store?.close();
  ws?.cleanup();
});

const endedFor = (c: SseClient, dir: string) =>
  c.frames.find((f) => { const e = JSON.parse(f.data) as LoopEvent; return e.kind === 'ended' && e.taskDir === dir; });

const start = (dir: string) => http({ method: 'POST', path: '/api/sessions/auto/task-auto', port: api.port, token, body: { taskDir: dir } });

describe('GET /api/events', () => {
  it('needs the token like every route', async () => {
    const c = await openSse(api.port, '/api/events', null);
    expect(c.status).toBe(401);
    await c.closed;
    expect(api.eventStreams()).toBe(0);
  });

  it('sends two clients the same events of a real loop; one leaving does not disturb the other', async () => {
    const baseline = supervisor.listenerCount('event');
    const a = await openSse(api.port, '/api/events', token);
    const b = await openSse(api.port, '/api/events', token);
    for (const c of [a, b]) {
      expect(c.status).toBe(200);
      expect(c.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(c.headers['cache-control']).toBe('no-store');
    }
    await waitFor(() => api.eventStreams() === 2, 'both streams open');
    // one listener on the supervisor for all the streams
    expect(supervisor.listenerCount('event')).toBe(baseline + 1);
    // a third is refused while two are open (maxClients 2), and says why
    const third = await http({ path: '/api/events', port: api.port, token });
    expect(third.status).toBe(503);
    expect(third.json.error).toMatch(/too many event streams/);

    const before = printed.length;
    const first = ws.module('first', { scenario: { stepSeconds: 0.05 } });
    expect((await start(first)).status).toBe(201);
    await waitFor(() => endedFor(a, first) && endedFor(b, first), 'both clients to see the loop end');
    const sent = printed.slice(before);
    // The same objects `run --json` prints, in the same order, to both; the SSE id is the event's.
    for (const c of [a, b]) {
      expect(c.frames.map((f) => f.data)).toEqual(sent);
      for (const f of c.frames) expect(f.id).toBe(String((JSON.parse(f.data) as LoopEvent).id));
    }
    const kinds = a.frames.map((f) => (JSON.parse(f.data) as LoopEvent).kind);
    expect(kinds[0]).toBe('started');
    expect(kinds).toContain('signal');
    expect(kinds.at(-1)).toBe('ended');
    expect(a.comments).toContain('autodeck events');
    await waitFor(() => a.comments.includes('keepalive') && b.comments.includes('keepalive'), 'a heartbeat');

    // a leaves; the server notices, and b goes on getting a second loop's events
    a.close();
    await a.closed;
    await waitFor(() => api.eventStreams() === 1, 'the server to drop the closed stream');
    expect(supervisor.listenerCount('event')).toBe(baseline + 1);
    const aHad = a.frames.length;
    const second = ws.module('second', { scenario: { stepSeconds: 0.05 } });
    expect((await start(second)).status).toBe(201);
    await waitFor(() => endedFor(b, second), 'b to see the second loop end');
    expect(a.frames.length).toBe(aHad);
    expect(b.frames.map((f) => f.data)).toEqual(printed.slice(before));

    // b leaves too: no stream, and the supervisor's listeners are as before
    b.close();
    await waitFor(() => api.eventStreams() === 0, 'the last stream dropped');
    expect(supervisor.listenerCount('event')).toBe(baseline);
  });

  it('ends open streams when the server closes', async () => {
    const c = await openSse(api.port, '/api/events', token);
    await waitFor(() => api.eventStreams() === 1, 'the stream open');
    const listeners = supervisor.listenerCount('event');
    await api.close();
    await c.closed;
    expect(api.eventStreams()).toBe(0);
    expect(supervisor.listenerCount('event')).toBe(listeners - 1);
  });
});
