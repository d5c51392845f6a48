import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pty from 'node-pty';
import xtermHeadless from '@xterm/headless';
import { spawnTmuxSession, type TmuxSession } from '../../src/sessions/tmux.js';
import { killTmuxServer, tmuxAvailable } from '../../src/sessions/tmuxServer.js';
import { waitFor } from '../helpers/wait.js';
import { envWithoutTmux } from '../helpers/tmux.js';

// Attach mode on the tmux backend needs a real terminal for the tmux client: a small host
// program (the built attach module, as the dashboard would call it) runs in a node-pty
// terminal whose output feeds a headless xterm, so the test sees what a user would.
// Each test has its own tmux socket, its server killed after.

const { Terminal } = xtermHeadless;
const check = tmuxAvailable();
if (!check.ok) console.warn(`tmux attach tests skipped: ${check.message}`);

const NODE = process.execPath;
const DIST_ATTACH = fileURLToPath(new URL('../../dist/src/attach/attach.js', import.meta.url));
const DIST_TMUX = fileURLToPath(new URL('../../dist/src/sessions/tmux.js', import.meta.url));

/** The agent: raw input echoed as `got "<json>"`, its size on SIGWINCH, `quit` exits. */
const AGENT = `
process.stdin.setRawMode(true);
process.stdin.setEncoding('utf8');
const out = (s) => process.stdout.write(s + '\\r\\n');
out('AGENT READY ' + process.stdout.columns + 'x' + process.stdout.rows);
process.stdin.on('data', (d) => (d === 'quit' ? process.exit(0) : out('got ' + JSON.stringify(d))));
process.stdout.on('resize', () => out('size ' + process.stdout.columns + 'x' + process.stdout.rows));
`;

/**
 * The dashboard's part: adopts the session, reads the terminal first, attaches, prints
 * the result, then echoes what it reads (through 'readable', as Ink does when it renders anew).
 */
const HOST = `
import { attach } from ${JSON.stringify(pathToFileURL(DIST_ATTACH).href)};
import { attachTmuxSession } from ${JSON.stringify(pathToFileURL(DIST_TMUX).href)};
const [socket, name] = process.argv.slice(2);
const session = attachTmuxSession(name, { socket });
const stdin = process.stdin;
stdin.setEncoding('utf8');
stdin.setRawMode(true);
await new Promise((resolve) => {
  // A 'data' listener, removed without a pause: stdin stays flowing and Node keeps
  // reading the terminal, the hardest case for handing it to tmux.
  const onData = (chunk) => {
    if (!chunk.includes('go')) return;
    stdin.off('data', onData);
    stdin.setRawMode(false);
    resolve();
  };
  stdin.on('data', onData);
  process.stdout.write('HOST READY\\r\\n');
});
const result = await attach(session, { input: stdin, output: process.stdout }, { detachByte: '\\x11' });
process.stdout.write('ATTACH RESULT ' + result + '\\r\\n');
// Reading again as Ink does when it renders anew.
stdin.setRawMode(true);
stdin.on('readable', () => {
  for (let chunk; (chunk = stdin.read()) !== null;) process.stdout.write('HOST GOT ' + JSON.stringify(chunk) + '\\r\\n');
});
`;

