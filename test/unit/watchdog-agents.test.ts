import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Watchdog, type WatchdogHost } from '../../src/supervisor/watchdog.js';
import { PROFILES } from '../../src/agents/profiles.js';
import type { AgentRecord } from '../../src/agents/agentRecord.js';
import type { AgentProfile } from '../../src/config/schema.js';
import { parsePolicy } from '../../src/policy/rules.js';
import type { Session } from '../../src/sessions/session.js';
import type { LoopRow } from '../../src/store/loops.js';
import type { EventKind } from '../../src/store/events.js';

/*
 * The watchdog over the real Codex CLI 0.171.0 and Gemini CLI 0.61.0 screens
 * (test/fixtures/screens/), with what their own files say: a paused answer is no stall, the
 * switch-model menu is closed at once, one usage limit is one wait that ends at its reset
 * (never tomorrow's), Gemini CLI's quota dialog is asked to keep trying.
 */

const SCREENS = fileURLToPath(new URL('../fixtures/screens/', import.meta.url));
const screenOf = (file: string): string[] => readFileSync(SCREENS + file, 'utf8').replace(/\n$/, '').split('\n');

interface RigOptions {
  profile: AgentProfile;
  record?: () => AgentRecord | undefined;
  /** What its OSC 7501 status says (Codex CLI writes one to a terminal that answers its probe). */
  status?: () => 'busy' | 'idle' | 'waiting' | undefined;
  start: string;
  policy?: unknown[];
}

function rig(first: string[], opts: RigOptions) {
  const dir = mkdtempSync(join(tmpdir(), 'autodeck-watchdog-agents-'));
  mkdirSync(join(dir, '.working'));
  let screen = first;
  const writes: string[] = [];
  const events: { kind: EventKind; detail: Record<string, unknown> }[] = [];
  let now = Date.parse(opts.start);
  let row = { taskDir: dir, status: 'running', stallCount: 0, lastCaptureHash: '', recoveryStep: 0, recoveryTotal: 0, quotaWaitSince: '', quotaWaitMs: 0, startedAt: new Date(now).toISOString(), agentArgv: [] } as unknown as LoopRow;
  const session = { exited: false, screen: () => screen, write: (d: string) => writes.push(d) } as unknown as Session;
  const host: WatchdogHost = {
    taskDir: dir, now: () => now, wall: () => now, session: () => session, row: () => row,
    patch: (p) => (row = { ...row, ...p }), patchLater: (p) => (row = { ...row, ...p }), event: (kind, detail) => events.push({ kind, detail }),
    requestStop: () => {}, fail: () => {}, later: (_ms, fn) => fn(), agentRecord: opts.record, agentState: opts.status,
  };
  const limits = { stallThreshold: 2, recoveryPerIteration: 3, recoveryTotal: 10, stepTimeoutMs: 3_600_000, quotaProbeMs: 30_000, timeZone: 'UTC' };
  const approval = opts.policy ? (() => {
    const p = parsePolicy({ rules: opts.policy });
    if ('error' in p) throw new Error(p.error);
    return { policy: p.value, context: { projectDir: '/tmp/autodeck-codex-capture/proj', cwd: '/tmp/autodeck-codex-capture/proj', home: '/root', tempDirs: ['/tmp'] } };
  })() : undefined;
  const dog = new Watchdog(host, PROFILES[opts.profile], limits, undefined, approval);
  return {
    writes, events, row: () => row, now: () => now,
    show: (lines: string[]) => { screen = lines; },
    beat: (ms = 1000) => { now += ms; dog.beat(); },
    stoppingBeat: () => dog.stoppingBeat(),
    kinds: () => events.map((e) => e.kind),
  };
}

describe('Codex: an answer that pauses mid-stream', () => {
  it('its rollout says busy: an unchanged screen is no stall, nothing is typed', () => {
    const r = rig(screenOf('codex/0.171.0/busy-streaming-pause.txt'), { profile: 'codex', start: '2026-11-27T19:00:00Z', record: () => ({ state: 'busy' }) });
    for (let i = 0; i < 20; i++) r.beat();
    expect(r.writes).toEqual([]);
    expect(r.kinds()).toEqual([]);
  });

  it('its rollout says the turn ended: idle, and the continuation is typed', () => {
    const r = rig(screenOf('codex/0.171.0/idle-after-turn.txt'), { profile: 'codex', start: '2026-11-27T19:00:00Z', record: () => ({ state: 'idle' }) });
    for (let i = 0; i < 3; i++) r.beat();
    expect(r.writes).toEqual([PROFILES.codex.continuationMessage, '\r']);
    expect(r.events.find((e) => e.kind === 'recovery')?.detail).toMatchObject({ kind: 'idle', source: 'session' });
  });
});

