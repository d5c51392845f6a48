import { afterEach, describe, expect, it } from 'vitest';
import { renderApp, KEYS, type Rendered } from '../helpers/renderApp.js';
import { FakeModel, moduleRow } from '../helpers/fakeModel.js';
import type { DeckRow } from '../../src/deck/deck.js';
import type { ClaudeEntry } from '../../src/claudeSessions/watch.js';
import type { ClaudeRowActions, ActionResult } from '../../src/claudeSessions/rowActions.js';
import { parseEntry } from '../../src/claudeSessions/listing.js';
import { claudeView } from '../../src/claudeSessions/view.js';
import type { ClaudeRequestRow } from '../../src/claudeSessions/requests.js';
import { HostsModel } from '../../src/hosts/model.js';
import { SSH_DEFAULTS } from '../../src/hosts/ssh.js';
import { hostKey, remoteKey } from '../../src/hosts/rows.js';
import { loopRow } from '../helpers/fakeModel.js';

// Claude Code's own sessions in the dashboard's table: marked, with their state and what
// they need, and the keys that act on them (answer, prompt, stop, adopt) calling the model.

let app: Rendered | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

function request(kind: 'permission' | 'question'): ClaudeRequestRow {
  const questions = [{ question: 'Which colour?', options: [{ label: 'Red' }, { label: 'Blue' }] }];
  return {
    id: 7, sessionId: 'aaaa-1', jobId: 'aaaa', kind, tool: kind === 'question' ? 'AskUserQuestion' : 'Bash',
    request: kind === 'question' ? { tool: 'AskUserQuestion', questions } : { tool: 'Bash', command: 'rm -rf build' },
    text: kind === 'question' ? 'question: Which colour? (Red · Blue)' : 'Bash: rm -rf build', askedAt: new Date().toISOString(),
    hookPid: 1, answer: undefined, answeredBy: '', answeredAt: null, closedAt: null, closedHow: '',
  };
}

function claudeRow(raw: Record<string, unknown>, open?: ClaudeRequestRow): DeckRow {
  const session = parseEntry({ cwd: '/work/app', startedAt: Date.now() - 125_000, ...raw })!;
  const view = claudeView(session, Date.now(), open ? { id: open.id, kind: open.kind, text: open.text } : undefined);
  const entry: ClaudeEntry = { session, view, ...(open ? { request: open } : {}) };
  return { key: `claude:${session.key}`, name: session.name, lifecycle: 'unknown', here: true, ownerAlive: true, claude: entry };
}

class ClaudeModel extends FakeModel {
  claudeCalls: { action: string; key: string; arg?: unknown }[] = [];
  claude: ClaudeRowActions = {
    entry: (key) => this.getSnapshot().rows.find((r) => r.key === key)?.claude,
    adopt: (key, limits) => this.record('adopt', key, limits),
    stop: async (key) => this.record('stop', key),
    send: async (key, prompt) => this.record('send', key, prompt),
    answer: (key, input) => this.record('answer', key, input, input.decision === 'deny' ? 'refused' : input.decision ? 'allowed' : 'answered'),
    attach: (key) => this.record('attach', key),
    screen: async () => ['recent screen line'],
  };
  private record(action: string, key: string, arg?: unknown, message?: string): ActionResult {
    this.claudeCalls.push({ action, key, ...(arg !== undefined ? { arg } : {}) });
    return { ok: true, ...(message ? { message } : {}) };
  }
}

function model(): ClaudeModel {
  return new ClaudeModel([
    moduleRow('add-login'),
    claudeRow({ sessionId: 'aaaa-1', id: 'aaaa', kind: 'background', name: 'fix tests', pid: 10, status: 'waiting', waitingFor: 'permission prompt' }, request('permission')),
    claudeRow({ sessionId: 'bbbb-2', kind: 'interactive', name: 'proj-6d', pid: 11, status: 'idle' }),
    claudeRow({ sessionId: 'cccc-3', id: 'cccc', kind: 'background', name: 'refactor', pid: 12, status: 'idle', state: 'working' }),
  ]);
}

