import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ticksIn } from '../../src/supervisor/tick.js';
import { Watchdog, type WatchdogHost } from '../../src/supervisor/watchdog.js';
import { approvalSetup } from '../../src/supervisor/approvals.js';
import { PROFILES } from '../../src/agents/profiles.js';
import { parsePolicy, type ApprovalPolicy, type ApprovalRequest } from '../../src/policy/rules.js';
import type { Session } from '../../src/sessions/session.js';
import type { LoopRow } from '../../src/store/loops.js';
import type { EventKind } from '../../src/store/events.js';
import type { AgentState } from '../../src/store/agentState.js';

const SCREENS = fileURLToPath(new URL('../fixtures/screens/claude/2.1.197/', import.meta.url));
const screen = (name: string): string[] => readFileSync(join(SCREENS, `${name}.txt`), 'utf8').split('\n');
/** The captured Bash prompt (`echo hi > x.txt`) asking for another command: the class, not the example. */
const promptFor = (command: string): string[] => screen('permission-prompt').map((l) => l.replaceAll('echo hi > x.txt', command));
const BUSY = screen('busy');
const IDLE_AFTER_REFUSAL = screen('permission-rejected');

function policy(raw: unknown): ApprovalPolicy {
  const p = parsePolicy(raw);
  if ('error' in p) throw new Error(p.error);
  return p.value;
}

/** A Claude Code watchdog with the approval policy, over a fake session whose screen the test sets. */
function rig(pol: ApprovalPolicy = policy({}), opts: { hook?: () => { state?: AgentState; request?: ApprovalRequest }; noVersion?: boolean; startAt?: string } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'autodeck-approvals-'));
  mkdirSync(join(dir, '.working'));
  const writes: string[] = [];
  const events: { kind: EventKind; detail: Record<string, unknown> }[] = [];
  const stops: string[] = [];
  const statuses: string[] = [];
  let lines: string[] = BUSY;
  let now = Date.parse(opts.startAt ?? '2026-11-23T05:00:00Z');
  let row = {
    taskDir: dir, status: 'running', stallCount: 0, lastCaptureHash: '', recoveryStep: 0, recoveryTotal: 0, quotaWaitSince: '', quotaWaitMs: 0,
    startedAt: new Date(now).toISOString(), agentArgv: [], waitingFor: null,
  } as unknown as LoopRow;
  let version = 0;
  let captures = 0;
  // a tmux session has no screen version: every look is a capture
  const session = {
    exited: false, get screenVersion() { return opts.noVersion ? undefined : version; }, screen: () => { captures++; return lines; }, write: (d: string) => writes.push(d),
  } as unknown as Session;
  const apply = (p: Partial<LoopRow>): void => {
    row = { ...row, ...p };
    if (p.status) statuses.push(p.status);
  };
  const host: WatchdogHost = {
    taskDir: dir, now: () => now, session: () => session, row: () => row, patch: apply, patchLater: apply,
    event: (kind, detail) => events.push({ kind, detail }), requestStop: (r) => stops.push(r), fail: () => undefined, later: (_ms, fn) => fn(),
    agentState: () => opts.hook?.().state, agentRequest: () => opts.hook?.().request,
  };
  // the default limits: three unchanged beats make a stall, 3 recoveries per iteration, 10 in all
  const limits = { stallThreshold: 3, recoveryPerIteration: 3, recoveryTotal: 10, stepTimeoutMs: 3_600_000, quotaProbeMs: 60_000 };
  const setup = approvalSetup(pol, '/tmp/autodeck-claude-capture/proj', '/tmp/autodeck-claude-capture/proj', '/home/u');
  const dog = new Watchdog(host, PROFILES.claude, limits, undefined, setup);
  return {
    writes, events, stops, statuses, row: () => row,
    show(next: string[]) { lines = next; version++; },
    beat() { now += 1000; dog.beat(); },
    tick() { now += 500; dog.promptBeat(); },
    captures: () => captures,
    kinds: (k: EventKind) => events.filter((e) => e.kind === k).map((e) => e.detail),
  };
}

