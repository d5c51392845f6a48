import { afterEach, describe, expect, it, vi } from 'vitest';
import { HostPoller, type HostSnapshot } from '../../src/hosts/poller.js';
import { hostRows, remoteKey } from '../../src/hosts/rows.js';
import { parseRemoteStatus } from '../../src/hosts/remote.js';
import { parseRemoteClaude, remoteClaudeEntry, remoteClaudeJson } from '../../src/hosts/claudeRemote.js';
import { adoptWords, answerWords, callOutcome, sendWords, stopWords } from '../../src/hosts/claudeActions.js';
import { remoteCommand, type SshConfig } from '../../src/hosts/ssh.js';
import { claudeToken, parseClaudeToken } from '../../src/claudeSessions/pollLook.js';
import { rowCells } from '../../src/deck/cells.js';
import { hostileValue } from '../helpers/hostile.js';
import fc from 'fast-check';
import type { CallOptions, CallResult } from '../../src/hosts/call.js';
import type { ConnectionSystem } from '../../src/hosts/connection.js';

// Claude Code's sessions of another host, without ssh: what that host's autodeck says is
// read as untrusted, made into the table's rows (its clock's skew taken out), the token
// that spares Claude Code a listing when nothing changed goes back and forth, an older
// autodeck that refuses --claude keeps its loops read, and each action is the right words.

const SSH: SshConfig = { command: ['ssh'], controlDir: '/run/x/autodeck-ssh', connectTimeoutSeconds: 8, aliveIntervalSeconds: 10, persistSeconds: 60 };
const ok = (stdout: string): CallResult => ({ code: 0, stdout, stderr: '', timedOut: false, ms: 50 });
const PROBE = 'autodeck-candidate\t/home/u/bin/autodeck\t/home/u/bin\t0.1.0\n';

function session(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    source: 'claude', key: 'aaaa-1111', sessionId: 'aaaa-1111', id: 'aaaa1111', kind: 'background', name: 'fix tests', cwd: '/home/u/src/app', pid: 321,
    startedAt: '2030-01-01T00:00:00.000Z', ageMs: 60_000, state: 'needs you', phase: 'needs_you', group: 'needs_you',
    needs: { reason: 'permission', text: 'Bash: echo hi > x', resetAt: null, requestId: 7 },
    claude: { status: 'waiting', waitingFor: 'permission prompt', state: 'working', detail: null, needs: 'approve Bash: echo hi > x', extra: { future: 'field' } },
    updatedAt: '2030-01-01T00:00:30.000Z', request: { id: 7, kind: 'permission', text: 'Bash: echo hi > x', askedAt: '2030-01-01T00:00:30.000Z', detail: { tool: 'Bash', command: 'echo hi > x' } },
    loop: null, adopted: null, ...over,
  };
}

