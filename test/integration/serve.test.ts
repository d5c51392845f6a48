import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { killLeftovers, runFlags, startCli, type CliRun } from '../helpers/cli.js';
import { loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { http } from '../helpers/http.js';
import { apiTokenPath } from '../../src/api/token.js';

// `autodeck serve` as a real process: the built CLI.

let ws: Workspace;

/** The finished runs of a module, once there is one. */
const endedRuns = (dir: string) => {
  const runs = runsOf(ws.db, dir);
  return runs.length > 0 ? runs : undefined;
};
const children: CliRun[] = [];
afterEach(async () => {
  await killLeftovers(children);
  ws?.cleanup();
});

/** `autodeck serve` on a free port; the serve line is checked by each test. */
function serve(extra: string[] = []): CliRun {
  const run = startCli(ws, ['serve', '--api-port', '0', ...runFlags(ws, extra)]);
  children.push(run);
  return run;
}

/** The port the server printed, once it listens. */
async function portOf(run: CliRun): Promise<number> {
  const m = await waitFor(() => /autodeck serve: http:\/\/127\.0\.0\.1:(\d+) \(token in (.+)\)/.exec(run.stderr()), `the serve line (stderr: ${run.stderr()})`);
  expect(m[2]).toBe(apiTokenPath(ws.env));
  return Number(m[1]);
}

describe('autodeck serve', () => {
  it('serves the API: a loop started over HTTP completes; SIGINT exits 130', async () => {
    ws = makeWorkspace('autodeck-serve-');
    const server = serve();
    const port = await portOf(server);
    const tokenPath = apiTokenPath(ws.env);
    expect(statSync(tokenPath).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenPath, 'utf8').trim();

    expect((await http({ path: '/api/task-auto/lookup?taskDir=/x', port, token: null })).status).toBe(401);
    const dir = ws.module('served', { scenario: { stepSeconds: 0.05 } });
    const r = await http({ method: 'POST', path: '/api/sessions/auto/task-auto', port, token, body: { taskDir: dir, maxIterations: 50 } });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ taskDir: dir, maxIterations: 50 });
    const [run] = await waitFor(() => endedRuns(dir), 'the loop to complete');
    expect(run).toMatchObject({ outcome: 'complete', iterations: 6 });
    // one human line per event on stderr, as `run` prints them
    await waitFor(() => /served {2}ended {2}ended: complete/.test(server.stderr()), 'the ended line');

    server.child.kill('SIGINT');
    expect(await server.exited).toBe(130);
    expect(server.stderr()).toMatch(/SIGINT: closing the API/);
  });

  it('prints NDJSON events on stdout with --json', async () => {
    ws = makeWorkspace('autodeck-serve-');
    const server = serve(['--json']);
    const port = await portOf(server);
    const token = readFileSync(apiTokenPath(ws.env), 'utf8').trim();
    const dir = ws.module('jsonl', { scenario: { stepSeconds: 0.02 } });
    expect((await http({ method: 'POST', path: '/api/sessions/auto/task-auto', port, token, body: { taskDir: dir } })).status).toBe(201);
    await waitFor(() => server.stdout().includes('"kind":"ended"'), 'the ended event');
    const events = server.stdout().trim().split('\n').map((l) => JSON.parse(l) as { kind: string; taskName: string });
    expect(events[0]).toMatchObject({ kind: 'started', taskName: 'jsonl' });
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(130);
  });

  it('leaves a running pty loop suspended on SIGTERM; the next serve resumes it without counting a restart', async () => {
    ws = makeWorkspace('autodeck-serve-');
    const first = serve();
    const port = await portOf(first);
    const token = readFileSync(apiTokenPath(ws.env), 'utf8').trim();
    const dir = ws.module('longer', { scenario: { stepSeconds: 0.2, steps: 200 } });
    const r = await http({ method: 'POST', path: '/api/sessions/auto/task-auto', port, token, body: { taskDir: dir, maxIterations: 1000 } });
    expect(r.status, r.text).toBe(201);
    const session = r.json.session as string;
    const running = await waitFor(() => {
      const row = loopRow(ws.db, dir);
      return row && row.iteration_count >= 1 && row.agent_pid ? row : undefined;
    }, 'a first signal');
    const agentPid = running.agent_pid!;

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(130);
    expect(loopRow(ws.db, dir)).toMatchObject({ status: 'suspended', agent_pid: null, restart_count: 0 });
    expect(runsOf(ws.db, dir)).toEqual([]);
    await waitFor(() => {
      try {
        process.kill(agentPid, 0);
        return false;
      } catch {
        return true;
      }
    }, 'the agent to be gone');

    // the next serve adopts every orphan first: the loop runs again, no restart counted
    const second = serve();
    const port2 = await portOf(second);
    const resumed = await waitFor(() => {
      const row = loopRow(ws.db, dir);
      return row && row.status === 'running' && row.agent_pid && row.agent_pid !== agentPid ? row : undefined;
    }, 'the loop to run again');
    expect(resumed.restart_count).toBe(0);
    expect(resumed.owner_pid).toBe(second.child.pid);
    expect(second.stderr()).toMatch(/longer {2}recovered/);

    const del = await http({ method: 'DELETE', path: `/api/sessions/${session}/task-auto`, port: port2, token });
    expect(del.status).toBe(202);
    const [run] = await waitFor(() => endedRuns(dir), 'the run to end');
    expect(run).toMatchObject({ outcome: 'user_stop', restarts: 0 });
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(130);
  });
});
