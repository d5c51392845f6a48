import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Watchdog, withHookState, type WatchdogHost } from '../../src/supervisor/watchdog.js';
import { PROFILES } from '../../src/agents/profiles.js';
import type { Session } from '../../src/sessions/session.js';
import type { LoopRow } from '../../src/store/loops.js';
import type { EventKind } from '../../src/store/events.js';
import type { AgentState } from '../../src/store/agentState.js';

/** A watchdog over a fake session and a real task folder, on a hand-turned clock. */
function rig(screen: string[], opts: { profile?: keyof typeof PROFILES; hook?: () => AgentState | undefined; stepTimeoutMs?: number; argv?: string[] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'autodeck-watchdog-'));
  mkdirSync(join(dir, '.working'));
  const writes: string[] = [];
  const events: EventKind[] = [];
  const stops: string[] = [];
  const details: { kind: EventKind; detail: Record<string, unknown> }[] = [];
  const failures: { message: string; code: string }[] = [];
  let now = Date.parse('2026-11-22T05:00:00Z');
  let row = { taskDir: dir, status: 'running', stallCount: 0, lastCaptureHash: '', recoveryStep: 0, recoveryTotal: 0, quotaWaitSince: '', quotaWaitMs: 0, startedAt: new Date(now).toISOString(), agentArgv: opts.argv ?? [] } as unknown as LoopRow;
  const session = { exited: false, screen: () => screen, write: (d: string) => writes.push(d) } as unknown as Session;
  const host: WatchdogHost = {
    taskDir: dir, now: () => now, session: () => session, row: () => row,
    patch: (p) => (row = { ...row, ...p }), patchLater: (p) => (row = { ...row, ...p }), event: (k, detail) => { events.push(k); details.push({ kind: k, detail }); },
    requestStop: (r) => stops.push(r), fail: (message, code) => failures.push({ message, code }), later: (_ms, fn) => fn(),
    agentState: opts.hook,
  };
  const limits = { stallThreshold: 2, recoveryPerIteration: 3, recoveryTotal: 10, stepTimeoutMs: opts.stepTimeoutMs ?? 3_600_000, quotaProbeMs: 60_000 };
  const dog = new Watchdog(host, PROFILES[opts.profile ?? 'generic'], limits, undefined);
  const beat = (): void => {
    now += 1000;
    dog.beat();
  };
  return { dir, writes, events, details, failures, stops, beat, row: () => row, advance: (ms: number) => (now += ms), dog };
}

describe('a prompt waiting for an answer', () => {
  it('reads stalled from its first unchanged beat, while the threshold runs, then is answered', () => {
    const r = rig(['● Cleaning up…', 'Delete 3 old branches? (y/n) ']);
    r.beat(); // the screen is new: no stall yet
    expect(r.row().status).toBe('running');
    r.beat(); // unchanged once: a suspected stall, nothing typed yet
    expect(r.row()).toMatchObject({ status: 'stalled', stallCount: 1 });
    expect(r.writes).toEqual([]);
    r.beat(); // the threshold: answered
    expect(r.writes).toEqual(['y', '\r']);
    expect(r.events).toContain('recovery');
  });

  it('an idle agent below the threshold still reads running', () => {
    const r = rig(['● Planning…', '> ']);
    r.beat();
    r.beat();
    expect(r.row()).toMatchObject({ status: 'running', stallCount: 1 });
  });
});

describe('the silent continue', () => {
  it('types the continuation message, then Enter as its own write', () => {
    const r = rig(['● Planning…', '> ']);
    r.beat();
    r.beat();
    r.beat();
    expect(r.writes).toEqual([PROFILES.generic.continuationMessage, '\r']);
    expect(r.events).toContain('recovery');
    expect(r.row()).toMatchObject({ status: 'stalled', recoveryStep: 1, recoveryTotal: 1 });
  });

  it('is skipped when the signal or status file changed since the screen froze (compare-and-swap)', () => {
    const r = rig(['● Planning…', '> ']);
    r.beat();
    r.beat();
    // a person, or the agent, acts while the screen stays the same
    writeFileSync(join(r.dir, '.working', '.status.json'), '{"status":"executing"}');
    r.beat();
    expect(r.writes).toEqual([]);
    expect(r.row().recoveryTotal).toBe(0);
    // with nothing changing after that, the stall is recovered as usual
    r.beat();
    r.beat();
    expect(r.writes).toEqual([PROFILES.generic.continuationMessage, '\r']);
  });

  it('counts recoveries up to the limit, then asks for a stall_limit stop', () => {
    const r = rig(['working', 'nothing recognisable']);
    for (let i = 0; i < 20 && r.stops.length === 0; i++) r.beat();
    expect(r.writes).toEqual([]);
    expect(r.events.filter((e) => e === 'stall_unrecognized')).toHaveLength(3);
    expect(r.stops).toEqual(['stall_limit']);
  });
});

