import { afterEach, describe, expect, it, vi } from 'vitest';
import { nextPollDelay, maxPollDelay } from '../../src/hosts/backoff.js';
import { HostPoller, lookOutcome, type HostSnapshot } from '../../src/hosts/poller.js';
import { hostRows, hostKey, parseKey, remoteKey, type RowMemo } from '../../src/hosts/rows.js';
import { clockSkew, loopRowOf, parseRemoteStatus, type RemoteStatus } from '../../src/hosts/remote.js';
import { SharedConnection, type ConnectionSystem } from '../../src/hosts/connection.js';
import type { CallOptions, CallResult } from '../../src/hosts/call.js';
import type { SshConfig } from '../../src/hosts/ssh.js';
import type { LoopStatusJson } from '../../src/supervisor/snapshot.js';

// The host machinery without ssh: a fake call answers as a host would (or does not), and
// timers are vitest's fake ones, so back-off and deadlines are checked by the clock.

const SSH: SshConfig = { command: ['ssh'], controlDir: '/run/x/autodeck-ssh', connectTimeoutSeconds: 8, aliveIntervalSeconds: 10, persistSeconds: 60 };
const ok = (stdout: string, ms = 50): CallResult => ({ code: 0, stdout, stderr: '', timedOut: false, ms });
const fail = (code: number | null, stderr: string, timedOut = false, ms = 50): CallResult => ({ code, stdout: '', stderr, timedOut, ms });
const PROBE = 'autodeck-candidate\t/home/u/.nvm/versions/node/v20/bin/autodeck\t/home/u/.nvm/versions/node/v20/bin\t0.1.0\n';

function loop(over: Partial<LoopStatusJson> = {}): LoopStatusJson {
  return {
    session: 'auto-a-123456', taskDir: '/home/u/AiTasks/a', taskName: 'a', status: 'running', iteration: 2, maxIterations: 10, step: 'exec', result: 'PASS', next: 'check',
    checkpoint: '', elapsedMs: 5000, activeMs: 5000, timeoutMinutes: 30, stallCount: 0, recoveryStep: 0, recoveryTotal: 0, restartCount: 0, restartsTotal: 0,
    quotaWaitSince: null, quotaWaitMs: 0, startedAt: '2030-01-01T00:00:00.000Z', lastSignalAt: '2030-01-01T00:00:04.000Z', stopReason: '', backend: 'tmux',
    owner: { pid: 42, host: 'gpu', alive: true, heartbeatAt: '2030-01-01T00:00:04.000Z' }, tokens: null, costUsd: null, spend: 'no transcript', compactions: null,
    contextTokens: null, contextWindow: null, ctxPercent: null, needsYou: null, verify: null, worktree: null, ...over,
  };
}

function statusJson(over: Partial<RemoteStatus> & { loops?: LoopStatusJson[] } = {}): string {
  return JSON.stringify({
    loops: [loop()], recent: [], version: '0.1.0', host: 'gpu', now: new Date().toISOString(), tmuxSocket: 'autodeck', events: [], lastEventId: 0,
    modules: [{ dir: '/home/u/AiTasks/a', name: 'a', lifecycle: 'executing' }, { dir: '/home/u/AiTasks/b', name: 'b', lifecycle: 'planning' }], ...over,
  });
}

/** A fake ssh: answers the probe, then each look from `looks` in turn (the last one again). */
function fakeCall(looks: (CallResult | 'hang')[]) {
  const calls: { argv: readonly string[]; opts: CallOptions }[] = [];
  let i = 0;
  const call = (argv: readonly string[], opts: CallOptions): Promise<CallResult> => {
    calls.push({ argv, opts });
    const remote = argv.at(-1) ?? '';
    if (remote.includes('autodeck-probe')) return Promise.resolve(ok(PROBE));
    if (argv.includes('-O')) return Promise.resolve(fail(255, 'Control socket connect: No such file or directory'));
    const next = looks[Math.min(i++, looks.length - 1)]!;
    if (next === 'hang') return new Promise((resolve) => setTimeout(() => resolve(fail(null, '', true, opts.deadlineMs)), opts.deadlineMs));
    return Promise.resolve(next);
  };
  return { call, calls, looks: () => calls.filter((c) => (c.argv.at(-1) ?? '').includes(' status ')) };
}

