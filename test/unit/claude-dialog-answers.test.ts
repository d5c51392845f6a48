import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Watchdog, type ApprovalSetup, type WatchdogHost } from '../../src/supervisor/watchdog.js';
import { approvalSetup } from '../../src/supervisor/approvals.js';
import { PROFILES } from '../../src/agents/profiles.js';
import { KEY } from '../../src/agents/menu.js';
import { CLAUDE_CODE_NEWEST, CLAUDE_CODE_OLDEST } from '../../src/agents/claudeVersion.js';
import type { DialogConsent } from '../../src/agents/dialogs.js';
import { EMPTY_POLICY } from '../../src/policy/rules.js';
import type { Session } from '../../src/sessions/session.js';
import type { LoopRow } from '../../src/store/loops.js';
import type { EventKind } from '../../src/store/events.js';

// The watchdog over the screens captured at both ends of the range: Claude Code's own
// dialogs answered by the option that keeps things as they are, or left to a person.

const screen = (version: string, name: string): string[] =>
  readFileSync(fileURLToPath(new URL(`../fixtures/screens/claude/${version}/${name}.txt`, import.meta.url)), 'utf8').split('\n');

function rig(consent: DialogConsent = {}, agentArgv: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'autodeck-dialogs-'));
  mkdirSync(join(dir, '.working'));
  const writes: string[] = [];
  const events: { kind: EventKind; detail: Record<string, unknown> }[] = [];
  const stops: string[] = [];
  let lines: string[] = screen(CLAUDE_CODE_NEWEST, 'busy');
  let now = Date.parse('2026-11-27T05:00:00Z');
  let row = {
    taskDir: dir, status: 'running', stallCount: 0, lastCaptureHash: '', recoveryStep: 0, recoveryTotal: 0, quotaWaitSince: '', quotaWaitMs: 0,
    startedAt: new Date(now).toISOString(), agentArgv, waitingFor: null,
  } as unknown as LoopRow;
  let version = 0;
  const session = { exited: false, get screenVersion() { return version; }, screen: () => lines, write: (d: string) => writes.push(d) } as unknown as Session;
  const host: WatchdogHost = {
    taskDir: dir, now: () => now, session: () => session, row: () => row, patch: (p) => { row = { ...row, ...p }; }, patchLater: (p) => { row = { ...row, ...p }; },
    event: (kind, detail) => events.push({ kind, detail }), requestStop: (r) => stops.push(r), fail: () => undefined, later: (_ms, fn) => fn(),
  };
  const limits = { stallThreshold: 3, recoveryPerIteration: 3, recoveryTotal: 10, stepTimeoutMs: 3_600_000, quotaProbeMs: 900_000 };
  const setup: ApprovalSetup = { ...approvalSetup(EMPTY_POLICY, '/tmp/autodeck-claude-capture/proj', '/tmp/autodeck-claude-capture/proj', '/home/u'), consent };
  const dog = new Watchdog(host, PROFILES.claude, limits, undefined, setup);
  return {
    writes, events, stops, row: () => row,
    show(next: string[]) { lines = next; version++; },
    beats(n: number) { for (let i = 0; i < n; i++) { now += 1000; dog.beat(); } },
    kinds: (k: EventKind) => events.filter((e) => e.kind === k).map((e) => e.detail),
  };
}

describe(`dialogs of Claude Code ${CLAUDE_CODE_NEWEST} that would change the user's settings`, () => {
  it.each([
    ['auto-default-offer', [KEY.down, KEY.enter], 'No, keep manual mode'],
    ['fullscreen-offer', ['2'], 'Not now'],
    ['auto-mode-unavailable', [KEY.enter], 'stay in auto mode (Enter)'],
  ])('%s: the option that keeps things as they are, at first sight, by its label', (name, keys, choice) => {
    const r = rig();
    r.show(screen(CLAUDE_CODE_NEWEST, name));
    r.beats(1);
    expect(r.writes).toEqual(keys);
    expect(r.kinds('dialog')).toEqual([expect.objectContaining({ dialog: name, choice })]);
    // Claude Code took the answer: the screen moved on, nothing more is sent, nothing counted as a stall
    r.show(screen(CLAUDE_CODE_NEWEST, 'idle'));
    r.beats(1);
    expect(r.kinds('recovery')).toEqual([]);
    expect(r.kinds('needs_you')).toEqual([]);
    expect(r.row().waitingFor ?? null).toBeNull();
  });

  it('an answer that was not taken is sent again a few times, then left to a person', () => {
    const r = rig();
    r.show(screen(CLAUDE_CODE_NEWEST, 'auto-default-offer'));
    r.beats(20);
    expect(r.kinds('dialog').length).toBe(3);
    expect(r.writes.filter((k) => k === KEY.enter)).toHaveLength(3);
    expect(r.kinds('needs_you')).toEqual([expect.objectContaining({ reason: 'answer_not_taken', dialog: 'auto-default-offer' })]);
    expect(r.stops).toEqual([]);
  });
});