describe('Codex: its OSC 7501 status beside its rollout', () => {
  it('the rollout decides: a status that says idle while the rollout says busy types nothing', () => {
    const r = rig(screenOf('codex/0.171.0/busy-streaming-pause.txt'), { profile: 'codex', start: '2026-11-27T19:00:00Z', record: () => ({ state: 'busy' }), status: () => 'idle' });
    for (let i = 0; i < 20; i++) r.beat();
    expect(r.writes).toEqual([]);
    expect(r.kinds()).toEqual([]);
  });

  it('a turn the rollout ended is continued as the rollout says (source session), whatever the status', () => {
    const r = rig(screenOf('codex/0.171.0/idle-after-turn.txt'), { profile: 'codex', start: '2026-11-27T19:00:00Z', record: () => ({ state: 'idle' }), status: () => 'idle' });
    for (let i = 0; i < 3; i++) r.beat();
    expect(r.writes).toEqual([PROFILES.codex.continuationMessage, '\r']);
    expect(r.events.find((e) => e.kind === 'recovery')?.detail).toMatchObject({ kind: 'idle', source: 'session' });
  });
});

describe('Codex: a record older than the continuation', () => {
  it('is history: the screen decides until the next turn is written', () => {
    const ended = Date.parse('2026-11-27T19:00:00Z');
    const r = rig(screenOf('codex/0.171.0/idle-after-turn.txt'), { profile: 'codex', start: '2026-11-27T19:00:01Z', record: () => ({ state: 'idle', at: ended }) });
    for (let i = 0; i < 3; i++) r.beat();
    expect(r.writes).toEqual([PROFILES.codex.continuationMessage, '\r']);
    // Codex shows its status line; its rollout has not caught up yet
    r.show(screenOf('codex/0.171.0/busy-working.txt'));
    for (let i = 0; i < 6; i++) r.beat();
    expect(r.writes).toHaveLength(2);
  });
});

describe('a continuation still on the input line', () => {
  it('is sent with Enter alone, not typed again', () => {
    const lines = screenOf('codex/0.171.0/idle-after-turn.txt').map((l) => (l.startsWith('› Ask Codex') ? `› ${PROFILES.codex.continuationMessage}` : l));
    const r = rig(lines, { profile: 'codex', start: '2026-11-27T19:00:00Z', record: () => ({ state: 'idle' }) });
    for (let i = 0; i < 3; i++) r.beat();
    expect(r.writes).toEqual(['\r']);
  });
});

describe('Codex: a usage limit that lifts', () => {
  // the capture's message says `try again at 8:01 PM`; the limit was hit a little before
  const limited = screenOf('codex/0.171.0/usage-limit.txt');
  const menuClosed = limited.slice(0, limited.findIndex((l) => /Approaching rate limits/.test(l)));
  const after = screenOf('codex/0.171.0/usage-limit-history.txt');

  it('closes the switch-model menu at once, waits until the reset (plus a minute), resumes once', () => {
    const r = rig(limited, { profile: 'codex', start: '2026-11-27T19:59:30Z' });
    r.beat();
    expect(r.writes).toEqual(['\x1b']);
    expect(r.events[0]).toMatchObject({ kind: 'dialog', detail: { name: 'switch-model menu' } });
    r.show(menuClosed);
    r.beat();
    const wait = r.events.find((e) => e.kind === 'quota_wait')!;
    expect(wait.detail.resetAt).toBe('2026-11-27T20:02:00.000Z');
    // the message stays on screen all along; the wall clock passes its time
    while (r.now() < Date.parse('2026-11-27T20:02:00Z')) r.beat(10_000);
    r.beat();
    expect(r.kinds().filter((k) => k === 'quota_resume')).toHaveLength(1);
    expect(r.writes.slice(1)).toEqual([PROFILES.codex.continuationMessage, '\r']);
    // the agent is slow to take it: the old message, still the newest line, is waited out, no new wait
    for (let i = 0; i < 6; i++) r.beat();
    expect(r.events.filter((e) => e.kind === 'quota_wait' && !e.detail.probe)).toHaveLength(1);
    // then the new turn: the old line is history
    r.show(after);
    const before = r.events.length;
    for (let i = 0; i < 3; i++) r.beat();
    expect(r.events.slice(before).filter((e) => e.kind === 'quota_wait')).toEqual([]);
  });

  it('a message whose minute has just passed when first seen lifts now, not tomorrow', () => {
    const r = rig(menuClosed, { profile: 'codex', start: '2026-11-27T20:01:40Z' });
    r.beat();
    const wait = r.events.find((e) => e.kind === 'quota_wait')!;
    expect(Date.parse(String(wait.detail.resetAt))).toBeLessThanOrEqual(Date.parse('2026-11-27T20:02:41Z'));
  });

  it('from the rollout alone, when the screen shows no message: its clock time counts from when it was written', () => {
    const written = Date.parse('2026-11-27T19:59:35Z');
    const record: AgentRecord = { state: 'idle', quota: { line: 'You’ve hit your usage limit. Visit https://chatgpt.com/settings/usage to purchase more credits or try again at 8:01 PM.', atMs: written } };
    const r = rig(screenOf('codex/0.171.0/idle-after-turn.txt'), { profile: 'codex', start: '2026-11-27T20:00:30Z', record: () => record });
    r.beat();
    expect(r.events.find((e) => e.kind === 'quota_wait')?.detail).toMatchObject({ resetAt: '2026-11-27T20:02:00.000Z' });
    expect(r.writes).toEqual([]);
  });
});