const NO_FILES: ConnectionSystem = { identity: () => undefined, remove: () => {}, commandLine: () => undefined, kill: () => {} };

afterEach(() => {
  vi.useRealTimers();
});

describe('back-off', () => {
  it('reads a healthy host every base interval, a slow one no sooner than its call took', () => {
    expect(nextPollDelay({ baseMs: 2000, failures: 0, lastCallMs: 100 })).toBe(2000);
    expect(nextPollDelay({ baseMs: 2000, failures: 0, lastCallMs: 7000 })).toBe(7000);
  });

  it('doubles the wait after each failure in a row, up to a minute', () => {
    expect([1, 2, 3, 4, 5, 6, 20].map((failures) => nextPollDelay({ baseMs: 2000, failures, lastCallMs: 0 }))).toEqual([4000, 8000, 16000, 32000, 60000, 60000, 60000]);
    expect(maxPollDelay(200)).toBe(6000);
  });
});

describe('what a look comes to', () => {
  const program = { path: '/x/autodeck', pathDir: '/x' };
  it('tells an unreachable host, a missing or old autodeck and other failures apart', () => {
    expect(lookOutcome(fail(255, 'Warning: x\nssh: connect to host gpu port 22: Connection refused\n'), program)).toEqual({ ok: false, issue: { kind: 'unreachable', message: 'ssh: connect to host gpu port 22: Connection refused' } });
    expect(lookOutcome(fail(null, '', true, 20_000), program)).toMatchObject({ ok: false, issue: { kind: 'unreachable', message: 'no answer in 20 s' }, replaceConnection: true });
    expect(lookOutcome(fail(127, 'sh: 1: exec: /x/autodeck: not found'), program)).toMatchObject({ ok: false, issue: { kind: 'no-autodeck' }, reprobe: true });
    expect(lookOutcome(fail(2, 'autodeck: Unknown flag --events-since'), program)).toMatchObject({ ok: false, issue: { kind: 'too-old' }, reprobe: true });
    expect(lookOutcome(fail(2, 'autodeck: --timeout: "x" is not a number (config.json)'), program)).toEqual({ ok: false, issue: { kind: 'error', message: 'autodeck: --timeout: "x" is not a number (config.json)' } });
    expect(lookOutcome(ok('{"nope": 1}'), program)).toMatchObject({ ok: false, issue: { kind: 'too-old' } });
    expect(lookOutcome(ok(statusJson()), program)).toMatchObject({ ok: true, status: { loops: [{ taskDir: '/home/u/AiTasks/a' }] } });
  });

  it('reads the answer as untrusted: rows and events of the wrong shape are left out', () => {
    const r = parseRemoteStatus(JSON.stringify({ loops: [loop(), { taskDir: 5 }, null, 'x'], events: [{ kind: 'started', at: 'x', taskDir: '/a', detail: 'nope' }, { kind: 1 }], modules: [{ dir: '/a' }] }));
    expect(r.ok && r.value.loops.length).toBe(1);
    expect(r.ok && r.value.events).toEqual([{ kind: 'started', at: 'x', taskDir: '/a', detail: {} }]);
    expect(r.ok && r.value.modules).toEqual([]);
    expect(parseRemoteStatus('<html>')).toMatchObject({ ok: false });
  });
});