describe('Claude Code sessions in the table', () => {
  it('are marked ✻, with their state, kind, what they need or their folder; the header counts the one that needs you', async () => {
    app = renderApp({ model: model(), columns: 120 });
    const f = await app.waitForFrame((f) => f.includes('fix tests'), 'the rows');
    expect(f).toMatch(/✻ fix tests\s+\? needs you\s+bg\s+permission: Bash: rm/);
    expect(f).toMatch(/✻ proj-6d\s+· idle\s+term\s+\/work\/app/);
    expect(f).toMatch(/✻ refactor\s+· idle\s+bg/);
    // the header's groups add up to the rows: the module and two idle sessions, one that needs you
    expect(f).toMatch(/1 module · 3 Claude Code sessions\s+\? 1 needs you\s+· 3 idle/);
  });

  it('the footer offers answer and prompt only on a Claude Code row', async () => {
    const m = model();
    app = renderApp({ model: m, columns: 140 });
    await app.waitForFrame((f) => f.includes('fix tests'), 'the rows');
    const footer = () => app!.frame().split('\n').filter((l) => l.trim() !== '').at(-1)!;
    expect(footer()).not.toContain('a answer');
    await app.type('j');
    await app.waitForFrame(() => footer().includes('a answer') && footer().includes('p prompt'), 'the Claude keys in the footer');
  });

  it('a answers the held permission request: y allows, through the model (never a key into the session)', async () => {
    const m = model();
    app = renderApp({ model: m, columns: 120 });
    await app.waitForFrame((f) => f.includes('fix tests'), 'the rows');
    await app.type('j', 'a');
    await app.waitForFrame((f) => f.includes('asks for permission') && f.includes('Bash: rm -rf build'), 'the answer dialog');
    await app.type('y');
    await app.waitForFrame((f) => f.includes('fix tests: allowed'), 'the outcome');
    expect(m.claudeCalls).toEqual([{ action: 'answer', key: 'claude:aaaa-1', arg: { decision: 'allow' } }]);
  });

  it('a on a question takes an option by its number', async () => {
    const m = model();
    m.setRows([claudeRow({ sessionId: 'aaaa-1', id: 'aaaa', kind: 'background', name: 'pick', pid: 10, status: 'waiting', waitingFor: 'input needed' }, request('question'))]);
    app = renderApp({ model: m, columns: 120 });
    await app.waitForFrame((f) => f.includes('pick'), 'the row');
    await app.type('a');
    await app.waitForFrame((f) => f.includes('Which colour?') && f.includes('2. Blue'), 'the question');
    await app.type('2');
    await app.waitForFrame((f) => /answer: 2/.test(f), 'the typed answer');
    await app.type(KEYS.enter);
    await app.waitForFrame((f) => f.includes('pick: answered'), 'the outcome');
    expect(m.claudeCalls).toEqual([{ action: 'answer', key: 'claude:aaaa-1', arg: { text: 'Blue' } }]);
  });

  it('p sends a prompt; x stops through claude stop after asking; s adopts with the limits typed', async () => {
    const m = model();
    app = renderApp({ model: m, columns: 120 });
    await app.waitForFrame((f) => f.includes('refactor'), 'the rows');
    await app.type('j', 'j', 'j', 'p');
    await app.waitForFrame((f) => f.includes('Send refactor a prompt'), 'the prompt dialog');
    await app.type('run the tests');
    // (as a person would: Enter once the text shows)
    await app.waitForFrame((f) => f.includes('run the tests'), 'the typed prompt');
    await app.type(KEYS.enter);
    await app.waitForFrame((f) => f.includes('refactor: sent') || f.includes('sending to refactor'), 'the send');
    await app.type('x');
    await app.waitForFrame((f) => f.includes('claude stop: the session ends now'), 'the stop dialog');
    await app.type('y');
    await app.waitForFrame((f) => f.includes('stopped refactor'), 'the stop');
    await app.type('s');
    await app.waitForFrame((f) => f.includes('Start a loop on refactor'), 'the adopt dialog');
    await app.type(KEYS.enter);
    expect(m.claudeCalls.map((c) => c.action)).toEqual(['send', 'stop']);
    expect(m.claudeCalls[0]).toMatchObject({ key: 'claude:cccc-3', arg: 'run the tests' });
    expect(m.calls).toEqual([{ action: 'start', key: 'claude:cccc-3', arg: { maxIterations: 20, timeoutMinutes: 30 } }]);
  });

  it('refuses what cannot be done to a session, with the reason', async () => {
    app = renderApp({ model: model(), columns: 120 });
    await app.waitForFrame((f) => f.includes('proj-6d'), 'the rows');
    await app.type('j', 'j', 'x');
    await app.waitForFrame((f) => f.includes('stop: an interactive session runs in its own terminal'), 'the refusal');
    await app.type('j', 'a');
    await app.waitForFrame((f) => f.includes('answer: nothing to answer'), 'nothing to answer');
  });

  it('beside other hosts: this machine\'s rows (HOST local), counted apart from the modules, a host\'s own row in neither', async () => {
    const m = model();
    const build = '/home/u/AiTasks/build';
    m.setRows([
      moduleRow('login', { loop: loopRow('/ws/AiTasks/login') }),
      claudeRow({ sessionId: 'aaaa-1', id: 'aaaa', kind: 'background', name: 'fix tests', pid: 10, status: 'waiting', waitingFor: 'permission prompt' }, request('permission')),
      { key: hostKey('box'), name: 'box', lifecycle: 'unknown', here: false, ownerAlive: false, host: 'box', hostIssue: { kind: 'unreachable', message: 'ssh: connect to host box port 22: Connection refused' } },
      { key: remoteKey('box', build), name: 'build', lifecycle: 'planning', here: false, ownerAlive: true, host: 'box', loop: loopRow(build, { backend: 'tmux' }), staleFor: '3m' },
    ]);
    Object.assign(m, { hosts: ['box'] });
    app = renderApp({ model: m, columns: 140, rows: 30 });
    const f = await app.waitForFrame((x) => x.includes('HOST') && x.includes('fix tests'), 'the rows');
    expect(f).toMatch(/✻ fix tests\s+local\s+\? needs you/);
    expect(f.split('\n')[0]).toMatch(/· 2 modules · 1 Claude Code session {2}\? 1 needs you {2}▶ 1 running {2}~ 1 stale {2}│ local \?1 ▶1 box ✗ no answer/);
  });

  it('the hosts\' model passes the Claude Code actions through to this machine\'s', async () => {
    const local = model();
    const hosts = new HostsModel(local, [], {
      ssh: { command: ['ssh'], controlDir: '/nonexistent', ...SSH_DEFAULTS }, baseMs: 60_000, showLocal: true, localVersion: '0.1.0', detachKey: 'C-q',
    });
    // a row of this machine: the local model's entry and actions
    expect(hosts.claude.entry('claude:aaaa-1')).toBe(local.claude!.entry('claude:aaaa-1'));
    app = renderApp({ model: hosts, columns: 120 });
    await app.waitForFrame((f) => f.includes('fix tests'), 'the rows');
    await app.type('j', 'a');
    await app.waitForFrame((f) => f.includes('asks for permission'), 'the answer dialog');
    await app.type('y');
    await app.waitForFrame((f) => f.includes('fix tests: allowed'), 'the outcome');
    expect(local.claudeCalls).toEqual([{ action: 'answer', key: 'claude:aaaa-1', arg: { decision: 'allow' } }]);
    // s on a session adopts it through start: the hosts' model hands a key of this machine to the local model
    hosts.start('claude:cccc-3', { maxIterations: 5 });
    expect(local.calls).toEqual([{ action: 'start', key: 'claude:cccc-3', arg: { maxIterations: 5 } }]);
    hosts.close();
  });
});