const sockets: string[] = [];
const dirs: string[] = [];
const hosts: pty.IPty[] = [];
afterEach(() => {
  for (const h of hosts.splice(0)) {
    try {
      h.kill('SIGKILL');
    } catch { /* gone */ }
  }
  for (const socket of sockets.splice(0)) killTmuxServer({ socket });
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Setup {
  agent: TmuxSession;
  host: pty.IPty;
  /** The host terminal's screen, as text. */
  hostScreen(): string;
}

async function setup(name: string): Promise<Setup> {
  if (!existsSync(DIST_ATTACH)) throw new Error('dist/ is not built: run "npm run build" (npm test does)');
  const socket = `adt-attach-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  sockets.push(socket);
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'adt-attach-tmux-')));
  dirs.push(dir);
  writeFileSync(join(dir, 'agent.cjs'), AGENT);
  writeFileSync(join(dir, 'host.mjs'), HOST);

  const agent = spawnTmuxSession({ name, argv: [NODE, join(dir, 'agent.cjs')], cwd: dir, env: envWithoutTmux() }, { socket });
  await waitFor(() => agent.screen().join('\n').includes('AGENT READY 120x40'), 'the agent in tmux');
  // As a supervisor may have: a fixed size, which the attached client must override.
  agent.resize(100, 30);
  await waitFor(() => agent.screen().join('\n').includes('size 100x30'), 'the agent at a fixed size');

  const term = new Terminal({ cols: 80, rows: 24, allowProposedApi: true });
  // A terminal tmux knows; no $SHELL needed (CI has none). As if the dashboard ran inside
  // the user's own tmux: the client must not see TMUX, or it refuses to nest.
  const host = pty.spawn(NODE, [join(dir, 'host.mjs'), socket, name], { name: 'xterm-256color', cols: 80, rows: 24, cwd: dir, env: { ...envWithoutTmux(), TERM: 'xterm-256color', TMUX: '/tmp/tmux-0/elsewhere,1,0', TMUX_PANE: '%9' } });
  hosts.push(host);
  host.onData((d) => term.write(d));
  const hostScreen = () => {
    const buf = term.buffer.active;
    return Array.from({ length: term.rows }, (_, y) => buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '').join('\n');
  };
  await waitFor(() => hostScreen().includes('HOST READY'), 'the host program');
  host.write('go');
  // The tmux client draws the agent's pane in the host terminal, at that terminal's size.
  await waitFor(() => hostScreen().includes('AGENT READY'), 'the agent screen in the host terminal');
  // The terminal's size less tmux's status line, which says how to come back.
  await waitFor(() => agent.screen().join('\n').includes('size 80x23'), 'the agent window at the terminal size');
  await waitFor(() => hostScreen().split('\n')[23]!.includes(`Ctrl-Q: back to autodeck · attached to ${name}`), 'the way back in the status line');
  return { agent, host, hostScreen };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!check.ok)('attach (tmux backend, a real tmux client in a real terminal)', () => {
  it('shows the agent, passes typed keys, and detaches on ctrl-q with the agent still running', async () => {
    const { agent, host, hostScreen } = await setup('auto-attach-000001');
    const agentScreen = () => agent.screen().join('\n');

    host.write('hello ❯');
    await waitFor(() => agentScreen().includes('got "hello ❯"'), 'the typed text at the agent');
    await waitFor(() => hostScreen().includes('got "hello ❯"'), 'the agent answer in the host terminal');
    // Key by key: each one tmux's, none read by the host (which would race tmux for them).
    for (const key of 'vwxyz') {
      host.write(key);
      await waitFor(() => agentScreen().includes(`got "${key}"`), `the key ${key} at the agent`);
    }

    host.write('\x11');
    await waitFor(() => hostScreen().includes('ATTACH RESULT detached'), 'the attach to end detached');
    expect(agent.exited).toBe(false);
    expect(alive(agent.pid)).toBe(true);
    // Back at the size it had before the attach.
    expect(agent.size()).toEqual({ cols: 100, rows: 30 });
    await waitFor(() => agentScreen().split('size 100x30').length === 3, 'the agent told its old size again');

    // The host reads its terminal again, and had read nothing meant for tmux meanwhile.
    host.write('after');
    await waitFor(() => hostScreen().includes('HOST GOT "after"'), 'the host reading again');
    expect(hostScreen().match(/HOST GOT/g)).toHaveLength(1);
    expect(agentScreen()).not.toContain('after');
  });

  it('ends with "exited" when the agent exits while attached', async () => {
    const { agent, host, hostScreen } = await setup('auto-attach-000002');
    host.write('quit');
    await waitFor(() => hostScreen().includes('ATTACH RESULT exited'), 'the attach to end with the agent');
    await waitFor(() => agent.exited, 'the exit seen by the supervisor side too');
  });
});