describe('the agent state its hooks report', () => {
  const look = (kind: Parameters<typeof withHookState>[0]['classification']['kind'], answer?: string[]) =>
    ({ version: 1, hash: 'h', classification: { kind }, answer });
  it.each([
    ['busy overrides an idle-looking screen', look('idle'), 'busy', 'busy', undefined],
    ['waiting is a permission prompt answered with Enter for Claude Code', look('unknown'), 'waiting', 'permission_prompt', ['\r']],
    ["waiting keeps the screen's own answer", look('permission_prompt', ['1']), 'waiting', 'permission_prompt', ['1']],
    ['idle from the hook allows the silent continue', look('unknown'), 'idle', 'idle', undefined],
    ['compacting is compaction', look('unknown'), 'compacting', 'compacting', undefined],
    ['a quota message on screen still wins', look('quota'), 'idle', 'quota', undefined],
    ['an unknown command on screen still wins', look('unknown_command'), 'idle', 'unknown_command', undefined],
    ['exited leaves it to the screen (the process exit decides)', look('unknown'), 'exited', 'unknown', undefined],
    ['no report: the screen decides', look('yes_no_prompt', ['y', '\r']), undefined, 'yes_no_prompt', ['y', '\r']],
  ] as const)('%s', (_, l, state, kind, answer) => {
    const out = withHookState(l, state, PROFILES.claude);
    expect(out.classification.kind).toBe(kind);
    expect(out.answer).toEqual(answer);
  });
});

describe('a command the agent does not know', () => {
  const CLAUDE_UNKNOWN = ['● Unknown command: /ai-cli-task', '● Args from unknown skill: auto AiTasks/x', '─'.repeat(60), '❯\u00a0', '─'.repeat(60), '  ? for shortcuts'];
  it('fails the loop at the first heartbeat that sees it, naming the command and the fix, without a key', () => {
    const r = rig(CLAUDE_UNKNOWN, { profile: 'claude' });
    r.beat();
    expect(r.failures).toEqual([{ code: 'unknown_command', message: 'the agent does not know the command /ai-cli-task: run `autodeck init` in the project, or set `agent`' }]);
    expect(r.writes).toEqual([]);
    expect(r.details[0]).toMatchObject({ kind: 'stall', detail: { kind: 'unknown_command', source: 'screen', command: '/ai-cli-task' } });
  });
  it('when the agent was started with that command', () => {
    const r = rig(CLAUDE_UNKNOWN, { profile: 'claude', argv: ['claude', '/ai-cli-task auto /w/AiTasks/x'] });
    r.beat();
    expect(r.failures).toHaveLength(1);
  });
  it('a command a person typed while attached is no failure: the agent is idle at its prompt', () => {
    const r = rig(CLAUDE_UNKNOWN, { profile: 'claude', argv: ['claude', '/autodeck-auto /w/AiTasks/x'] });
    for (let i = 0; i < 3; i++) r.beat();
    expect(r.failures).toEqual([]);
    expect(r.writes[0]).toBe(PROFILES.claude.continuationMessage);
  });
  it('without argv, only before the first signal', () => {
    const r = rig(CLAUDE_UNKNOWN, { profile: 'claude' });
    r.dog.onSignal();
    for (let i = 0; i < 3; i++) r.beat();
    expect(r.failures).toEqual([]);
  });
  it('even when the hooks report idle', () => {
    const r = rig(CLAUDE_UNKNOWN, { profile: 'claude', hook: () => 'idle' });
    r.beat();
    expect(r.failures).toHaveLength(1);
    expect(r.writes).toEqual([]);
  });
});

describe('which source decided each stall and recovery', () => {
  const sources = (r: ReturnType<typeof rig>) => r.details.filter((d) => ['stall', 'recovery', 'stall_unrecognized'].includes(d.kind)).map((d) => d.detail['source']);
  it('the screen', () => {
    const r = rig(['● Planning…', '> ']);
    for (let i = 0; i < 3; i++) r.beat();
    expect(sources(r)).toEqual(['screen', 'screen']);
  });
  it('the hook-reported state, when it decided', () => {
    const r = rig(['working', 'nothing recognisable'], { hook: () => 'idle' });
    for (let i = 0; i < 3; i++) r.beat();
    expect(sources(r)).toEqual(['hook', 'hook']);
    expect(r.writes[0]).toBe(PROFILES.generic.continuationMessage);
  });
  it('the step timeout, when the screen still changes', () => {
    let n = 0;
    const screen = ['> '];
    const r = rig(screen, { stepTimeoutMs: 10_000 });
    for (let i = 0; i < 12; i++) {
      screen[0] = `tick ${n++}`; // a screen that never freezes
      screen[1] = '> ';
      r.beat();
    }
    expect(sources(r)).toContain('step-timeout');
  });
});
