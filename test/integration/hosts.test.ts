import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { quote } from 'shell-quote';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { startRemoteHost, sshdAvailable, type RemoteHost } from '../helpers/sshd.js';
import { endRemoteLoops, remoteStatus } from '../helpers/remoteLoops.js';
import { BIN, runCli } from '../helpers/cli.js';
import { emptyLocal } from '../helpers/hostsModel.js';
import { waitFor } from '../helpers/wait.js';
import { HostsModel } from '../../src/hosts/model.js';
import { remoteKey, hostKey } from '../../src/hosts/rows.js';
import { controlSocket, SSH_DEFAULTS, type SshConfig } from '../../src/hosts/ssh.js';
import { ensureControlDir } from '../../src/hosts/controlDir.js';
import { parseHostSpec, type HostEntry } from '../../src/hosts/spec.js';
import { splitAgentCommand } from '../../src/agents/command.js';
import type { DashboardModel, Notice } from '../../src/deck/model.js';
import type { DeckRow } from '../../src/deck/deck.js';
import { LiveModel } from '../../src/deck/model.js';
import { resolveSettings } from '../../src/config/settings.js';
import { openQuietSupervisor } from '../../src/commands/supervised.js';
import { startApi } from '../../src/api/server.js';
import { openSse } from '../helpers/sse.js';
import { http } from '../helpers/http.js';

// Another host, for real: an sshd of the test's own on a loopback port (test/helpers/sshd.ts),
// a second state folder as that host's autodeck, reached by the dashboard's model over ssh
// as a user's dashboard reaches a build box. What ran there is checked on the remote side
// itself (its database, its tmux server).

const sshd = sshdAvailable();
if (!sshd.ok) console.warn(`hosts tests skipped: ${sshd.reason}`);