describe('a poller', () => {
  it('probes once, then looks every base interval; backs off while the host fails and comes back', async () => {
    vi.useFakeTimers();
    const fake = fakeCall([ok(statusJson()), fail(255, 'ssh: connect to host gpu: Connection refused'), fail(255, 'refused'), fail(255, 'refused'), ok(statusJson())]);
    const p = new HostPoller({ label: 'gpu', destination: 'gpu' }, { ssh: SSH, baseMs: 1000, localVersion: '0.1.0', call: fake.call, system: NO_FILES });
    p.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(p.snapshot.issue).toBeUndefined();
    expect(p.snapshot.program).toEqual({ path: '/home/u/.nvm/versions/node/v20/bin/autodeck', pathDir: '/home/u/.nvm/versions/node/v20/bin' });
    // the look: the remote status with its events since the last and the modules, one call
    expect(fake.looks()[0]!.argv.at(-1)).toBe("PATH=/home/u/.nvm/versions/node/v20/bin:\"$PATH\"; export PATH; exec /home/u/.nvm/versions/node/v20/bin/autodeck status --json --events-since 0 --modules --claude");
    await vi.advanceTimersByTimeAsync(1000); // look 2: refused
    expect(p.snapshot.issue).toEqual({ kind: 'unreachable', message: 'ssh: connect to host gpu: Connection refused' });
    expect(p.snapshot.status?.loops).toHaveLength(1); // the last answer kept
    const looked = fake.looks().length;
    await vi.advanceTimersByTimeAsync(1999);
    expect(fake.looks().length).toBe(looked); // backed off: 2 s after one failure
    await vi.advanceTimersByTimeAsync(1); // look 3
    await vi.advanceTimersByTimeAsync(4000); // look 4, 4 s later
    expect(fake.looks().length).toBe(looked + 2);
    await vi.advanceTimersByTimeAsync(8000); // look 5: back
    expect(p.snapshot.issue).toBeUndefined();
    p.close();
  });

  it('a host that hangs holds neither the model\'s reads nor another host\'s looks', async () => {
    vi.useFakeTimers();
    const slow = fakeCall(['hang']);
    const fast = fakeCall([ok(statusJson())]);
    const a = new HostPoller({ label: 'slow', destination: 'slow' }, { ssh: SSH, baseMs: 1000, localVersion: '0.1.0', call: slow.call, system: NO_FILES, deadlineMs: 20_000 });
    const b = new HostPoller({ label: 'fast', destination: 'fast' }, { ssh: SSH, baseMs: 1000, localVersion: '0.1.0', call: fast.call, system: NO_FILES });
    a.start();
    b.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(a.snapshot.issue?.kind).toBe('connecting');
    expect(fast.looks().length).toBeGreaterThanOrEqual(10);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(a.snapshot.issue).toEqual({ kind: 'unreachable', message: 'no answer in 20 s' });
    a.close();
    b.close();
  });

  it('takes each event once, tagged with its host; starts again from 0 when the host\'s log was started anew', async () => {
    vi.useFakeTimers();
    const ev = (id: number) => ({ id, at: `2030-01-01T00:00:0${id}.000Z`, session: 's', taskDir: '/home/u/AiTasks/a', kind: 'signal' as const, detail: {} });
    const fake = fakeCall([
      ok(statusJson({ events: [ev(1), ev(2)], lastEventId: 2 })),
      ok(statusJson({ events: [ev(2), ev(3)], lastEventId: 3 })),
      ok(statusJson({ events: [ev(1)], lastEventId: 1 })),
    ]);
    const p = new HostPoller({ label: 'gpu', destination: 'gpu' }, { ssh: SSH, baseMs: 1000, localVersion: '0.1.0', call: fake.call, system: NO_FILES });
    p.start();
    await vi.advanceTimersByTimeAsync(1500);
    expect(p.recentEvents().map((e) => [e.id, e.host])).toEqual([[1, 'gpu'], [2, 'gpu'], [3, 'gpu']]);
    expect(fake.looks()[1]!.argv.at(-1)).toContain('--events-since 2');
    // the host's log begun again (a new database): its events are new ones
    await vi.advanceTimersByTimeAsync(2000);
    expect(p.recentEvents().map((e) => e.id)).toEqual([1, 2, 3, 1]);
    expect(fake.looks()[3]!.argv.at(-1)).toContain('--events-since 1');
    p.close();
  });

  it('says a version that differs from this side\'s, once', async () => {
    vi.useFakeTimers();
    const fake = fakeCall([ok(statusJson())]);
    const p = new HostPoller({ label: 'gpu', destination: 'gpu' }, { ssh: SSH, baseMs: 1000, localVersion: '0.2.0', call: fake.call, system: NO_FILES });
    const notes: string[] = [];
    p.on('note', (n) => notes.push(n));
    p.start();
    await vi.advanceTimersByTimeAsync(3000);
    expect(notes).toEqual(['gpu: autodeck 0.1.0 there, 0.2.0 here']);
    p.close();
  });
});

