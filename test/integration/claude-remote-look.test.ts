import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli } from '../helpers/cli.js';
import { Store } from '../../src/store/index.js';
import { ClaudeRequestStore } from '../../src/claudeSessions/requests.js';

// What a dashboard on another machine asks of this one's autodeck about Claude Code's
// sessions, as real processes: `status --json --claude` lists them through `claude agents`
// (a stand-in here that counts its calls) only when Claude Code's files, the sessions'
// processes or autodeck's own requests changed since the token it gave; each change is
// recorded here as an event the dashboard reads; and `autodeck claude` acts on one.

let ws: Workspace | undefined;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  ws?.cleanup();
  ws = undefined;
});

interface Setup {
  env: NodeJS.ProcessEnv;
  config: string;
  calls: () => string[];
  list: (entries: unknown[]) => void;
  look: (since?: string) => Promise<{ claudeSessions?: Record<string, unknown>[]; claudeUnchanged?: true; claudeNote?: string; claudeToken: string; events: { kind: string; taskDir: string }[] }>;
}

function setup(w: Workspace): Setup {
  const bin = join(w.dir, 'bin');
  const config = join(w.dir, 'claude-config');
  mkdirSync(bin);
  const log = join(w.dir, 'calls.log');
  const listing = join(w.dir, 'listing.json');
  writeFileSync(listing, '[]');
  writeFileSync(log, '');
  // Claude Code's part, played by a script: what it was asked, and the list it is given
  writeFileSync(join(bin, 'claude'), [
    '#!/bin/sh',
    `echo "$*" >> '${log}'`,
    'case "$1" in',
    `  agents) cat '${listing}' ;;`,
    '  --version) echo "2.1.332 (Claude Code)" ;;',
    '  stop) echo "stopped $2" ;;',
    '  logs) printf "\\033[31mred text\\033[0m and \\033]0;title\\007plain\\n" ;;',
    'esac',
  ].join('\n'), { mode: 0o755 });
  const env = { ...w.env, CLAUDE_CONFIG_DIR: config };
  return {
    env, config,
    calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
    list: (entries) => writeFileSync(listing, JSON.stringify(entries)),
    look: async (since) => {
      const r = await runCli(w, ['status', '--json', '--events-since', '0', '--claude', ...(since ? ['--claude-since', since] : []), '--db', w.db, '--agent', join(bin, 'claude')], { env });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    },
  };
}

const SESSION_ID = 'ab12cd34-0000-4000-8000-000000000001';

