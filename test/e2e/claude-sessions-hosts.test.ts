import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeEnv, claudeTitle, installClaudeCode, transcriptDir } from '../helpers/claudeCode.js';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fakeAnthropic.js';
import { processesUnderHome, startClaudeBg, type ClaudeBg } from '../helpers/claudeBackground.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { startRemoteHost, sshdAvailable, type RemoteHost } from '../helpers/sshd.js';
import { emptyLocal } from '../helpers/hostsModel.js';
import { CLAUDE_CODE_NEWEST } from '../../src/agents/claudeVersion.js';
import { HostsModel } from '../../src/hosts/model.js';
import { controlSocket, SSH_DEFAULTS, type SshConfig } from '../../src/hosts/ssh.js';
import { ensureControlDir } from '../../src/hosts/controlDir.js';
import { parseHostSpec } from '../../src/hosts/spec.js';
import { splitAgentCommand } from '../../src/agents/command.js';
import type { Notice } from '../../src/deck/model.js';
import type { DeckRow } from '../../src/deck/deck.js';
import type { LoopEvent } from '../../src/store/events.js';
import type { Session } from '../../src/sessions/session.js';
import { resolveSettings } from '../../src/config/settings.js';
import { openQuietSupervisor } from '../../src/commands/supervised.js';
import { startApi } from '../../src/api/server.js';
import { http } from '../helpers/http.js';

// Claude Code's own sessions on another host, in this machine's dashboard: the real newest
// Claude Code runs background sessions on "the host" (an sshd of the test's own on a
// loopback port, a HOME of its own, autodeck installed there the nvm way), against the fake
// API; the dashboard's model reads that host over ssh. Listed with the host and the right
// states; a permission answered from here through autodeck's hook there (the file written,
// no stray message); a prompt sent lands in the same session id; the recent screen, attach
// over ssh (the detach key's end leaves it running), stop, adopt; status --json --host
// and the events carry them; at the end the daemon and every session there are gone.

const sshd = sshdAvailable();
const install = await installClaudeCode(CLAUDE_CODE_NEWEST);
const skip = !sshd.ok ? sshd.reason : install.reason;
if (skip) console.warn(`Claude Code sessions on another host: skipped: ${skip}`);

let ws: Workspace | undefined;
let host: RemoteHost | undefined;
let fake: FakeAnthropic | undefined;
let claude: ClaudeBg | undefined;
let model: HostsModel | undefined;
let attached: Session | undefined;
const closers: (() => unknown)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  attached?.dispose();
  model?.close();
  if (claude) {
    await claude.cleanup();
    // the daemon, its sessions, their hooks and the background adopt there: nothing is left
    expect(processesUnderHome(claude.home)).toEqual([]);
  }
  await host?.stop();
  await fake?.close();
  ws?.cleanup();
  ws = host = fake = claude = model = attached = undefined;
});