describe('the shared connection', () => {
  it('after a call ran out of time: a stuck master (ours) killed and its socket removed; a stale socket removed; a live one asked to exit', async () => {
    const killed: number[] = [];
    const removed: string[] = [];
    const socket = new SharedConnection(SSH, { destination: 'gpu' }, async () => ok('')).socket;
    const system: ConnectionSystem = {
      identity: (p) => (p === socket ? '1:2' : undefined), remove: (p) => removed.push(p), kill: (pid) => killed.push(pid),
      commandLine: (pid) => (pid === 777 ? `ssh: ${socket} [mux]` : pid === 778 ? 'vim' : undefined),
    };
    // what -O check answers after the first (which names the master)
    let checkAnswer: CallResult = fail(null, '', true, 3000);
    const asked: string[] = [];
    let checks = 0;
    const call = async (argv: readonly string[]): Promise<CallResult> => {
      const op = argv[argv.indexOf('-O') + 1]!;
      asked.push(op);
      if (op === 'check') return checks++ === 0 ? fail(0, 'Master running (pid=777)') : checkAnswer;
      return ok('Exit request sent.');
    };
    const c = new SharedConnection(SSH, { destination: 'gpu' }, call, system);
    await c.learnMaster();
    // stuck: the check gets no answer
    expect(await c.replace()).toBe('stuck');
    expect(killed).toEqual([777]);
    expect(removed).toEqual([socket]);
    // a dead master's file: refused, removed; nothing killed
    checkAnswer = fail(255, 'Control socket connect: Connection refused');
    expect(await c.replace()).toBe('stale');
    expect(killed).toEqual([777]);
    expect(removed).toEqual([socket, socket]);
    // a master that answers: let go with -O exit
    checkAnswer = fail(0, 'Master running (pid=779)');
    asked.length = 0;
    expect(await c.replace()).toBe('exited');
    expect(asked).toEqual(['check', 'exit']);
    // a pid that is not our master is never killed
    let n = 0;
    const other = new SharedConnection(SSH, { destination: 'gpu' }, async () => (n++ === 0 ? fail(0, 'Master running (pid=778)') : fail(null, '', true)), system);
    await other.learnMaster();
    expect(await other.replace()).toBe('stuck');
    expect(killed).toEqual([777]);
  });

  it('leaves a socket a new master made while the check waited (a look went through meanwhile)', async () => {
    const removed: string[] = [];
    let id = '1:2';
    const system: ConnectionSystem = { identity: () => id, remove: (p) => removed.push(p), kill: () => {}, commandLine: () => undefined };
    const call = async (argv: readonly string[]): Promise<CallResult> => {
      // the check runs out of time; meanwhile the old file went and a new master made its own
      if (argv.includes('check')) id = '1:3';
      return fail(null, '', true, 3000);
    };
    const c = new SharedConnection(SSH, { destination: 'gpu' }, call, system);
    expect(await c.replace()).toBe('stuck');
    expect(removed).toEqual([]);
    // the same file still there after the check: removed
    const d = new SharedConnection(SSH, { destination: 'gpu' }, async () => fail(null, '', true, 3000), system);
    expect(await d.replace()).toBe('stuck');
    expect(removed).toEqual([d.socket]);
  });
});