function status(claude: Record<string, unknown>): string {
  return JSON.stringify({ loops: [], recent: [], version: '0.1.0', host: 'gpu', now: new Date().toISOString(), tmuxSocket: 'autodeck', events: [], lastEventId: 0, modules: [], home: '/home/u', ...claude });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("another host's Claude Code sessions", () => {
  it('are read as untrusted: no id, no row; odd fields kept as words; Claude Code\'s unknown state shown', () => {
    const r = parseRemoteClaude({
      claudeToken: 't', claudeSessions: [session(), { name: 'no id at all' }, null, 'x', session({ key: 'bbbb', sessionId: 'bbbb', id: '', pid: 'nope', claude: { status: 'dreaming' }, request: { id: 'x' } })],
    });
    expect(r?.sessions.map((s) => s.session.key)).toEqual(['aaaa-1111', 'bbbb']);
    const odd = remoteClaudeEntry(r!.sessions[1]!, 0, Date.now());
    expect(odd.session.pid).toBeUndefined();
    expect(odd.request).toBeUndefined();
    expect(odd.view).toMatchObject({ phase: 'other', word: 'dreaming' });
    // not asked, or an autodeck too old to say: nothing
    expect(parseRemoteClaude({ loops: [] })).toBeUndefined();
    expect(parseRemoteClaude({ claudeUnchanged: true, claudeToken: 'c1.x' })).toEqual({ sessions: [], note: '', token: 'c1.x', unchanged: true });
  });

  it('never throw on whatever the host says', () => {
    fc.assert(fc.property(hostileValue, hostileValue, (a, b) => {
      const r = parseRemoteClaude({ claudeSessions: [a, session({ claude: b, request: a, adopted: b })], claudeToken: a });
      for (const s of r?.sessions ?? []) remoteClaudeEntry(s, 1234, Date.now());
    }), { numRuns: 200 });
  });

  it('become rows of the host: HOST, the request as the step, times moved by the skew, the folder against its home', () => {
    const parsed = parseRemoteStatus(status({ claudeSessions: [session(), session({ key: 'cccc', sessionId: 'cccc', id: 'cccc', loop: '/home/u/AiTasks/a' })], claudeToken: 'c1.x' }));
    expect(parsed.ok).toBe(true);
    const now = Date.parse('2030-01-01T00:01:00.000Z');
    // the host's clock is 20 s ahead
    const snap: HostSnapshot = { entry: { label: 'gpu', destination: 'gpu' }, status: parsed.ok ? parsed.value : undefined, skewMs: 20_000 };
    const { rows } = hostRows(snap, now, new Map());
    const row = rows.find((r) => r.claude)!;
    // the session that is a loop's agent there is that loop's row, not a second one
    expect(rows.filter((r) => r.claude)).toHaveLength(1);
    expect(row.key).toBe(remoteKey('gpu', 'claude:aaaa-1111'));
    expect(row.claude?.request?.id).toBe(7);
    expect(row.claude?.session.startedAt).toBe(Date.parse('2030-01-01T00:00:00.000Z') - 20_000);
    const cells = rowCells(row, now, { stallThreshold: 5 } as never);
    expect(cells.host).toBe('gpu');
    expect(cells.name).toBe('✻ fix tests');
    expect(cells.state).toMatchObject({ word: 'needs you' });
    expect(cells.step).toBe('permission: Bash: echo hi > x');
    expect(cells.elapsed).toBe('1:20');
    // as status --json and the API give them, with the host
    expect(remoteClaudeJson(snap, now)).toEqual([expect.objectContaining({ host: 'gpu', id: 'aaaa1111', state: 'needs you' }), expect.objectContaining({ host: 'gpu', loop: '/home/u/AiTasks/a' })]);
  });

  it('stay listed, stale, while the host does not answer', () => {
    const parsed = parseRemoteStatus(status({ claudeSessions: [session()], claudeToken: 'c1.x' }));
    const now = Date.now();
    const snap: HostSnapshot = { entry: { label: 'gpu', destination: 'gpu' }, status: parsed.ok ? parsed.value : undefined, skewMs: 0, issue: { kind: 'unreachable', message: 'no answer in 20 s' }, answeredAt: now - 180_000 };
    const row = hostRows(snap, now, new Map()).rows.find((r) => r.claude)!;
    expect(row.staleFor).toBe('3m');
    expect(rowCells(row, now, { stallThreshold: 5 } as never).state).toMatchObject({ word: 'stale 3m' });
  });
});

describe('the token of a listing', () => {
  it('carries the job ids and pids it covers, and nothing that is not one', () => {
    const t = claudeToken('0123456789abcdef', ['aaaa1111', 'b-2'], [12, 345]);
    expect(parseClaudeToken(t)).toEqual({ digest: '0123456789abcdef', jobs: ['aaaa1111', 'b-2'], pids: [12, 345] });
    for (const bad of ['', 'c1.xyz..', 'c1.0123456789abcdef.a;rm -rf.1', 'c1.0123456789abcdef..0', 'c2.0123456789abcdef..', 'c1.0123456789abcdef.,.']) expect(parseClaudeToken(bad)).toBeUndefined();
  });
});

/** A fake ssh answering each look in turn (the last one again), recording the remote lines. */
function fakeCall(looks: CallResult[]) {
  const lines: string[] = [];
  let i = 0;
  const call = (argv: readonly string[], _o: CallOptions): Promise<CallResult> => {
    const remote = argv.at(-1) ?? '';
    if (remote.includes('autodeck-probe')) return Promise.resolve(ok(PROBE));
    if (argv.includes('-O')) return Promise.resolve({ code: 255, stdout: '', stderr: 'no socket', timedOut: false, ms: 1 });
    lines.push(remote);
    return Promise.resolve(looks[Math.min(i++, looks.length - 1)]!);
  };
  return { call, lines };
}

const NO_FILES: ConnectionSystem = { identity: () => undefined, remove: () => {}, commandLine: () => undefined, kill: () => {} };

describe('a poller of a host with Claude Code sessions', () => {
  it('sends back the token; an unchanged answer keeps the sessions; a running one is listed again each minute', async () => {
    vi.useFakeTimers();
    const fake = fakeCall([
      ok(status({ claudeSessions: [session()], claudeToken: 'c1.0123456789abcdef.aaaa1111.321' })),
      ok(status({ claudeUnchanged: true, claudeToken: 'c1.0123456789abcdef.aaaa1111.321' })),
    ]);
    const p = new HostPoller({ label: 'gpu', destination: 'gpu' }, { ssh: SSH, baseMs: 1000, localVersion: '0.1.0', call: fake.call, system: NO_FILES });
    p.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(fake.lines[0]).toMatch(/ status --json --events-since 0 --modules --claude$/);
    expect(p.snapshot.status?.claude?.sessions).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fake.lines[1]).toMatch(/ --claude --claude-since c1\.0123456789abcdef\.aaaa1111\.321$/);
    // unchanged: the sessions of the look before stand
    expect(p.snapshot.status?.claude?.sessions.map((s) => s.session.key)).toEqual(['aaaa-1111']);
    expect(p.snapshot.status?.claude?.unchanged).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    // a running session: listed in full at least once a minute
    expect(fake.lines.some((l, i) => i > 1 && / --claude$/.test(l))).toBe(true);
    p.close();
  });

  it('a listing that failed there keeps the rows it had, with the reason', async () => {
    vi.useFakeTimers();
    const fake = fakeCall([
      ok(status({ claudeSessions: [session()], claudeToken: 'c1.0123456789abcdef.aaaa1111.321' })),
      ok(status({ claudeSessions: [], claudeNote: 'claude agents --json exited 1: broken', claudeToken: 'c1.ffff000000000001..' })),
    ]);
    const p = new HostPoller({ label: 'gpu', destination: 'gpu' }, { ssh: SSH, baseMs: 1000, localVersion: '0.1.0', call: fake.call, system: NO_FILES });
    p.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(p.snapshot.status?.claude?.sessions.map((s) => s.session.key)).toEqual(['aaaa-1111']);
    expect(p.snapshot.status?.claude?.note).toBe('claude agents --json exited 1: broken');
    await vi.advanceTimersByTimeAsync(1000);
    expect(fake.lines.at(-1)).toMatch(/--claude-since c1\.ffff000000000001\.\.$/);
    p.close();
  });

  it('an autodeck there that does not know --claude: said once, and its loops read without it', async () => {
    vi.useFakeTimers();
    const fake = fakeCall([
      { code: 2, stdout: '', stderr: 'autodeck: unknown flag --claude for status; autodeck status --help lists its flags\n', timedOut: false, ms: 50 },
      ok(status({})),
    ]);
    const p = new HostPoller({ label: 'gpu', destination: 'gpu' }, { ssh: SSH, baseMs: 1000, localVersion: '0.1.0', call: fake.call, system: NO_FILES });
    const notes: string[] = [];
    p.on('note', (n) => notes.push(n));
    p.start();
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(p.snapshot.issue).toBeUndefined();
    expect(fake.lines[1]).not.toContain('--claude');
    expect(notes).toEqual(["gpu: its autodeck does not list Claude Code's sessions there; update it to see them"]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(fake.lines.slice(1).every((l) => !l.includes('--claude'))).toBe(true);
    expect(notes).toHaveLength(1);
    p.close();
  });
});

describe('actions on a session of another host', () => {
  const parsed = parseRemoteClaude({ claudeSessions: [session({ name: '-rf; $(reboot)' })], claudeToken: '' })!;
  const e = remoteClaudeEntry(parsed.sessions[0]!, 0, Date.now());

  it('are the host autodeck\'s words, the id after --, quoted for its shell', () => {
    expect(stopWords(e)).toEqual(['claude', 'stop', '--', 'aaaa-1111']);
    expect(sendWords(e, '-x; rm -rf ~')).toEqual(['claude', 'send', '--', 'aaaa-1111', '-x; rm -rf ~']);
    expect(answerWords(e, { decision: 'allow' })).toEqual(['claude', 'answer', '--allow', '--', 'aaaa-1111']);
    expect(answerWords(e, { decision: 'deny', message: 'not now' })).toEqual(['claude', 'answer', '--deny', '--message', 'not now', '--', 'aaaa-1111']);
    expect(answerWords(e, { text: 'Blue' })).toEqual(['claude', 'answer', '--text', 'Blue', '--', 'aaaa-1111']);
    expect(adoptWords(e, { maxIterations: 5, timeoutMinutes: 30 })).toEqual(['adopt', '--detach', '--max-iterations', '5', '--timeout', '30', '--', 'aaaa-1111']);
    // nothing in a prompt runs on the host: one quoted word
    expect(remoteCommand({ path: 'autodeck' }, sendWords(e, "it's $(reboot)"))).toBe('exec autodeck claude send -- aaaa-1111 "it\'s \\$(reboot)"');
  });

  it('say what came of them in one line', () => {
    expect(callOutcome({ code: 0, stdout: '', stderr: '', timedOut: false, ms: 1 }, 'stopped', 'not stopped')).toEqual({ ok: true, message: 'stopped' });
    expect(callOutcome({ code: 3, stdout: '', stderr: 'autodeck claude send: aaaa1111 is busy with a turn; send when it is idle (refused, not queued)\n', timedOut: false, ms: 1 }, 'sent', 'not sent on gpu'))
      .toEqual({ ok: false, message: 'not sent on gpu: aaaa1111 is busy with a turn; send when it is idle (refused, not queued)' });
    expect(callOutcome({ code: null, stdout: '', stderr: '', timedOut: true, ms: 1 }, 'x', 'not stopped on gpu')).toEqual({ ok: false, message: 'not stopped on gpu: no answer in time' });
  });
});