describe("Gemini CLI's quota dialog", () => {
  it('waits, chooses `Keep trying` at each probe instead of typing, and ends when the dialog is gone', () => {
    const r = rig(screenOf('gemini/0.61.0/quota-dialog.txt'), { profile: 'gemini', start: '2026-11-27T20:00:00Z' });
    r.beat();
    expect(r.events.find((e) => e.kind === 'quota_wait')?.detail).toMatchObject({ resetAt: null });
    expect(r.writes).toEqual([]);
    r.beat(31_000);
    expect(r.writes).toEqual(['\r']);
    expect(r.events.at(-1)).toMatchObject({ kind: 'quota_wait', detail: { probe: true, dialog: 'quota dialog' } });
    // still limited: the dialog again; the next probe the same
    r.beat(31_000);
    expect(r.writes).toEqual(['\r', '\r']);
    r.show(screenOf('gemini/0.61.0/quota-lifted.txt'));
    r.beat();
    expect(r.events.at(-1)).toMatchObject({ kind: 'quota_resume', detail: { why: 'message gone' } });
    expect(r.writes).toEqual(['\r', '\r']);
  });
});

describe('the request behind an approval, from the rollout', () => {
  it("is the whole command when the screen's copy is cut", () => {
    const long = screenOf('codex/0.171.0/approval-exec-long.txt');
    const cut = long.slice(0, long.findIndex((l) => /^\s*\$ printf/.test(l)) + 1).concat(['› 1. Yes, proceed (y)', '  Press enter to confirm or esc to cancel']);
    const command = 'printf \'%s\\n\' "first line of a rather long report" "second line of the same report" "third line" > report-of-a-long-name.txt && git status --short && echo all done';
    const record: AgentRecord = { state: 'busy', request: { tool: 'Bash', command, text: `Bash: ${command}`, source: 'session' } };
    const withRecord = rig(cut, { profile: 'codex', start: '2026-11-27T19:00:00Z', record: () => record, policy: [{ deny: 'Bash(git status*)' }] });
    withRecord.beat();
    expect(withRecord.events.find((e) => e.kind === 'approval')?.detail).toMatchObject({ decision: 'deny', rule: 'deny Bash(git status*)', command });
    expect(withRecord.writes).toEqual(['\x1b']);
    // without it, a copy the screen cut short (`…`) is no whole request: a person decides
    const ellipsis = cut.map((l) => (/^\s*\$ printf/.test(l) ? l.replace(/"second line.*$/, '"second line of the s…') : l));
    const screenOnly = rig(ellipsis, { profile: 'codex', start: '2026-11-27T19:00:00Z', policy: [{ allow: 'Bash(printf *)' }] });
    screenOnly.beat();
    expect(screenOnly.events.find((e) => e.kind === 'needs_you')?.detail).toMatchObject({ reason: 'permission', rule: 'incomplete' });
    expect(screenOnly.writes).toEqual([]);
  });
});

describe('while the loop stops', () => {
  it("Gemini CLI's confirmation (reading the stop file) is still answered by the policy; an idle screen is left to the stopping", () => {
    const record: { value: AgentRecord | undefined } = { value: undefined };
    const r = rig(screenOf('gemini/0.61.0/approval-shell.txt'), { profile: 'gemini', start: '2026-11-27T19:00:00Z', record: () => record.value, policy: [] });
    expect(r.stoppingBeat()).toBe(true);
    expect(r.writes).toEqual(['\r']);
    expect(r.events.find((e) => e.kind === 'approval')?.detail).toMatchObject({ decision: 'allow', tool: 'Bash' });
    r.show(screenOf('gemini/0.61.0/idle-after-turn.txt'));
    expect(r.stoppingBeat()).toBe(false);
    // its session file says a turn runs (the stop file's content went to the model): not idle, whatever the screen shows
    record.value = { state: 'busy' };
    expect(r.stoppingBeat()).toBe(true);
    expect(r.writes).toEqual(['\r']);
  });

  it('a refusal the policy makes is sent too (Esc)', () => {
    const r = rig(screenOf('gemini/0.61.0/approval-shell.txt'), { profile: 'gemini', start: '2026-11-27T19:00:00Z', policy: [{ deny: 'Bash(echo *)' }] });
    expect(r.stoppingBeat()).toBe(true);
    expect(r.writes).toEqual(['\x1b']);
  });
});
