import { describe, expect, it } from 'vitest';
import { activeAdoptedMs, governorStep } from '../../src/claudeSessions/governor.js';
import type { AdoptedRow } from '../../src/claudeSessions/adopted.js';
import type { ClaudeView } from '../../src/claudeSessions/view.js';

// What autodeck does for an adopted background session at each look: the limits of a loop,
// and the quota wait Claude Code's background sessions lack (resume once after the reset).

const T0 = Date.parse('2026-11-27T12:00:00Z');
const min = 60_000;

function row(over: Partial<AdoptedRow> = {}): AdoptedRow {
  return {
    sessionId: 's-1', shortId: 's1', name: 'task', cwd: '/p', status: 'running', maxIterations: 3, timeoutMinutes: 30, settings: {},
    turns: 0, startedAt: new Date(T0).toISOString(), quotaWaitSince: '', quotaWaitMs: 0, quotaResetAt: '', quotaResumes: 0,
    tokens: null, costUsd: null, stopReason: '', ownerPid: 1, ownerHost: 'h', ownerHeartbeatAt: null, ...over,
  };
}

const idle: ClaudeView = { phase: 'idle', word: 'idle', live: true };
const working: ClaudeView = { phase: 'working', word: 'working', live: true };
const limit = (resetAt?: string): ClaudeView => ({ phase: 'limit', word: 'limit', live: true, need: { reason: 'limit', text: "You've hit your limit", ...(resetAt ? { resetAt } : {}) } });

describe('governing an adopted session', () => {
  it('stops it once it has finished maxIterations turns, not before', () => {
    expect(governorStep({ row: row({ turns: 2 }), view: idle, now: T0 + min })).toEqual({ kind: 'none' });
    expect(governorStep({ row: row({ turns: 3 }), view: idle, now: T0 + min })).toEqual({ kind: 'stop', reason: 'max_iterations' });
  });

  it('lets a running turn finish before counting it, but not past the timeout', () => {
    expect(governorStep({ row: row({ turns: 3 }), view: working, now: T0 + min })).toEqual({ kind: 'none' });
    expect(governorStep({ row: row(), view: working, now: T0 + 31 * min })).toEqual({ kind: 'stop', reason: 'timeout' });
  });

  it('stops at the budget, by tokens or by cost', () => {
    const r = row({ settings: { maxTokens: 1000, maxCostUsd: 2 } });
    expect(governorStep({ row: r, view: idle, now: T0 + min, spend: { tokens: 999, costUsd: 1 } })).toEqual({ kind: 'none' });
    expect(governorStep({ row: r, view: idle, now: T0 + min, spend: { tokens: 1000, costUsd: 1 } })).toEqual({ kind: 'stop', reason: 'budget' });
    expect(governorStep({ row: r, view: idle, now: T0 + min, spend: { tokens: 10, costUsd: 2.5 } })).toEqual({ kind: 'stop', reason: 'budget' });
    // an unknown cost cannot reach a cost limit
    expect(governorStep({ row: r, view: idle, now: T0 + min, spend: { tokens: 10, costUsd: undefined } })).toEqual({ kind: 'none' });
  });

  it('waits at a usage limit and resumes once the reset has passed, never before', () => {
    const reset = new Date(T0 + 10 * min).toISOString();
    expect(governorStep({ row: row(), view: limit(reset), now: T0 + min })).toEqual({ kind: 'quota_wait', resetAt: reset, text: "You've hit your limit", named: true });
    const waiting = row({ status: 'quota_wait', quotaWaitSince: new Date(T0 + min).toISOString(), quotaResetAt: reset });
    expect(governorStep({ row: waiting, view: limit(reset), now: T0 + 10 * min - 1 })).toEqual({ kind: 'none' });
    expect(governorStep({ row: waiting, view: limit(reset), now: T0 + 10 * min })).toEqual({ kind: 'resume' });
  });

  it('without a reset time, tries again after quotaProbeMinutes', () => {
    const step = governorStep({ row: row({ settings: { quotaProbeMinutes: 15 } }), view: limit(), now: T0 });
    expect(step).toEqual({ kind: 'quota_wait', resetAt: new Date(T0 + 15 * min).toISOString(), text: "You've hit your limit", named: false });
  });

  it('a wait that ended without autodeck (someone sent it on) is closed, with no resume', () => {
    const waiting = row({ status: 'quota_wait', quotaWaitSince: new Date(T0).toISOString(), quotaResetAt: new Date(T0 + 60 * min).toISOString() });
    expect(governorStep({ row: waiting, view: working, now: T0 + min })).toEqual({ kind: 'quota_over' });
  });

  it('the clock pauses in a quota wait: active time leaves the wait out', () => {
    const waiting = row({ quotaWaitSince: new Date(T0 + 10 * min).toISOString(), quotaWaitMs: 5 * min });
    expect(activeAdoptedMs(waiting, T0 + 40 * min)).toBe(5 * min);
    expect(governorStep({ row: { ...waiting, status: 'quota_wait', quotaResetAt: new Date(T0 + 99 * min).toISOString() }, view: limit(), now: T0 + 40 * min })).toEqual({ kind: 'none' });
  });

  it('ends the adoption with the session: done, failed, stopped outside, stopped by its limit, gone', () => {
    const ended = (phase: ClaudeView['phase']): ClaudeView => ({ phase, word: phase, live: false });
    expect(governorStep({ row: row(), view: ended('done'), now: T0 })).toMatchObject({ kind: 'end', outcome: 'complete' });
    expect(governorStep({ row: row(), view: ended('failed'), now: T0 })).toMatchObject({ kind: 'end', outcome: 'failed' });
    expect(governorStep({ row: row(), view: ended('stopped'), now: T0 })).toMatchObject({ kind: 'end', outcome: 'stopped' });
    expect(governorStep({ row: row({ status: 'stopping', stopReason: 'max_iterations' }), view: ended('stopped'), now: T0 })).toMatchObject({ kind: 'end', outcome: 'max_iterations' });
    expect(governorStep({ row: row(), view: undefined, now: T0 })).toMatchObject({ kind: 'end', outcome: 'stopped' });
  });

  it('a stop under way is waited for, not asked again', () => {
    expect(governorStep({ row: row({ status: 'stopping', stopReason: 'timeout', turns: 9 }), view: idle, now: T0 + 99 * min })).toEqual({ kind: 'none' });
  });
});
