import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmuxAvailable } from '../../src/sessions/tmuxServer.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { SIM_AGENT } from '../helpers/cli.js';
import { DashboardPane } from '../helpers/dashboardPane.js';
import { startRemoteHost, sshdAvailable, type RemoteHost } from '../helpers/sshd.js';
import { endRemoteLoops, remoteStatus } from '../helpers/remoteLoops.js';

// One dashboard for this machine and another host, as a person uses it: the real CLI in a
// pane of a private tmux server (keys through send-keys, the screen through capture-pane),
// the other host an sshd of the test's own on a loopback port whose login shell has no
// autodeck on its PATH (test/helpers/sshd.ts). What ran on the host is checked there.

const tmux = tmuxAvailable();
const sshd = sshdAvailable();
const skip = !tmux.ok ? tmux.message : !sshd.ok ? sshd.reason : undefined;
if (skip) console.warn(`hosts dashboard tests skipped: ${skip}`);

const COLS = 120;
const ROWS = 36;

/** A row of the table: `› name  host  state …`. */
function rowOf(screen: string, name: string): string | undefined {
  return screen.split('\n').find((l) => new RegExp(`^[› ] ${name} `).test(l));
}

describe.skipIf(skip !== undefined)('the dashboard over ssh (tmux and a loopback sshd)', () => {
  let ws: Workspace | undefined;
  let host: RemoteHost | undefined;
  const panes: DashboardPane[] = [];

  const children: ChildProcess[] = [];

  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    for (const p of panes.splice(0)) await p.kill();
    if (host) {
      endRemoteLoops(host);
      await host.stop();
    }
    host = undefined;
    ws?.cleanup();
    ws = undefined;
  });

  async function open(name: string): Promise<{ pane: DashboardPane; host: RemoteHost; ws: Workspace }> {
    ws = makeWorkspace('autodeck-hosts-');
    ws.module('here', { scenario: { stepSeconds: 5 } });
    host = await startRemoteHost(ws.dir);
    host.module('alpha', { scenario: { stepSeconds: 0.5, steps: 400 } });
    const runtime = join(ws.dir, 'run');
    mkdirSync(runtime);
    const args = ['--root', ws.root, '--db', ws.db, '--agent', SIM_AGENT, '--heartbeat', '0.5', '--stall-threshold', '1000',
      '--host', host.name, '--ssh-command', host.sshCommand, '--host-poll', '0.5'];
    const pane = await DashboardPane.start({ ws, name, args, env: DashboardPane.envFor(ws, { XDG_RUNTIME_DIR: runtime }), cols: COLS, rows: ROWS });
    panes.push(pane);
    await pane.waitScreen((s) => /^  alpha +testbox +· planning/m.test(s) && /^› here +local /m.test(s), 'this machine\'s module and the host\'s, a HOST column');
    return { pane, host, ws };
  }

  it('starts a loop on the host from the start dialog, attaches to it over ssh and detaches, stops it', async () => {
    const { pane, host } = await open('start');
    let screen = await pane.screen();
    expect(screen.split('\n')[1]).toMatch(/MODULE +HOST +STATE/);

    await pane.keys('j');
    await pane.waitScreen((s) => rowOf(s, 'alpha')?.startsWith('›') === true, 'alpha selected');
    await pane.keys('s');
    await pane.waitScreen((s) => s.includes('Start a loop on alpha'), 'the start dialog');
    await pane.keys('BSpace', 'BSpace');
    await pane.type('6');
    await pane.waitScreen((s) => /max iterations +6 /.test(s), 'the field reading 6');
    await pane.keys('Enter');
    screen = await pane.waitScreen((s) => /▶ running\s+\S* ?\d+\/6\b/.test(rowOf(s, 'alpha') ?? ''), 'alpha running on the host, limit 6', 60_000);
    expect(rowOf(screen, 'alpha')).toMatch(/^› alpha +testbox +▶ running/);
    // there, in its tmux, supervised by its own autodeck
    const there = remoteStatus(host).loops;
    expect(there).toEqual([expect.objectContaining({ taskDir: join(host.root, 'alpha'), backend: 'tmux', maxIterations: 6 })]);
    // the totals count both machines' modules (this one's idle one too), then each machine's
    expect(screen).toMatch(/· 2 modules {2}▶ 1 running {2}· 1 idle {2}│ local ·1 testbox ▶1/);

    // attach: the host's tmux session on this terminal, through ssh; the detach key comes back
    await pane.keys('Enter');
    await pane.waitScreen((s) => /sim|plan|exec|check/i.test(s) && !s.includes('MODULE'), 'the agent\'s screen over ssh', 30_000);
    await pane.keys('C-q');
    screen = await pane.waitScreen((s) => s.includes('MODULE') && s.includes('detached from'), 'back in the dashboard', 30_000);
    expect(screen).toMatch(/detached from auto-alpha-[0-9a-f]{6} on testbox/);
    expect(remoteStatus(host).loops).toHaveLength(1); // the agent runs on

    await pane.keys('x');
    await pane.waitScreen((s) => s.includes('Stop alpha?'), 'the stop dialog');
    await pane.keys('y');
    await pane.waitScreen((s) => /■ stopped/.test(rowOf(s, 'alpha') ?? ''), 'alpha stopped on the host', 60_000);
    expect(remoteStatus(host).recent[0]).toMatchObject({ outcome: 'user_stop' });

    // its log (the host's events, come with each look) and its history (read over ssh when the view opens)
    await pane.keys('l');
    screen = await pane.waitScreen((s) => s.includes('Event log') && /testbox:alpha +stop_requested/.test(s) && /testbox:alpha +ended/.test(s), 'the host\'s events in the log', 30_000);
    expect(screen).toMatch(/testbox:alpha +started/);
    await pane.keys('Escape');
    await pane.waitScreen((s) => s.includes('MODULE'), 'the table again');
    await pane.keys('h');
    screen = await pane.waitScreen((s) => s.includes('Runs of alpha') && /■ stopped +\d+\/6\b/.test(s), 'the host\'s run in the history', 30_000);
    await pane.keys('Escape');
    await pane.waitScreen((s) => s.includes('MODULE'), 'the table again');
  }, 180_000);

  it("lists Claude Code's own sessions of the host (✻, HOST), shows one's screen and stops it through that host's autodeck", async () => {
    const { pane, host, ws: w } = await open('claude');
    // the host's Claude Code, played by a script on its login PATH: one background session waiting on a permission
    const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(sleeper);
    const asked = join(w.dir, 'claude-calls.log');
    const listing = JSON.stringify([{ pid: sleeper.pid, id: 'ab12cd34', sessionId: 'ab12cd34-0000-4000-8000-000000000001', cwd: join(host.home, 'src', 'app'), kind: 'background', name: 'fix the login', status: 'waiting', waitingFor: 'permission prompt', state: 'blocked' }]);
    writeFileSync(join(w.dir, 'remote', 'bin', 'claude'), [
      '#!/bin/sh', `echo "$*" >> '${asked}'`, 'case "$1" in', `  agents) echo '${listing}' ;;`, '  logs) echo "hello from the session on the host" ;;', 'esac', '',
    ].join('\n'), { mode: 0o755 });
    mkdirSync(join(host.home, '.claude', 'sessions'), { recursive: true });
    writeFileSync(join(host.home, '.claude', 'sessions', `${sleeper.pid}.json`), JSON.stringify({ pid: sleeper.pid, status: 'waiting' }));
    let screen = await pane.waitScreen((s) => /✻ fix the login +testbox +\? needs you +bg +permission/.test(s), "the host's session, with its host and what it needs", 60_000);
    expect(screen.split('\n')[0]).toMatch(/1 Claude Code session/);
    await pane.keys('j', 'j');
    screen = await pane.waitScreen((s) => /^› ✻ fix the login/m.test(s) && s.includes('hello from the session on the host'), 'selected: its detail, its recent screen read over ssh', 30_000);
    expect(screen).toContain(`folder ${join(host.home, 'src', 'app')}`);
    await pane.keys('x');
    await pane.waitScreen((s) => s.includes('claude stop: the session ends now'), 'the stop dialog');
    await pane.keys('y');
    await pane.waitScreen((s) => s.includes('stopped fix the login'), 'stopped, as the host said', 30_000);
    expect(readFileSync(asked, 'utf8')).toMatch(/^stop ab12cd34$/m);
  }, 180_000);

  it('shows an unreachable host with its last loops stale and still answers keys; picks it up when it is back', async () => {
    const { pane, host } = await open('down');
    await pane.keys('j', 's');
    await pane.waitScreen((s) => s.includes('Start a loop on alpha'), 'the start dialog');
    await pane.keys('Enter');
    await pane.waitScreen((s) => /▶ running/.test(rowOf(s, 'alpha') ?? ''), 'alpha running', 60_000);

    await host.stop();
    // the ssh error's last line (the first look may only see the connection drop)
    let screen = await pane.waitScreen((s) => /✗ no answer +ssh: connect/.test(rowOf(s, 'testbox') ?? '') && /~ stale/.test(rowOf(s, 'alpha') ?? ''), 'the host unreachable, alpha stale', 60_000);
    expect(screen.split('\n')[0]).toMatch(/testbox ✗ no answer/);
    // the keys still work while the host is away: moving, the help overlay, a refused action
    await pane.keys('k');
    await pane.waitScreen((s) => rowOf(s, 'testbox')?.startsWith('›') === true, 'the host\'s row selected');
    await pane.keys('k');
    await pane.waitScreen((s) => rowOf(s, 'here')?.startsWith('›') === true, 'this machine\'s module selected');
    await pane.keys('?');
    await pane.waitScreen((s) => s.includes('Quit'), 'the help overlay');
    await pane.keys('Escape');
    await pane.waitScreen((s) => s.includes('MODULE'), 'the table again');
    await pane.keys('j', 'j');
    await pane.waitScreen((s) => rowOf(s, 'alpha')?.startsWith('›') === true, 'the stale loop selected');
    await pane.keys('x');
    await pane.waitScreen((s) => s.includes('stop: testbox does not answer'), 'stop refused on a stale loop');

    await host.start();
    screen = await pane.waitScreen((s) => /testbox +▶ running/.test(rowOf(s, 'alpha') ?? '') && rowOf(s, 'testbox') === undefined, 'the host back, alpha live', 90_000);
    expect(remoteStatus(host).loops).toHaveLength(1); // it ran on all along
  }, 240_000);
});