describe("a dashboard's look at this host's Claude Code sessions", () => {
  it('asks Claude Code only after a change: its files, a session\'s process, a request of autodeck\'s', async () => {
    ws = makeWorkspace();
    const s = setup(ws);
    // no session folders: nothing runs
    let look = await s.look();
    expect(look.claudeSessions).toEqual([]);
    expect(s.calls()).toEqual([]);

    const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(sleeper);
    const pid = sleeper.pid!;
    mkdirSync(join(s.config, 'sessions'), { recursive: true });
    mkdirSync(join(s.config, 'jobs', 'ab12cd34'), { recursive: true });
    writeFileSync(join(s.config, 'sessions', `${pid}.json`), JSON.stringify({ pid, sessionId: SESSION_ID, status: 'waiting' }));
    writeFileSync(join(s.config, 'jobs', 'ab12cd34', 'state.json'), JSON.stringify({ state: 'blocked', needs: 'approve Bash: echo hi > x', updatedAt: new Date().toISOString() }));
    s.list([{ pid, id: 'ab12cd34', sessionId: SESSION_ID, cwd: ws.dir, kind: 'background', name: 'task', status: 'waiting', waitingFor: 'permission prompt', state: 'blocked' }]);
    look = await s.look(look.claudeToken);
    expect(s.calls()).toEqual(['agents --json --all']);
    expect(look.claudeSessions).toEqual([expect.objectContaining({ id: 'ab12cd34', state: 'needs you', needs: expect.objectContaining({ text: 'approve Bash: echo hi > x' }) })]);
    // recorded here, as a dashboard on this host would: the reader sees it in the events
    expect(look.events).toContainEqual(expect.objectContaining({ kind: 'needs_you', taskDir: `claude:${SESSION_ID}` }));

    // nothing changed: Claude Code is not asked, the reader keeps what it has
    const token = look.claudeToken;
    look = await s.look(token);
    expect(look).toMatchObject({ claudeUnchanged: true, claudeToken: token });
    expect(look.claudeSessions).toBeUndefined();
    expect(s.calls()).toHaveLength(1);

    // the job's state changed
    const later = new Date(Date.now() + 5000);
    utimesSync(join(s.config, 'jobs', 'ab12cd34', 'state.json'), later, later);
    look = await s.look(token);
    expect(look.claudeSessions).toHaveLength(1);
    expect(s.calls()).toHaveLength(2);

    // a request autodeck's hook holds (written by another process): shown at once
    const store = Store.open(ws.db);
    new ClaudeRequestStore(store.db).insert({ sessionId: SESSION_ID, jobId: 'ab12cd34', kind: 'permission', request: { tool: 'Bash', command: 'echo hi > x' }, text: 'Bash: echo hi > x', askedAt: new Date().toISOString(), hookPid: process.pid });
    store.close();
    look = await s.look(look.claudeToken);
    expect(look.claudeSessions?.[0]).toMatchObject({ request: { kind: 'permission', text: 'Bash: echo hi > x', detail: { tool: 'Bash', command: 'echo hi > x' } } });

    // the session's process died without a word (killed hard): listed again
    const quiet = look.claudeToken;
    expect((await s.look(quiet)).claudeUnchanged).toBe(true);
    sleeper.kill('SIGKILL');
    await new Promise((r) => sleeper.once('exit', r));
    s.list([{ id: 'ab12cd34', sessionId: SESSION_ID, cwd: ws.dir, kind: 'background', name: 'task', state: 'stopped' }]);
    look = await s.look(quiet);
    expect(look.claudeSessions?.[0]).toMatchObject({ state: 'stopped' });
    expect(look.events).toContainEqual(expect.objectContaining({ kind: 'ended', taskDir: `claude:${SESSION_ID}` }));

    // a token that is not one: a full look, no error
    expect((await s.look('c1.;rm -rf ~')).claudeSessions).toHaveLength(1);
    // Claude Code failing there: said, and not asked again for a minute (a hang costs one try, not every look)
    const failing = s.calls().length;
    writeFileSync(join(ws.dir, 'bin', 'claude'), '#!/bin/sh\necho "$*" >> ' + `'${join(ws.dir, 'calls.log')}'` + '\necho broken >&2\nexit 1\n', { mode: 0o755 });
    utimesSync(join(s.config, 'jobs'), new Date(Date.now() + 9000), new Date(Date.now() + 9000));
    look = await s.look(look.claudeToken);
    expect(look.claudeNote).toMatch(/exited 1: broken/);
    expect(s.calls().length).toBe(failing + 1);
    utimesSync(join(s.config, 'jobs'), new Date(Date.now() + 19000), new Date(Date.now() + 19000));
    expect(await s.look(look.claudeToken)).toMatchObject({ claudeUnchanged: true });
    expect(s.calls().length).toBe(failing + 1);

    const bad = await runCli(ws, ['status', '--json', '--claude-since', 'x', '--db', ws.db], { env: s.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--claude-since goes with --claude');
  });
});

describe('autodeck claude', () => {
  it('lists, answers the request autodeck\'s hook holds, stops, shows the log as text, and says why not', async () => {
    ws = makeWorkspace();
    const s = setup(ws);
    const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(sleeper);
    const pid = sleeper.pid!;
    mkdirSync(join(s.config, 'sessions'), { recursive: true });
    writeFileSync(join(s.config, 'sessions', `${pid}.json`), JSON.stringify({ pid, sessionId: SESSION_ID, status: 'waiting' }));
    s.list([{ pid, id: 'ab12cd34', sessionId: SESSION_ID, cwd: ws.dir, kind: 'background', name: 'write x', status: 'waiting', waitingFor: 'permission prompt', state: 'blocked' }]);
    const agent = ['--db', ws.db, '--agent', join(ws.dir, 'bin', 'claude')];
    // the settings' flags before `--`: after it every word is the command's
    const cli = (args: string[]) => runCli(ws!, [args[0]!, ...agent, ...args.slice(1)], { env: s.env });

    const list = await cli(['claude', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).claudeSessions).toEqual([expect.objectContaining({ id: 'ab12cd34', state: 'needs you' })]);
    expect((await cli(['claude'])).stdout).toMatch(/write x {2}needs you {2}bg ab12cd34/);

    // no request held by autodeck's hook: refused, saying what to do
    let r = await cli(['claude', 'answer', '--allow', '--', 'ab12cd34']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("waits on a dialog autodeck's hook does not hold");
    const store = Store.open(ws.db);
    const requests = new ClaudeRequestStore(store.db);
    const id = requests.insert({ sessionId: SESSION_ID, jobId: 'ab12cd34', kind: 'permission', request: { tool: 'Bash', command: 'echo hi > x' }, text: 'Bash: echo hi > x', askedAt: new Date().toISOString(), hookPid: process.pid });
    r = await cli(['claude', 'answer', '--deny', '--message', 'not on a Friday', '--', SESSION_ID]);
    expect(r.code, r.stderr).toBe(0);
    expect(requests.get(id)?.answer).toMatchObject({ behavior: 'deny', message: expect.stringContaining('not on a Friday') });
    // the first answer wins
    r = await cli(['claude', 'answer', '--allow', '--', 'ab12cd34']);
    expect(r.code).toBe(3);
    store.close();

    // the log: the session's output drawn as text, none of its escape sequences passed on
    r = await cli(['claude', 'logs', 'ab12cd34']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('red text and plain');
    expect(r.stdout).not.toMatch(/\x1b|\x07/);

    r = await cli(['claude', 'stop', 'ab12cd34']);
    expect(r.code, r.stderr).toBe(0);
    expect(s.calls()).toContain('stop ab12cd34');

    // usage and not found: one line, the right code
    r = await cli(['claude', 'stop', 'nope']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual(['autodeck claude stop: no Claude Code session nope']);
    expect((await cli(['claude', 'frobnicate', 'x'])).code).toBe(2);
    expect((await cli(['claude', 'send', 'ab12cd34'])).code).toBe(2);
    expect((await cli(['claude', 'answer', '--allow', '--deny', 'ab12cd34'])).code).toBe(2);
  });
});