describe.skipIf(!sshd.ok)('hosts over ssh (a loopback sshd)', () => {
  let ws: Workspace | undefined;
  let host: RemoteHost | undefined;
  let model: HostsModel | undefined;

  afterEach(async () => {
    model?.close();
    model = undefined;
    if (host) {
      endRemoteLoops(host);
      await host.stop();
    }
    host = undefined;
    ws?.cleanup();
    ws = undefined;
  });

  async function setUp(entry: Partial<HostEntry> = {}, opts: { deadlineMs?: number; baseMs?: number } = {}) {
    ws = makeWorkspace();
    host = await startRemoteHost(ws.dir);
    const runtime = join(ws.dir, 'run');
    mkdirSync(runtime);
    const ssh: SshConfig = { command: splitAgentCommand(host.sshCommand), controlDir: ensureControlDir(join(runtime, 'autodeck-ssh')), ...SSH_DEFAULTS };
    const spec = parseHostSpec(host.name);
    if (!spec.ok) throw new Error(spec.message);
    const notices: Notice[] = [];
    const make = (): HostsModel => {
      const m = new HostsModel(emptyLocal(), [{ ...spec.value, ...entry }], { ssh, baseMs: opts.baseMs ?? 300, showLocal: true, localVersion: '0.1.0', detachKey: 'C-q', deadlineMs: opts.deadlineMs });
      m.subscribeNotices((n) => notices.push(n));
      return m;
    };
    model = make();
    return { host, ssh, notices, runtime, spec: spec.value };
  }

  const rows = (): readonly DeckRow[] => model!.getSnapshot().rows;
  const row = (key: string): DeckRow | undefined => rows().find((r) => r.key === key);
  /** The row once `pred` holds for it. */
  const rowWhen = (key: string, pred: (r: DeckRow) => boolean): DeckRow | undefined => {
    const r = row(key);
    return r && pred(r) ? r : undefined;
  };

  it('lists the modules of a host whose login shell has no autodeck on PATH, starts a loop there in tmux, sees it, stops it', async () => {
    const { host, notices } = await setUp();
    const dir = host.module('alpha', { scenario: { stepSeconds: 0.5, steps: 400 } });
    const key = remoteKey(host.name, dir);
    await waitFor(() => row(key), 'the remote module listed');
    expect(row(key)).toMatchObject({ name: 'alpha', host: host.name, here: false });
    expect(row(key)!.loop).toBeUndefined();
    // autodeck was found under ~/.nvm although the login shell's PATH has neither it nor node
    expect(execFileSync('ssh', [...host.sshCommand.split(' ').slice(1), host.name, 'command -v autodeck node || echo none'], { encoding: 'utf8' }).trim()).toBe('none');

    expect(model!.start(key, { maxIterations: 7, timeoutMinutes: 9 })).toMatchObject({ ok: true, message: expect.stringContaining('starting alpha on') });
    await waitFor(() => notices.find((n) => n.text.includes('started alpha')), `the start's notice (${JSON.stringify(notices)})`);
    const loop = await waitFor(() => row(key)?.loop, 'the remote loop in the table');
    expect(loop).toMatchObject({ backend: 'tmux', maxIterations: 7, timeoutMinutes: 9 });
    // it runs there, supervised by a process of its own (not the ssh call's), its agent in the host's tmux
    const there = remoteStatus(host).loops.find((l) => l.taskDir === dir)!;
    expect(there).toMatchObject({ backend: 'tmux', maxIterations: 7 });
    expect(execFileSync('tmux', ['-L', host.tmuxSocket, 'list-sessions', '-F', '#{session_name}'], { encoding: 'utf8' })).toContain(there.session);
    await waitFor(() => model!.events(50, key).some((e) => e.kind === 'started' && e.host === host.name), 'the remote events in the log');

    expect(model!.stop(key, false)).toMatchObject({ ok: true });
    await waitFor(() => notices.find((n) => n.text.includes('stop asked of alpha')), 'the stop notice');
    await waitFor(() => row(key) && !row(key)!.loop && row(key)!.lastRun?.outcome === 'user_stop', 'the loop ended by the stop, its outcome shown', 60_000);
    const runs = await waitFor(() => {
      const r = model!.runs(key, 10);
      return r.length > 0 ? r : undefined;
    }, 'the remote history');
    expect(runs[0]).toMatchObject({ outcome: 'user_stop', maxIterations: 7 });
  });

  it('says what the host\'s autodeck answered when it refused a start', async () => {
    const { host, notices } = await setUp();
    const dir = host.module('done');
    writeFileSync(join(dir, '.index.json'), JSON.stringify({ status: 'cancelled' }));
    const key = remoteKey(host.name, dir);
    await waitFor(() => rowWhen(key, (r) => r.lifecycle === 'cancelled'), 'the cancelled module');
    expect(model!.start(key, {})).toMatchObject({ ok: true });
    const refused = await waitFor(() => notices.find((n) => n.tone === 'error'), 'the refusal', 60_000);
    expect(refused.text).toMatch(/^not started on testbox: .*cancelled/);
    expect(remoteStatus(host).loops).toEqual([]);
  });

  it('brings hostile module names to the remote autodeck intact, and runs nothing in them', async () => {
    const { host, notices } = await setUp();
    const names = ["it's $(touch pwned) `touch pwned2`", '-rf', 'sp ace "dq" ; echo x', '$HOME ${x} * ? [a] ~ #x !', 'back\\slash\\\\', 'é❯∙ 日本'];
    const dirs = names.map((n) => host.module(n, { scenario: { stepSeconds: 0.5, steps: 400 } }));
    for (const d of dirs) await waitFor(() => row(remoteKey(host.name, d)), `the module ${d}`);
    for (const d of dirs) expect(model!.start(remoteKey(host.name, d), { maxIterations: 3 })).toMatchObject({ ok: true });
    await waitFor(() => notices.filter((n) => n.text.startsWith('started')).length === dirs.length, `every start (${JSON.stringify(notices)})`, 90_000);
    const running = remoteStatus(host).loops.map((l) => l.taskDir).sort();
    expect(running).toEqual([...dirs].sort());
    for (const d of dirs) {
      expect(model!.stop(remoteKey(host.name, d), true)).toMatchObject({ ok: true });
    }
    await waitFor(() => remoteStatus(host).loops.length === 0, 'every hostile loop stopped there', 60_000);
    // nothing of the names ran, on either side
    for (const folder of [host.home, ws!.dir, host.root]) expect(readdirSync(folder).filter((f) => f.startsWith('pwned'))).toEqual([]);
  });

  it('marks an unreachable host with the ssh error, keeps its last loops stale, and picks it up again', async () => {
    const { host } = await setUp({}, { baseMs: 200 });
    const dir = host.module('beta', { scenario: { stepSeconds: 0.5, steps: 400 } });
    const key = remoteKey(host.name, dir);
    await waitFor(() => row(key), 'the module');
    model!.start(key, { maxIterations: 5 });
    await waitFor(() => row(key)?.loop?.status === 'running', 'the loop running');

    await host.stop();
    const own = await waitFor(() => rowWhen(hostKey(host.name), (r) => r.hostIssue?.kind === 'unreachable'), 'the host row: unreachable', 60_000);
    // ssh's own words, whichever the stopping sshd gave (a connection in its handshake is reset;
    // a call whose shared connection died with it exits 255 saying nothing: autodeck says it lost it)
    expect(own.hostIssue!.message).toMatch(/Connection refused|Connection reset|closed|lost the connection|no answer/);
    const stale = await waitFor(() => rowWhen(key, (r) => r.staleFor !== undefined), 'the loop kept, stale');
    expect(stale.loop?.status).toBe('running');
    expect(stale.staleFor).toMatch(/^\d+[smhd]$/);
    expect(model!.stop(key, false)).toMatchObject({ ok: false, message: expect.stringContaining(host.name) });
    // the model still answers at once while the host is away
    expect(model!.events(20).length).toBeGreaterThan(0);

    await host.start();
    await waitFor(() => !row(hostKey(host.name)) && row(key)?.loop && row(key)!.staleFor === undefined, 'the host back, its loop live again', 90_000);
  });

  it('replaces a dead shared connection: a master killed, and a master stuck', async () => {
    const { host, ssh, spec } = await setUp({}, { deadlineMs: 3000, baseMs: 200 });
    host.module('gamma');
    await waitFor(() => rows().some((r) => r.name === 'gamma'), 'the first look');
    const socket = controlSocket(ssh, spec);
    /** What `ssh -O check` says of the connection (on stderr), within 3 s. */
    const check = (): string => {
      const r = spawnSync(ssh.command[0]!, [...ssh.command.slice(1), '-o', `ControlPath=${socket}`, '-O', 'check', host.name], { encoding: 'utf8', timeout: 3000 });
      return `${r.stdout}${r.stderr}`;
    };
    const masterOf = (): number => Number(/pid=(\d+)/.exec(check())?.[1] ?? NaN);
    await waitFor(() => existsSync(socket) && masterOf() > 0, 'the shared connection');

    // killed: its socket file stays behind
    const first = masterOf();
    process.kill(first, 'SIGKILL');
    host.module('delta');
    await waitFor(() => rows().some((r) => r.name === 'delta'), 'a look through a new connection');
    await waitFor(() => masterOf() > 0 && masterOf() !== first, 'a new master');

    // stuck: the socket accepts and nothing answers; every call through it would wait for ever
    const second = masterOf();
    process.kill(second, 'SIGSTOP');
    try {
      host.module('epsilon');
      await waitFor(() => rows().some((r) => r.name === 'epsilon'), 'a look after the stuck master was replaced', 60_000);
      const third = masterOf();
      expect(third).not.toBe(second);
      expect(check()).toContain(`pid=${third}`);
      // the stuck master was ours: ended, not left behind
      await waitFor(() => !existsSync(`/proc/${second}`) || readStat(second) === 'Z', 'the stuck master gone');
    } finally {
      try {
        process.kill(second, 'SIGKILL');
      } catch { /* gone */ }
    }
  });

  it('says when a host has no autodeck, or one too old, in the host\'s row', async () => {
    const { host, runtime } = await setUp({ autodeck: '/nonexistent/bin/autodeck' });
    const own = await waitFor(() => rowWhen(hostKey(host.name), (r) => r.hostIssue?.kind === 'no-autodeck'), 'no autodeck');
    expect(own.hostIssue!.message).toContain('/nonexistent/bin/autodeck');
    model!.close();
    // an old one: answers --version with a version below the oldest this side reads
    const old = join(host.home, 'old', 'autodeck');
    mkdirSync(join(host.home, 'old'));
    writeFileSync(old, '#!/bin/sh\necho 0.0.1\n');
    chmodSync(old, 0o755);
    const spec = parseHostSpec(host.name);
    const ssh: SshConfig = { command: splitAgentCommand(host.sshCommand), controlDir: join(runtime, 'autodeck-ssh'), ...SSH_DEFAULTS };
    model = new HostsModel(emptyLocal(), [{ ...(spec.ok ? spec.value : { label: 'x', destination: 'x' }), autodeck: old }], { ssh, baseMs: 300, showLocal: true, localVersion: '0.1.0', detachKey: 'C-q' });
    const tooOld = await waitFor(() => rowWhen(hostKey(host.name), (r) => r.hostIssue?.kind === 'too-old'), 'too old');
    expect(tooOld.hostIssue!.message).toMatch(/0\.0\.1.*too old/);
  });

  it('says once when the host\'s autodeck is another version than this one, and reads it all the same', async () => {
    const { host, notices, runtime, spec } = await setUp();
    host.module('eta');
    await waitFor(() => rows().some((r) => r.name === 'eta'), 'the first look');
    expect(notices.filter((n) => n.text.includes(' there, '))).toEqual([]);
    model!.close();
    // a newer one there: answers --version with 0.2.0, else is the real program
    const newer = join(host.home, 'newer', 'autodeck');
    mkdirSync(dirname(newer));
    writeFileSync(newer, `#!/bin/sh\nif [ "$1" = --version ]; then echo 0.2.0; exit 0; fi\nPATH=${quote([dirname(host.autodeck)])}:$PATH; export PATH\nexec ${quote([host.autodeck])} "$@"\n`);
    chmodSync(newer, 0o755);
    const ssh: SshConfig = { command: splitAgentCommand(host.sshCommand), controlDir: join(runtime, 'autodeck-ssh'), ...SSH_DEFAULTS };
    model = new HostsModel(emptyLocal(), [{ ...spec, autodeck: newer }], { ssh, baseMs: 200, showLocal: true, localVersion: '0.1.0', detachKey: 'C-q' });
    model.subscribeNotices((n) => notices.push(n));
    await waitFor(() => rows().some((r) => r.name === 'eta'), 'the host read through the newer program');
    host.module('theta');
    await waitFor(() => rows().some((r) => r.name === 'theta'), 'a later look');
    expect(notices.filter((n) => n.text.includes(' there, ')).map((n) => n.text)).toEqual([`${host.name}: autodeck 0.2.0 there, 0.1.0 here`]);
    expect(row(hostKey(host.name))).toBeUndefined();
  });

  it('keeps a host with no task modules and no loops listed', async () => {
    const { host } = await setUp();
    const own = await waitFor(() => rowWhen(hostKey(host.name), (r) => r.hostIssue?.kind === 'empty'), 'the empty host listed');
    expect(own.hostIssue!.message).toBe('no task modules under its roots');
  });

  it('status --json --host merges the hosts, each loop with its host; an unreachable one is said, exit 0', async () => {
    const { host, runtime } = await setUp();
    const dir = host.module('zeta', { scenario: { stepSeconds: 0.5, steps: 400 } });
    const key = remoteKey(host.name, dir);
    await waitFor(() => row(key), 'the module');
    model!.start(key, { maxIterations: 4 });
    await waitFor(() => row(key)?.loop, 'the loop');
    const env = { XDG_RUNTIME_DIR: runtime };
    const flags = ['--host', host.name, '--ssh-command', host.sshCommand, '--db', ws!.db];
    const r = await runCli(ws!, ['status', '--json', ...flags], { env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { loops: { host: string; taskDir: string; maxIterations: number }[]; hosts: { host: string; state: string }[] };
    expect(out.loops).toEqual([expect.objectContaining({ host: host.name, taskDir: dir, maxIterations: 4 })]);
    expect(out.hosts).toEqual([expect.objectContaining({ host: 'local', state: 'ok' }), expect.objectContaining({ host: host.name, state: 'ok', version: '0.1.0' })]);

    await host.stop();
    const down = await runCli(ws!, ['status', '--json', '--no-local', ...flags], { env });
    expect(down.code).toBe(0);
    const d = JSON.parse(down.stdout) as { loops: unknown[]; hosts: { host: string; state: string; message: string }[] };
    expect(d.loops).toEqual([]);
    expect(d.hosts).toEqual([expect.objectContaining({ host: host.name, state: 'unreachable', message: expect.stringMatching(/refused|closed/) })]);
    expect(down.stderr).toContain(`autodeck: ${host.name}: unreachable`);
  });
});

describe('status for a dashboard reading this host (no ssh needed)', () => {
  let ws: Workspace | undefined;
  afterEach(() => {
    ws?.cleanup();
    ws = undefined;
  });

  it('status --events-since ID --modules: the events after ID, the modules with their last runs, the version and clock, in one JSON', async () => {
    ws = makeWorkspace();
    const a = ws.module('alpha', { scenario: { stepSeconds: 0.05 } });
    ws.module('beta');
    const run = await runCli(ws, ['run', a, '--db', ws.db, '--root', ws.root, '--agent', `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} sim {taskDir}`, '--heartbeat', '0.5', '--max-iterations', '2']);
    expect(run.code).not.toBe(2);
    const all = await runCli(ws, ['status', '--events-since', '0', '--modules', '--db', ws.db, '--root', ws.root]);
    expect(all.code, all.stderr).toBe(0);
    const out = JSON.parse(all.stdout) as { loops: unknown[]; events: { id: number; kind: string }[]; lastEventId: number; modules: { name: string; lastRun?: { outcome: string } }[]; version: string; now: string; tmuxSocket: string; host: string };
    expect(out.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Math.abs(Date.parse(out.now) - Date.now())).toBeLessThan(60_000);
    expect(out.tmuxSocket).toBe('autodeck');
    expect(out.events[0]!.kind).toBe('started');
    expect(out.lastEventId).toBe(out.events.at(-1)!.id);
    expect(out.modules.map((m) => [m.name, m.lastRun?.outcome !== undefined])).toEqual([['alpha', true], ['beta', false]]);
    // only what came after the id given
    const later = await runCli(ws, ['status', '--events-since', String(out.events[1]!.id), '--db', ws.db]);
    const l = JSON.parse(later.stdout) as { events: { id: number }[]; modules?: unknown };
    expect(l.events.map((e) => e.id)).toEqual(out.events.slice(2).map((e) => e.id));
    expect(l.modules).toBeUndefined();
    const bad = await runCli(ws, ['status', '--events-since', 'x', '--db', ws.db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('autodeck: --events-since: "x" is not an event id');
  });

  it('the bin\'s own bundle for status (tmux runs it every few seconds) holds none of the ssh code; status --host goes to the full CLI', async () => {
    const bundle = readFileSync(new URL('../../dist/cli/status.cjs', import.meta.url), 'utf8');
    expect(bundle).toContain('events-since');
    expect(bundle).not.toContain('ControlPersist');
    ws = makeWorkspace();
    // a host that cannot be reached: read by the full CLI, said in "hosts", exit 0
    const r = await runCli(ws, ['status', '--json', '--no-local', '--host', 'nohost.invalid', '--ssh-command', 'ssh -o ConnectTimeout=2', '--db', ws.db], { env: { XDG_RUNTIME_DIR: ws.dir } });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { hosts: { host: string; state: string }[] }).hosts).toEqual([expect.objectContaining({ host: 'nohost.invalid', state: 'unreachable' })]);
  });
});

describe.skipIf(!sshd.ok)('the REST API of a dashboard over several hosts', () => {
  let ws: Workspace | undefined;
  let host: RemoteHost | undefined;
  const closers: (() => unknown)[] = [];

  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
    if (host) {
      endRemoteLoops(host);
      await host.stop();
    }
    host = undefined;
    ws?.cleanup();
    ws = undefined;
  });

  it('GET /api/status lists the loops of every host, each with its host; the event stream carries the host', async () => {
    ws = makeWorkspace();
    ws.module('here');
    host = await startRemoteHost(ws.dir);
    const dir = host.module('remote-one', { scenario: { stepSeconds: 0.5, steps: 400 } });
    const runtime = join(ws.dir, 'run');
    mkdirSync(runtime);
    const { value: settings } = resolveSettings({ flags: { db: ws.db, root: [ws.root] }, env: ws.env, cwd: ws.dir });
    const { store, supervisor } = openQuietSupervisor(settings);
    const ssh: SshConfig = { command: splitAgentCommand(host.sshCommand), controlDir: ensureControlDir(join(runtime, 'autodeck-ssh')), ...SSH_DEFAULTS };
    const spec = parseHostSpec(host.name);
    if (!spec.ok) throw new Error(spec.message);
    const model = new HostsModel(new LiveModel(supervisor, store, settings.roots), [spec.value], { ssh, baseMs: 300, showLocal: true, localVersion: '0.1.0', detachKey: 'C-q' });
    closers.push(() => store.close(), () => supervisor.close(), () => model.close());
    const api = await startApi({ supervisor, store, settings, port: 0, token: 'tok', hosts: model });
    closers.push(() => api.close());
    const key = remoteKey(host.name, dir);
    await waitFor(() => model.getSnapshot().rows.find((r) => r.key === key), 'the remote module');
    const stream = await openSse(api.port, '/api/events', 'tok');
    closers.push(() => stream.close());

    model.start(key, { maxIterations: 3 });
    const frame = await waitFor(() => stream.frames.map((f) => JSON.parse(f.data) as { kind: string; host: string; taskDir: string }).find((e) => e.kind === 'started'), 'the remote start on the event stream', 60_000);
    expect(frame).toMatchObject({ host: host.name, taskDir: dir });
    expect(stream.frames.find((f) => f.data.includes('"started"'))!.id).toBeUndefined(); // ids are per host: none for another's
    const status = await waitFor(async () => {
      const r = await http({ port: api.port, path: '/api/status', token: 'tok' });
      return (r.json as { loops: unknown[] }).loops.length > 0 ? r : undefined;
    }, 'the remote loop in GET /api/status');
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ loops: [{ host: host.name, taskDir: dir, maxIterations: 3 }], hosts: [{ host: 'local', state: 'ok' }, { host: host.name, state: 'ok', version: '0.1.0' }] });
  });
});

function readStat(pid: number): string {
  try {
    const stat = execFileSync('cat', [`/proc/${pid}/stat`], { encoding: 'utf8' });
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return '';
  }
}