describe('a host\'s rows', () => {
  const snap = (over: Partial<HostSnapshot>): HostSnapshot => ({ entry: { label: 'gpu', destination: 'gpu' }, skewMs: 0, ...over });
  const status = (s = statusJson()): RemoteStatus => {
    const r = parseRemoteStatus(s);
    if (!r.ok) throw new Error(r.message);
    return r.value;
  };

  it('lists its modules with their loops, keyed by host and path', () => {
    const { rows } = hostRows(snap({ status: status(), answeredAt: 0 }), 0, new Map());
    expect(rows.map((r) => [r.key, r.name, r.host, r.loop?.status, r.here])).toEqual([
      [remoteKey('gpu', '/home/u/AiTasks/a'), 'a', 'gpu', 'running', false],
      [remoteKey('gpu', '/home/u/AiTasks/b'), 'b', 'gpu', undefined, false],
    ]);
    expect(parseKey(rows[0]!.key)).toEqual({ host: 'gpu', dir: '/home/u/AiTasks/a' });
    expect(parseKey('/home/u/AiTasks/a')).toBeUndefined();
  });

  it('keeps a row\'s identity while it did not change (elapsed times move on every answer)', () => {
    const first = hostRows(snap({ status: status(), answeredAt: 0 }), 0, new Map());
    const second = hostRows(snap({ status: status(statusJson({ loops: [loop({ elapsedMs: 9999, activeMs: 9999 })] })), answeredAt: 2000 }), 2000, first.memo);
    expect(second.rows[0]).toBe(first.rows[0]);
    const third = hostRows(snap({ status: status(statusJson({ loops: [loop({ iteration: 3 })] })), answeredAt: 4000 }), 4000, second.memo);
    expect(third.rows[0]).not.toBe(first.rows[0]);
    expect(third.rows[1]).toBe(first.rows[1]);
  });

  it('an unreachable host: one row with the error, its last loops stale with their age', () => {
    const memo: RowMemo = new Map();
    const { rows } = hostRows(snap({ status: status(), answeredAt: 1000, issue: { kind: 'unreachable', message: 'ssh: connect to host gpu port 22: Connection refused' } }), 181_000, memo);
    expect(rows.map((r) => [r.key, r.hostIssue?.kind, r.staleFor, r.loop?.status])).toEqual([
      [hostKey('gpu'), 'unreachable', undefined, undefined],
      [remoteKey('gpu', '/home/u/AiTasks/a'), undefined, '3m', 'running'],
    ]);
  });

  it('a host with nothing to show keeps a row; one not read yet says it is connecting', () => {
    expect(hostRows(snap({ status: status(statusJson({ loops: [], modules: [] })), answeredAt: 0 }), 0, new Map()).rows.map((r) => r.hostIssue)).toEqual([{ kind: 'empty', message: 'no task modules under its roots' }]);
    expect(hostRows(snap({ issue: { kind: 'connecting', message: 'connecting…' } }), 0, new Map()).rows.map((r) => r.hostIssue?.kind)).toEqual(['connecting']);
  });

  it('moves the host\'s times by its clock\'s skew', () => {
    expect(clockSkew('2030-01-01T00:01:00.000Z', Date.parse('2030-01-01T00:00:00.000Z'), Date.parse('2030-01-01T00:00:00.200Z'))).toBe(59_900);
    expect(clockSkew('2030-01-01T00:00:00.500Z', Date.parse('2030-01-01T00:00:00.000Z'), Date.parse('2030-01-01T00:00:00.200Z'))).toBe(0);
    expect(loopRowOf(loop(), 60_000)).toMatchObject({ startedAt: '2029-12-31T23:59:00.000Z', lastSignalAt: '2030-01-01T00:00:04.000Z'.replace('00:00:04', '23:59:04').replace('2030-01-01', '2029-12-31') });
    expect(loopRowOf(loop({ needsYou: { reason: 'permission', text: 'Bash: rm', since: 'x' } }), 0).waitingFor).toEqual({ reason: 'permission', text: 'Bash: rm', since: 'x' });
  });
});