describe('a permission prompt is a decision, not a stall', () => {
  it('an agent that asks once per step for 30 steps: every prompt answered at first sight, no recovery spent, never stall_limit', () => {
    const r = rig();
    const beatsToAnswer: number[] = [];
    for (let step = 1; step <= 30 && r.stops.length === 0; step++) {
      r.show(promptFor(`echo step ${step} > x.txt`));
      const before = r.writes.length;
      let beats = 0;
      while (r.writes.length === before && beats < 10) { r.beat(); beats++; }
      beatsToAnswer.push(beats);
      r.show(BUSY); // the command ran; the agent works on
      r.beat();
      r.beat();
    }
    // (before the policy: each prompt waited out the stall threshold and was a recovery: stall_limit at step 4)
    expect(r.stops).toEqual([]);
    // answered on the beat that first saw it: Enter on the highlighted `1. Yes`
    expect(beatsToAnswer).toEqual(Array(30).fill(1));
    expect(r.writes.filter((w) => w === '\r')).toHaveLength(30);
    expect(r.stops).toEqual([]);
    expect(r.row()).toMatchObject({ recoveryStep: 0, recoveryTotal: 0 });
    expect(r.kinds('recovery')).toEqual([]);
    expect(r.statuses).not.toContain('stalled');
    const approvals = r.kinds('approval');
    expect(approvals).toHaveLength(30);
    expect(approvals[0]).toMatchObject({ decision: 'allow', rule: 'default', tool: 'Bash', command: 'echo step 1 > x.txt', source: 'screen', keys: '\\r' });
    expect(approvals[0]!.prompt).toBe('Bash: echo step 1 > x.txt — Do you want to proceed?');
  });

  it('a built-in deny answers No (Esc), then tells the agent why at its prompt', () => {
    const r = rig();
    r.show(promptFor('git push --force origin main'));
    r.beat();
    expect(r.writes).toEqual(['\x1b']);
    expect(r.kinds('approval')[0]).toMatchObject({ decision: 'deny', rule: 'built-in git-push-force', command: 'git push --force origin main', keys: '\\u001b' });
    // Claude Code: `Interrupted · What should Claude do instead?` at an idle prompt
    r.show(IDLE_AFTER_REFUSAL);
    r.beat();
    expect(r.writes).toHaveLength(3);
    expect(r.writes[1]).toMatch(/^autodeck's approval policy refused Bash git push --force origin main: a forced push/);
    expect(r.writes[2]).toBe('\r');
    // told once; the stall logic then watches the idle screen as usual
    r.beat();
    expect(r.writes).toHaveLength(3);
    expect(r.row().recoveryTotal).toBe(0);
  });

  it('a user deny rule with a reason', () => {
    const r = rig(policy({ rules: [{ deny: 'Bash(npm publish:*)', reason: 'no releases from a loop' }] }));
    r.show(promptFor('npm publish --access public'));
    r.beat();
    r.show(IDLE_AFTER_REFUSAL);
    r.beat();
    expect(r.writes[1]).toContain('no releases from a loop');
    expect(r.kinds('approval')[0]).toMatchObject({ decision: 'deny', rule: 'deny Bash(npm publish:*)' });
  });

  it('ask leaves the prompt to a person: nothing typed, the row needs you, no stall however long it waits', () => {
    const r = rig(policy({ rules: [{ ask: 'Bash(docker *)' }] }));
    r.show(promptFor('docker system prune -af'));
    for (let i = 0; i < 40; i++) r.beat();
    expect(r.writes).toEqual([]);
    expect(r.row().waitingFor).toMatchObject({ reason: 'permission', text: 'Bash: docker system prune -af — Do you want to proceed?' });
    expect(r.kinds('needs_you')).toEqual([expect.objectContaining({ reason: 'permission', rule: 'ask Bash(docker *)', command: 'docker system prune -af' })]);
    expect(r.kinds('approval')).toEqual([]);
    expect(r.row()).toMatchObject({ recoveryTotal: 0, stallCount: 0 });
    expect(r.stops).toEqual([]);
    // a person answered: the prompt is gone, and so is "needs you"
    r.show(BUSY);
    r.beat();
    expect(r.row().waitingFor).toBeNull();
  });

  it("prefers Claude Code's PermissionRequest payload over the screen", () => {
    const hookReq: ApprovalRequest = { tool: 'Bash', command: 'git reset --hard HEAD~1', text: 'Bash: git reset --hard HEAD~1', source: 'hook' };
    const r = rig(policy({}), { hook: () => ({ state: 'waiting', request: hookReq }) });
    // the screen's block would read the same command wrapped; the hook's is exact
    r.show(promptFor('git reset --hard HEAD~1'));
    r.beat();
    expect(r.kinds('approval')[0]).toMatchObject({ decision: 'deny', rule: 'built-in git-reset-hard', source: 'hook', prompt: 'Bash: git reset --hard HEAD~1 — Do you want to proceed?' });
  });

  it("waits one beat for the hook's payload while the hooks still say busy, then decides with what there is", () => {
    let hook: { state?: AgentState; request?: ApprovalRequest } = { state: 'busy' };
    const r = rig(policy({}), { hook: () => hook });
    r.show(promptFor('git push -f'));
    r.beat();
    expect(r.writes).toEqual([]); // the PermissionRequest hook is on its way
    hook = { state: 'waiting', request: { tool: 'Bash', command: 'git push -f', text: 'Bash: git push -f', source: 'hook' } };
    r.beat();
    expect(r.kinds('approval')[0]).toMatchObject({ decision: 'deny', source: 'hook' });
    // a hook that never comes: the screen decides on the next beat
    const r2 = rig(policy({}), { hook: () => ({ state: 'busy' }) });
    r2.show(promptFor('make'));
    r2.beat();
    r2.beat();
    expect(r2.kinds('approval')[0]).toMatchObject({ decision: 'allow', source: 'screen' });
  });

  it("the hook's report brings the decision forward to the loop's next tick, without a heartbeat and without counting a stall", () => {
    let hook: { state?: AgentState; request?: ApprovalRequest } = { state: 'busy' };
    const r = rig(policy({}), { hook: () => hook });
    r.beat(); // busy
    // the hook reports before the dialog is drawn: nothing to decide yet
    hook = { state: 'waiting', request: { tool: 'Bash', command: 'git reset --hard', text: 'Bash: git reset --hard', source: 'hook' } };
    r.tick();
    expect(r.writes).toEqual([]);
    r.show(promptFor('git reset --hard'));
    r.tick();
    expect(r.writes).toEqual(['\x1b']);
    expect(r.kinds('approval')[0]).toMatchObject({ decision: 'deny', rule: 'built-in git-reset-hard', source: 'hook' });
    r.tick(); // the same report: acted on once
    r.beat(); // the heartbeat sees the same prompt: no second answer before the retry threshold
    expect(r.writes).toEqual(['\x1b']);
    expect(r.row().stallCount).toBe(0);
    // the agent back at its prompt: told at the next tick
    r.show(IDLE_AFTER_REFUSAL);
    r.tick();
    expect(r.writes).toHaveLength(3);
    expect(r.writes[1]).toContain('git reset --hard discards uncommitted work');
  });

  it('a hook report whose prompt never shows on screen costs a few captures, not one every tick', () => {
    const request: ApprovalRequest = { tool: 'Bash', command: 'make', text: 'Bash: make', source: 'hook' };
    const r = rig(policy({}), { hook: () => ({ state: 'waiting', request }), noVersion: true });
    for (let i = 0; i < 50; i++) r.tick();
    // the early looks go on for five seconds of ticks, then the heartbeat decides
    expect(r.captures()).toBe(ticksIn(5000));
    expect(r.captures()).toBeLessThan(50);
    expect(r.writes).toEqual([]);
  });

  it('an answer that does not take is sent again after the stall threshold, a few times, then left to a person', () => {
    const r = rig();
    r.show(promptFor('make build'));
    for (let i = 0; i < 30; i++) r.beat();
    expect(r.writes).toEqual(['\r', '\r', '\r']);
    expect(r.kinds('approval').map((d) => d.retry)).toEqual([undefined, 2, 3]);
    expect(r.row().waitingFor).toMatchObject({ reason: 'answer_not_taken' });
    expect(r.row().recoveryTotal).toBe(0);
  });

  it('one prompt is one request however its screen is redrawn (a clock, a hint): asked once, answered once per retry', () => {
    // a prompt left to a person, redrawn every beat: one "needs you"
    const asked = rig(policy({ rules: [{ ask: 'Bash(docker *)' }] }));
    for (let i = 0; i < 12; i++) {
      asked.show([...promptFor('docker system prune -af'), `  ${i}s`]);
      asked.beat();
    }
    expect(asked.kinds('needs_you')).toHaveLength(1);
    expect(asked.writes).toEqual([]);
    // an allowed one whose screen moves after the answer: not answered again at once
    const allowed = rig();
    allowed.show(promptFor('make build'));
    allowed.beat();
    allowed.show([...promptFor('make build'), '  (thinking)']);
    allowed.beat();
    expect(allowed.writes).toEqual(['\r']);
    for (let i = 0; i < 30; i++) {
      allowed.show([...promptFor('make build'), `  ${i}`]);
      allowed.beat();
    }
    expect(allowed.kinds('approval').map((d) => d.retry)).toEqual([undefined, 2, 3]);
    expect(allowed.row().waitingFor).toMatchObject({ reason: 'answer_not_taken' });
  });

  it('a question the agent asks makes the row need you, with its text', () => {
    const r = rig();
    r.show(screen('question-tool'));
    r.beat();
    expect(r.row().waitingFor).toMatchObject({ reason: 'question', text: 'Which database should the service use?' });
    r.beat();
    // said once (a notification), not each beat
    expect(r.kinds('needs_you')).toEqual([{ reason: 'question', text: 'Which database should the service use?' }]);
    r.show(BUSY);
    r.beat();
    expect(r.row().waitingFor).toBeNull();
  });

  it('a quota wait whose reset is beyond the horizon (3 h) needs you; a near one does not', () => {
    // `You've hit your weekly limit · resets 8:30am (UTC)`, seen at 05:00 UTC: 3.5 h away
    const far = rig(policy({}), { startAt: '2026-11-23T05:00:00Z' });
    far.show(screen('quota-menu-weekly'));
    far.beat();
    expect(far.row().status).toBe('quota_wait');
    expect(far.row().waitingFor).toMatchObject({ reason: 'quota' });
    // until autodeck tries again: the reset plus its minute of margin
    expect(far.row().waitingFor!.text).toBe("You've hit your weekly limit · resets 8:30am (UTC) (until 2026-11-23 08:31 UTC)");
    // the same message at 07:00 UTC: autodeck waits by itself
    const near = rig(policy({}), { startAt: '2026-11-23T07:00:00Z' });
    near.show(screen('quota-menu-weekly'));
    near.beat();
    expect(near.row().status).toBe('quota_wait');
    expect(near.row().waitingFor).toBeNull();
  });
});