describe.each([CLAUDE_CODE_OLDEST, CLAUDE_CODE_NEWEST])('first-run dialogs of Claude Code %s', (version) => {
  it.each(['trust-dialog', 'api-key-dialog'])('%s without the user\'s word: needs you with its words, nothing typed, no stall', (name) => {
    const r = rig();
    r.show(screen(version, name));
    r.beats(12);
    expect(r.writes).toEqual([]);
    expect(r.kinds('needs_you')).toEqual([expect.objectContaining({ reason: 'question' })]);
    expect(String(r.row().waitingFor?.text)).toMatch(/^Claude Code asks: (?:Accessing workspace:|Do you want to use this API key\?)/);
    expect(r.kinds('recovery')).toEqual([]);
    expect(r.stops).toEqual([]);
    // a person answered: the loop goes on
    r.show(screen(version, 'idle'));
    r.beats(1);
    expect(r.row().waitingFor ?? null).toBeNull();
  });

  it('the trust dialog in a project the user recorded as trusted: Yes, I trust this folder', () => {
    const r = rig({ trustedProject: true });
    r.show(screen(version, 'trust-dialog'));
    r.beats(1);
    expect(r.writes).toEqual(version === CLAUDE_CODE_OLDEST ? [KEY.enter] : [KEY.down, KEY.enter]);
    expect(r.kinds('dialog')[0]).toMatchObject({ dialog: 'trust-folder', choice: 'Yes, I trust this folder' });
  });
});

describe('a dialog autodeck does not know', () => {
  const unknown = [
    ...Array(20).fill(''), '─'.repeat(120), '  Share anonymous usage data to help improve Claude Code?', '',
    '  ❯ 1. Yes, share it from now on', '    2. No thanks', '', '  Enter to confirm · Esc to cancel',
  ];
  it('is "needs you" with its text, never Enter, even where its highlighted option says Yes', () => {
    const r = rig({ trustedProject: true, bypassPermissions: true });
    r.show(unknown);
    r.beats(15);
    expect(r.writes).toEqual([]);
    expect(r.kinds('needs_you')).toEqual([expect.objectContaining({ reason: 'question', text: 'Share anonymous usage data to help improve Claude Code?' })]);
    expect(r.stops).toEqual([]);
  });
});

describe(`a usage limit Claude Code ${CLAUDE_CODE_NEWEST} resumes by itself`, () => {
  it('waits, types nothing', () => {
    const r = rig();
    r.show(screen(CLAUDE_CODE_NEWEST, 'quota-self-resume'));
    r.beats(30);
    expect(r.writes).toEqual([]);
    expect(r.kinds('quota_wait')).toHaveLength(1);
    expect(r.kinds('quota_wait')[0]).toMatchObject({ answeredMenu: null });
    expect(r.row().status).toBe('quota_wait');
  });
});

describe(`Claude Code ${CLAUDE_CODE_NEWEST} started with its prompt on the command line`, () => {
  it('its empty box before it takes the prompt is no idle agent to continue; once at work, an idle box is', () => {
    const r = rig({}, ['/bin/claude', '--settings', '{}', '/autodeck-auto /w/AiTasks/m']);
    r.show(screen(CLAUDE_CODE_NEWEST, 'idle'));
    r.beats(10);
    expect(r.writes).toEqual([]);
    expect(r.kinds('recovery')).toEqual([]);
    r.show(screen(CLAUDE_CODE_NEWEST, 'busy'));
    r.beats(1);
    r.show(screen(CLAUDE_CODE_NEWEST, 'idle-after-turn'));
    r.beats(4);
    expect(r.kinds('recovery')).toEqual([expect.objectContaining({ kind: 'idle', keys: 'continuation message + Enter' })]);
  });

  it('without a prompt on its command line it is idle from the start', () => {
    const r = rig({}, ['/bin/claude', '--settings', '{}']);
    r.show(screen(CLAUDE_CODE_NEWEST, 'idle'));
    r.beats(4);
    expect(r.kinds('recovery')).toEqual([expect.objectContaining({ kind: 'idle' })]);
  });
});