describe.skipIf(skip !== undefined)(claudeTitle("Claude Code's sessions on another host", install), () => {
  it('lists them with the host, answers, sends, shows, attaches, stops and adopts over ssh', async () => {
    ws = makeWorkspace('autodeck-claude-hosts-');
    fake = await startFakeAnthropic([]);
    // the user's credentials on the host, in its login environment: what a prompt sent there carries to the session
    const provider = claudeEnv({ home: '/nonexistent', port: fake.port });
    const login = Object.fromEntries(['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'DISABLE_AUTOUPDATER', 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC'].map((k) => [k, provider[k]!]));
    host = await startRemoteHost(ws.dir, { env: login });
    const h = host;
    // the sessions run on the host: its HOME, its autodeck's state folder (the hook finds its database there)
    const proj = join(h.home, 'proj');
    claude = startClaudeBg({
      ws, bin: install.bin!, version: CLAUDE_CODE_NEWEST, port: fake.port, name: 'remote', cwd: proj,
      env: { XDG_STATE_HOME: h.env.XDG_STATE_HOME, XDG_CONFIG_HOME: h.env.XDG_CONFIG_HOME },
    });
    const c = claude;
    expect(c.home).toBe(h.home);
    // autodeck's hooks in the project there (the PermissionRequest one among them), a project of its own
    mkdirSync(join(proj, '.git'));
    const init = await runCli(ws, ['init'], { env: { ...c.env }, cwd: proj });
    expect(init.code, init.stderr).toBe(0);

    fake.push({ text: 'Hello from the host.' });
    const idle = await c.bg('say hello');
    await c.waitAgent(idle, (a) => a.status === 'idle', 'idle after its turn');
    fake.push({ toolUse: { name: 'Bash', input: { command: 'echo approved > approved.txt', description: 'Write a file' } } });
    const asking = await c.bg('write approved.txt', ['--permission-mode', 'manual']);
    await c.waitAgent(asking, (a) => a.status === 'waiting', 'waiting on a permission');

    // this machine's dashboard model, reading the host over ssh
    const runtime = join(ws.dir, 'run');
    mkdirSync(runtime);
    const ssh: SshConfig = { command: splitAgentCommand(h.sshCommand), controlDir: ensureControlDir(join(runtime, 'autodeck-ssh')), ...SSH_DEFAULTS };
    const spec = parseHostSpec(h.name);
    if (!spec.ok) throw new Error(spec.message);
    const m = new HostsModel(emptyLocal(), [spec.value], { ssh, baseMs: 300, showLocal: true, localVersion: '0.1.0', detachKey: 'C-q' });
    model = m;
    const notices: Notice[] = [];
    m.subscribeNotices((n) => notices.push(n));
    const events: LoopEvent[] = [];
    m.remoteEvents.on('event', (e) => events.push(e));
    const rowOf = (id: string): DeckRow | undefined => m.getSnapshot().rows.find((r) => r.claude?.session.id === id);
    const rowState = async (id: string, ok: (r: DeckRow) => boolean, what: string, ms = 90_000) => waitFor(() => {
      const r = rowOf(id);
      return r && ok(r) ? r : undefined;
    }, what, ms, 200);

    // 1. listed, on the host, with their states; the request autodeck's hook holds there
    const idleRow = await rowState(idle, (r) => r.claude!.view.phase === 'idle', 'the idle session on the host');
    const askingRow = await rowState(asking, (r) => r.claude!.view.phase === 'needs_you' && r.claude!.request !== undefined, 'the asking one, its request held by the hook there');
    expect(idleRow).toMatchObject({ host: h.name, here: false });
    expect(askingRow.key.startsWith(`${h.name}\t`)).toBe(true);
    expect(askingRow.claude!.request!.text).toContain('echo approved > approved.txt');
    const askedId = askingRow.claude!.session.sessionId;
    // the event the host recorded reached this side, with the host
    await waitFor(() => events.find((e) => e.kind === 'needs_you' && e.taskDir === `claude:${askedId}`), 'needs_you from the host', 30_000, 200);
    expect(events.find((e) => e.taskDir === `claude:${askedId}`)?.host).toBe(h.name);
    // status --json --host says the same, each with its host
    const status = await runCli(ws, ['status', '--json', '--host', h.name, '--ssh-command', h.sshCommand, '--no-local'], { env: { XDG_RUNTIME_DIR: runtime } });
    expect(status.code, status.stderr).toBe(0);
    const listed = JSON.parse(status.stdout).claudeSessions as { id: string; host: string; state: string }[];
    expect(listed).toEqual(expect.arrayContaining([expect.objectContaining({ id: idle, host: h.name, state: 'idle' }), expect.objectContaining({ id: asking, host: h.name, state: 'needs you' })]));
    const text = await runCli(ws, ['status', '--host', h.name, '--ssh-command', h.sshCommand, '--no-local'], { env: { XDG_RUNTIME_DIR: runtime } });
    expect(text.stdout.split('\n').find((l) => l.startsWith(`${h.name}  `) && l.endsWith(`  needs you  ${asking}  ${proj}`))).toBeDefined();
    expect(text.stdout).toMatch(/^ {2}\? .*echo approved > approved\.txt/m);

    // the REST API of this dashboard lists them, each with its host, and acts on them
    const { value: settings } = resolveSettings({ flags: { db: ws.db, root: [ws.root] }, env: ws.env, cwd: ws.dir });
    const { store, supervisor } = openQuietSupervisor(settings);
    closers.push(() => store.close(), () => supervisor.close());
    const api = await startApi({ supervisor, store, settings, port: 0, token: 'tok', hosts: m });
    closers.push(() => api.close());
    const call = (method: string, path: string, body?: unknown) => http({ method, port: api.port, path, token: 'tok', ...(body ? { body } : {}) }, 120_000);
    const fromApi = await call('GET', '/api/claude-sessions');
    expect(fromApi.status).toBe(200);
    expect(fromApi.json.sessions).toEqual(expect.arrayContaining([expect.objectContaining({ id: asking, host: h.name, state: 'needs you' }), expect.objectContaining({ id: idle, host: h.name, state: 'idle' })]));
    expect((await call('GET', `/api/claude-sessions/${asking}`)).json).toMatchObject({ host: h.name, request: { kind: 'permission' } });

    // 2. approve from here (the API): the hook there hands Claude Code the answer; no stray message in the transcript
    fake.push({ text: 'Wrote approved.txt.' });
    const answered = await call('POST', `/api/claude-sessions/${asking}/answer`, { decision: 'allow' });
    expect(answered.status, answered.text).toBe(202);
    expect(answered.json).toMatchObject({ host: h.name, answering: true });
    await waitFor(() => existsSync(join(proj, 'approved.txt')), 'approved.txt written on the host', 60_000, 250);
    await c.waitAgent(asking, (a) => a.status === 'idle', 'idle after the approved turn');
    await waitFor(() => notices.find((n) => n.text.startsWith('allowed')), 'the answer said', 30_000, 100);
    const transcript = readFileSync(join(transcriptDir(c.home, proj), `${askedId}.jsonl`), 'utf8');
    expect(transcript).not.toMatch(/"content":"1"|"text":"1"/);

    // 3. a prompt to the idle session: its next turn, under its own id
    const idleId = idleRow.claude!.session.sessionId;
    fake.push({ text: 'Second answer, same session.' });
    const sent = await m.claude.send(idleRow.key, 'a second prompt');
    expect(sent, JSON.stringify(sent)).toMatchObject({ ok: true });
    await waitFor(() => readFileSync(join(transcriptDir(c.home, proj), `${idleId}.jsonl`), 'utf8').includes('Second answer, same session.'), 'the answer in the same transcript', 90_000, 500);
    expect((await c.agents(true)).find((a) => a.sessionId === idleId)).toMatchObject({ id: idle });
    await c.waitAgent(idle, (a) => a.status === 'idle', 'idle again');

    // 4. its recent screen, drawn as text there
    const screen = await m.claude.screen(idleRow.key);
    expect(screen.join('\n')).toContain('Second answer, same session.');

    // 5. attach over ssh in a terminal of autodeck's; its end leaves the session running
    await rowState(idle, (r) => r.claude!.view.live, 'listed running');
    const taken = m.claude.attach(idleRow.key);
    if ('ok' in taken) throw new Error(taken.message);
    attached = taken.session;
    await waitFor(() => taken.session.screen().join('\n').includes('Second answer, same session.'), 'the session through ssh', 60_000, 200);
    taken.release();
    await waitFor(() => taken.session.exited, 'the attach client gone', 10_000, 50);
    expect((await c.agents(false)).find((a) => a.id === idle)).toMatchObject({ status: 'idle' });

    // 6. adopt: governed there by an autodeck of its own (adopt --detach)
    expect(m.claude.adopt(askingRow.key, { maxIterations: 3, timeoutMinutes: 10 })).toMatchObject({ ok: true });
    await rowState(asking, (r) => r.claude!.adopted?.maxIterations === 3, 'adopted there, its limits on the row', 60_000);

    // 7. stop one (the API); the row says so, and stays listed while Claude Code lists it
    const stopped = await call('POST', `/api/claude-sessions/${idle}/stop`, {});
    expect(stopped.status, stopped.text).toBe(202);
    await rowState(idle, (r) => r.claude!.view.phase === 'stopped', 'stopped', 60_000);
    expect((await c.agents(true)).find((a) => a.id === idle)).toMatchObject({ state: 'stopped' });

    // the adopted one stopped: its governor there ends the adoption; its run is in that host's history, read from here
    expect(await m.claude.stop(askingRow.key)).toMatchObject({ ok: true });
    const runs = await waitFor(() => {
      const got = m.runs(askingRow.key, 10);
      return got.length > 0 ? got : undefined;
    }, "the adoption's run in the host's history", 90_000, 500);
    expect(runs[0]).toMatchObject({ taskDir: `claude:${askedId}`, outcome: 'stopped', maxIterations: 3 });

    // the shared connection is this user's, in its private folder
    expect(existsSync(controlSocket(ssh, spec.value))).toBe(true);
  }, 600_000);
});