describe("another host's Claude Code sessions in the table", () => {
  it('are rows of that host (HOST, ✻, the request); a answers, p sends, x stops, s adopts — each one call of its autodeck', async () => {
    const calls: string[] = [];
    const session = {
      source: 'claude', key: 'dddd-4', sessionId: 'dddd-4', id: 'dddd4444', kind: 'background', name: 'train model', cwd: '/home/u/src/ml', pid: 99,
      startedAt: new Date(Date.now() - 90_000).toISOString(), claude: { status: 'waiting', waitingFor: 'permission prompt', state: 'working', extra: {} },
      request: { id: 3, kind: 'permission', text: 'Bash: pip install torch', askedAt: new Date().toISOString(), detail: { tool: 'Bash', command: 'pip install torch' } },
      loop: null, adopted: null,
    };
    const answer = () => JSON.stringify({ loops: [], recent: [], version: '0.1.0', host: 'gpu', now: new Date().toISOString(), tmuxSocket: 'autodeck', events: [], lastEventId: 0, modules: [], home: '/home/u', claudeSessions: [session], claudeToken: '' });
    const call = async (argv: readonly string[]) => {
      const remote = argv.at(-1) ?? '';
      if (remote.includes('autodeck-probe')) return { code: 0, stdout: 'autodeck-candidate\t/home/u/bin/autodeck\t/home/u/bin\t0.1.0\n', stderr: '', timedOut: false, ms: 1 };
      if (argv.includes('-O')) return { code: 255, stdout: '', stderr: 'no socket', timedOut: false, ms: 1 };
      if (remote.includes(' status ')) return { code: 0, stdout: answer(), stderr: '', timedOut: false, ms: 1 };
      calls.push(remote.replace(/^.*exec \/home\/u\/bin\/autodeck /, ''));
      if (remote.includes('claude answer')) Object.assign(session, { claude: { status: 'idle', state: 'working', extra: {} }, request: null });
      return { code: 0, stdout: '', stderr: '', timedOut: false, ms: 1 };
    };
    const hosts = new HostsModel(new FakeModel([]), [{ label: 'gpu', destination: 'gpu' }], {
      ssh: { command: ['ssh'], controlDir: '/nonexistent', ...SSH_DEFAULTS }, baseMs: 60_000, showLocal: true, localVersion: '0.1.0', detachKey: 'C-q', call,
    });
    app = renderApp({ model: hosts, columns: 140, rows: 30 });
    const f = await app.waitForFrame((x) => x.includes('train model'), 'the host\'s session');
    expect(f).toMatch(/✻ train model\s+gpu\s+\? needs you\s+bg\s+permission: Bas/);
    expect(f).toContain("needs: permission: Bash: pip install torch  (a: answer)");
    await app.type('a');
    await app.waitForFrame((x) => x.includes('asks for permission'), 'the answer dialog');
    await app.type('y');
    await app.waitForFrame((x) => x.includes('allowed: dddd4444 on gpu'), 'the outcome, from the host');
    // (the detail pane reads the session's recent screen there: claude logs)
    const acts = () => calls.filter((c) => !c.startsWith('claude logs'));
    expect(calls).toContain('claude logs -- dddd-4');
    expect(acts()).toEqual(['claude answer --allow -- dddd-4']);
    // the host ran the tool and is idle again: read at the look that follows the action
    await app.waitForFrame((x) => /✻ train model\s+gpu\s+· idle/.test(x), 'idle, read again after the answer');
    await app.type('p');
    await app.waitForFrame((x) => x.includes('Enter send'), 'the prompt dialog');
    await app.type('go on', KEYS.enter);
    await app.waitForFrame(() => acts().length === 2, 'the prompt sent');
    expect(acts()[1]).toBe("claude send -- dddd-4 'go on'");
    await app.type('x');
    await app.waitForFrame((x) => x.includes('claude stop: the session ends now'), 'the stop dialog');
    await app.type('y');
    await app.waitForFrame(() => acts().length === 3, 'the stop sent');
    expect(acts()[2]).toBe('claude stop -- dddd-4');
    await app.type('s');
    await app.waitForFrame((x) => x.includes('Start a loop on train model'), 'the adopt dialog');
    await app.type(KEYS.enter);
    await app.waitForFrame(() => acts().length === 4, 'the adoption asked');
    expect(acts()[3]).toBe('adopt --detach --max-iterations 20 --timeout 30 -- dddd-4');
    hosts.close();
  });
});
