import { afterEach, describe, expect, it } from 'vitest';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags, startCli } from '../helpers/cli.js';
import { eventsOf, loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { readFileSync } from 'node:fs';
import { http } from '../helpers/http.js';
import { apiTokenPath } from '../../src/api/token.js';
import { killTmuxServer, listTmuxSessions, tmuxAvailable } from '../../src/sessions/tmuxServer.js';

// Loops in tmux sessions on a private socket: they outlive their supervisor and are
// re-attached by the next one, without a second agent.

const tmux = tmuxAvailable();
if (!tmux.ok) console.warn(`tmux loop tests skipped: ${tmux.message}`);

let ws: Workspace;
let socket = '';
afterEach(() => {
  killTmuxServer({ socket });
  ws?.cleanup();
});

function setup(name: string, scenario: Record<string, unknown>): string {
  ws = makeWorkspace();
  socket = `autodeck-test-${process.pid}-${Date.now()}`;
  ws.env.AUTODECK_TMUX_SOCKET = socket;
  return ws.module(name, { scenario });
}

describe.runIf(tmux.ok)('the tmux backend', () => {
  it('runs a complete loop', async () => {
    const dir = setup('intmux', { stepSeconds: 0.05 });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--backend', 'tmux'])]);
    expect(r.code, r.stderr).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', iterations: 6 });
  });

  it('answers a prompt through send-keys', async () => {
    const dir = setup('asks', { stepSeconds: 0.05, prompt: { atIteration: 2, text: 'Apply? (y/n)' } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--backend', 'tmux', '--heartbeat', '0.2', '--stall-threshold', '2'])]);
    expect(r.code, r.stderr).toBe(0);
    expect(eventsOf(ws.db, dir, 'recovery')[0]!.detail).toMatchObject({ kind: 'yes_no_prompt' });
  });

  it('re-attaches the same agent after the supervisor is killed', async () => {
    const dir = setup('survivor', { stepSeconds: 0.4 });
    const first = startCli(ws, ['run', dir, ...runFlags(ws, ['--backend', 'tmux'])]);
    const before = await waitFor(() => {
      const row = loopRow(ws.db, dir);
      return row && row.agent_pid && row.iteration_count >= 1 ? row : undefined;
    }, 'the first signal');
    first.child.kill('SIGKILL');
    await first.exited;
    // the agent did not die with its supervisor
    expect(() => process.kill(before.agent_pid!, 0)).not.toThrow();
    const second = await runCli(ws, ['run', dir, ...runFlags(ws, ['--backend', 'tmux'])]);
    expect(second.code, second.stderr).toBe(0);
    const recovered = eventsOf(ws.db, dir, 'recovered');
    expect(recovered).toHaveLength(1);
    expect(recovered[0]!.detail).toMatchObject({ action: 'reattach', agentPid: before.agent_pid });
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', iterations: 6, restarts: 0 });
    expect(eventsOf(ws.db, dir, 'started')).toHaveLength(1);
  });
  it('keeps a caller-chosen session id (my.session-2) through the API, tmux and a re-attach', async () => {
    const dir = setup('chosen', { stepSeconds: 0.4 });
    const server = startCli(ws, ['serve', '--api-port', '0', ...runFlags(ws, ['--backend', 'tmux'])]);
    const m = await waitFor(() => /http:\/\/127\.0\.0\.1:(\d+)/.exec(server.stderr()), 'the serve line');
    const token = readFileSync(apiTokenPath(ws.env), 'utf8').trim();
    const r = await http({ method: 'POST', path: '/api/sessions/my.session-2/task-auto', port: Number(m[1]), token, body: { taskDir: dir } });
    expect(r.status, r.text).toBe(201);
    const before = await waitFor(() => {
      const row = loopRow(ws.db, dir);
      return row && row.agent_pid && row.iteration_count >= 1 ? row : undefined;
    }, 'the first signal');
    expect(before.session_name).toBe('my.session-2');
    // tmux would turn "." into "_": the tmux session is my+session-2, the agent its first pane
    expect(listTmuxSessions({ socket })).toEqual([{ name: 'my+session-2', pid: before.agent_pid, dead: false }]);
    server.child.kill('SIGKILL');
    await server.exited;
    const second = await runCli(ws, ['run', dir, ...runFlags(ws, ['--backend', 'tmux'])]);
    expect(second.code, second.stderr).toBe(0);
    expect(eventsOf(ws.db, dir, 'recovered')[0]!.detail).toMatchObject({ action: 'reattach', agentPid: before.agent_pid });
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', session_name: 'my.session-2', restarts: 0 });
  });
});
