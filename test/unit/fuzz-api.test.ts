import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSettings } from '../../src/config/settings.js';
import { Store } from '../../src/store/index.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { startApi, type ApiServer } from '../../src/api/server.js';
import { http } from '../helpers/http.js';
import { bent, hasControl, hostileJsonText, hostileString, quickAsync, runs, safeStringify } from '../helpers/hostile.js';

// Property-based: the REST API's request bodies, session ids and query strings, sent to a
// real server on 127.0.0.1 in front of a real supervisor. For any request: an answer of a
// status the API documents (never 500), a JSON body whose `error` is one printable line,
// within a generous bound, and the server still answering afterwards.

const TOKEN = 'fuzz-token';
const STATUSES = [200, 201, 202, 400, 403, 404, 405, 409, 503];
let dir: string;
let store: Store;
let supervisor: Supervisor;
let api: ApiServer;
const internal: unknown[] = [];

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'autodeck-fuzz-api-')));
  mkdirSync(join(dir, 'AiTasks'));
  const { value: settings } = resolveSettings({ flags: { db: join(dir, 'state.db'), roots: [join(dir, 'AiTasks')], agent: 'true' }, env: { HOME: dir }, cwd: dir });
  store = Store.open(settings.db);
  supervisor = new Supervisor({ store, settings, env: { HOME: dir } });
  api = await startApi({ supervisor, store, settings, port: 0, token: TOKEN, onError: (err) => internal.push(err) });
});

afterAll(async () => {
  await api?.close();
  supervisor?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Percent-encodes any string byte by byte, lone surrogates and all (as a client may send them). */
const pathPart = (s: string): string => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

const body = fc.oneof(
  { weight: 3, arbitrary: bent({ taskDir: '/nowhere/AiTasks/x', maxIterations: 5, timeoutMinutes: 10 }, ['taskDir', 'maxIterations', 'timeoutMinutes']).map(safeStringify) },
  hostileJsonText(),
);
const session = fc.oneof(fc.constant('auto'), fc.constant('s1'), hostileString.filter((s) => s.length < 300));

async function expectAnswer(r: { status: number; json: any; text: string }): Promise<void> {
  // a request target past node's header limit (16 KiB) is refused by node itself, before us
  if (r.status === 431) return;
  expect(STATUSES).toContain(r.status);
  if (r.status >= 400) {
    expect(typeof r.json?.error).toBe('string');
    expect(hasControl(r.json.error)).toBe(false);
    expect(r.json.error.length).toBeLessThan(1000);
  }
}

describe('API requests', () => {
  it('POST, GET, DELETE on any session with any body; lookup with any taskDir', async () => {
    await fc.assert(fc.asyncProperty(body, session, hostileString, async (text, id, taskDir) => {
      const path = `/api/sessions/${pathPart(id)}/task-auto`;
      await expectAnswer(await quickAsync(() => http({ method: 'POST', path, port: api.port, token: TOKEN, body: text }), 5000));
      await expectAnswer(await quickAsync(() => http({ method: 'GET', path, port: api.port, token: TOKEN }), 5000));
      await expectAnswer(await quickAsync(() => http({ method: 'DELETE', path, port: api.port, token: TOKEN }), 5000));
      await expectAnswer(await quickAsync(() => http({ path: `/api/task-auto/lookup?taskDir=${pathPart(taskDir)}`, port: api.port, token: TOKEN }), 5000));
    }), { numRuns: runs(60) });
    expect(internal).toEqual([]);
    // still up
    expect((await http({ path: '/api/openapi.json', port: api.port, token: TOKEN })).status).toBe(200);
  });
});
