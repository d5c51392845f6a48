import { describe, expect, it } from 'vitest';
import { rowCells, stateCell } from '../../src/deck/cells.js';
import { stateOf } from '../../src/deck/states.js';
import { worktreeNote } from '../../src/deck/worktreeNote.js';
import { describeEvent } from '../../src/format/event.js';
import { notificationFor } from '../../src/notify/decide.js';
import { endOutcome } from '../../src/supervisor/limits.js';
import { loopStatusJson, runJson } from '../../src/supervisor/snapshot.js';
import { runExtrasLines } from '../../src/commands/history.js';
import { loopRow, moduleRow, finishedRun } from '../helpers/fakeModel.js';
import type { LoopEvent } from '../../src/store/events.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const LIMITS = { stallThreshold: 3, recoveryTotal: 10 };
const at = (ms: number) => new Date(NOW - ms).toISOString();
const verifying = loopRow('/ws/m', {
  status: 'verifying', startedAt: at(600_000), verifyStartedAt: at(12_000), verifyFailures: 1,
  settings: { verifyCommand: { kind: 'shell', line: 'npm test' }, verifyAttempts: 3 }, worktreePath: '/ws/.autodeck/worktrees/m-abc123', worktreeBranch: 'autodeck/m-abc123',
});

describe('a loop verifying its work, as every view shows it', () => {
  it('the table: ▶ verifying, and the verify\'s elapsed time and number where the step was', () => {
    const row = moduleRow('m', { loop: verifying });
    expect(stateCell(row)).toMatchObject({ glyph: '▶', word: 'verifying', tone: 'active' });
    expect(rowCells(row, NOW, LIMITS).step).toBe('verify 0:12 (2/3)');
    expect(rowCells(row, NOW + 60_000, LIMITS).step).toBe('verify 1:12 (2/3)');
    // one of the running group (the header's counts, the status segment)
    expect(stateOf({ loop: verifying }).group).toBe('running');
  });

  it('a finished run that failed its verify: ✗ verify, counted as failed', () => {
    const row = moduleRow('m', { lastRun: { id: 1, outcome: 'verify_failed', endedAt: at(1000), iterations: 9, maxIterations: 20, forced: false } });
    expect(stateCell(row)).toMatchObject({ glyph: '✗', word: 'verify', tone: 'bad' });
    expect(stateOf({ lastOutcome: 'verify_failed' }).group).toBe('failed');
  });

  it('status --json and the API: the verify and the worktree', () => {
    const j = loopStatusJson(verifying, NOW, true);
    expect(j.status).toBe('verifying');
    expect(j.verify).toEqual({ command: 'npm test', failures: 1, attempts: 3, running: true, startedAt: at(12_000), elapsedMs: 12_000 });
    expect(j.worktree).toEqual({ path: '/ws/.autodeck/worktrees/m-abc123', branch: 'autodeck/m-abc123' });
    const plain = loopStatusJson(loopRow('/ws/p'), NOW, true);
    expect([plain.verify, plain.worktree]).toEqual([null, null]);
    const run = finishedRun('/ws/m', 'complete', 3, 2, { worktreePath: '/ws/wt', worktreeBranch: 'autodeck/m-1', worktreeState: 'kept: clean, 2 ahead' });
    expect(runJson(run).worktree).toEqual({ path: '/ws/wt', branch: 'autodeck/m-1', state: 'kept: clean, 2 ahead' });
  });

  it('the detail pane names the branch: the loop\'s, or the last run\'s when it kept work', () => {
    expect(worktreeNote(moduleRow('m', { loop: verifying }))).toBe('worktree autodeck/m-abc123');
    expect(worktreeNote(moduleRow('m', { lastRun: { id: 1, outcome: 'complete', endedAt: at(0), iterations: 1, maxIterations: 2, forced: false, worktreeBranch: 'autodeck/m-1', worktreeState: 'kept: clean, 1 ahead' } })))
      .toBe('worktree autodeck/m-1 (kept: clean, 1 ahead)');
    expect(worktreeNote(moduleRow('m', { lastRun: { id: 1, outcome: 'complete', endedAt: at(0), iterations: 1, maxIterations: 2, forced: false, worktreeBranch: 'autodeck/m-1', worktreeState: 'removed' } }))).toBeUndefined();
    expect(worktreeNote(moduleRow('m'))).toBeUndefined();
  });

  it('history: a run\'s verifies and worktree in a line each', () => {
    const run = finishedRun('/ws/m', 'complete', 3, 2, { worktreePath: '/ws/wt', worktreeBranch: 'autodeck/m-1', worktreeState: 'kept: clean, 2 ahead' });
    const v = (attempt: number, passed: boolean) => ({
      taskDir: '/ws/m', loopStartedAt: run.startedAt, session: 's', attempt, command: 'npm test', cwd: '/ws/wt', startedAt: at(0),
      durationMs: 4200, exitCode: passed ? 0 : 1, signal: '', timedOut: false, passed, outputBytes: 10, tail: passed ? 'ok' : 'FAIL x\n1 failed',
    });
    expect(runExtrasLines(run, [v(1, false), v(2, true)])).toEqual(['verify: 2 runs, passed at the 2nd (4s)', 'worktree autodeck/m-1 kept: clean, 2 ahead (/ws/wt)']);
    expect(runExtrasLines({ ...run, worktreePath: '' }, [v(1, false)])).toEqual(['verify: 1 run, the last exited 1: 1 failed']);
  });

  it('the log and notifications say it in words', () => {
    const e = (kind: LoopEvent['kind'], detail: Record<string, unknown>): LoopEvent => ({ at: at(0), session: 's', taskDir: '/ws/m', taskName: 'm', kind, detail });
    expect(describeEvent(e('verify_failed', { attempt: 2, attempts: 3, command: 'npm test', how: 'exited with code 1', durationMs: 4000, tail: 'a\n1 failed', final: false })))
      .toBe('verify 2/3 failed: npm test exited with code 1 after 4s (1 failed); the agent goes back to work');
    expect(describeEvent(e('worktree', { action: 'kept', state: 'clean, 2 ahead', branch: 'autodeck/m-1', path: '/wt' }))).toBe('worktree kept (clean, 2 ahead): autodeck/m-1 at /wt');
    expect(notificationFor(e('ended', { outcome: 'verify_failed', iterations: 9 }))?.text).toBe('autodeck: m ended unverified (its verify kept failing) after 9 iterations');
  });

  it('verifyAttempts used up: the outcome is verify_failed even though the agent said the loop was done; a force stop is still killed', () => {
    const stop = { step: 'report', result: '(done)' } as const;
    expect(endOutcome({ stopSignal: stop })).toBe('complete');
    expect(endOutcome({ stopSignal: stop, verifyFailed: true })).toBe('verify_failed');
    expect(endOutcome({ stopSignal: stop, verifyFailed: true, forceStop: true })).toBe('killed');
  });
});
