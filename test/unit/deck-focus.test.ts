import { describe, expect, it } from 'vitest';
import { interestingKey } from '../../src/deck/focus.js';
import { quotaStep, rowCells } from '../../src/deck/cells.js';
import { runLines } from '../../src/deck/runLines.js';
import { demoStep } from '../../src/commands/demo.js';
import { demoModules, FAST_STEP, PACED_STEP } from '../../src/demo/workspace.js';
import { finishedRun, loopRow, moduleRow } from '../helpers/fakeModel.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const row = (name: string, status?: string, patch = {}) =>
  moduleRow(name, status ? { loop: loopRow(`/ws/AiTasks/${name}`, { status: status as never, ...patch }) } : {});

describe('the row the demo follows', () => {
  it('prefers a stall, quota wait or failure, then a restart or a silent screen, then a running loop', () => {
    const rows = [row('idle'), row('a', 'running'), row('b', 'starting'), row('c', 'stalled')];
    expect(interestingKey(rows, undefined)).toBe('/ws/AiTasks/c');
    expect(interestingKey(rows.slice(0, 3), undefined)).toBe('/ws/AiTasks/b');
    expect(interestingKey([row('a', 'running'), row('p', 'running', { stallCount: 3 })], undefined)).toBe('/ws/AiTasks/p');
    expect(interestingKey([row('idle')], undefined)).toBe('/ws/AiTasks/idle');
    expect(interestingKey([], 'x')).toBeUndefined();
  });

  it('keeps the row it follows while no other is more interesting (no jumping between equals)', () => {
    const rows = [row('a', 'running'), row('b', 'running'), row('q', 'quota_wait')];
    expect(interestingKey(rows.slice(0, 2), '/ws/AiTasks/b')).toBe('/ws/AiTasks/b');
    expect(interestingKey(rows, '/ws/AiTasks/b')).toBe('/ws/AiTasks/q');
    expect(interestingKey([row('a', 'running'), row('b', 'running')], '/ws/AiTasks/gone')).toBe('/ws/AiTasks/a');
  });
});

describe('a quota wait counts down to its reset', () => {
  it('in STEP, to the second, then says it tries again', () => {
    expect(quotaStep(14_200)).toBe('reset in 0:15');
    expect(quotaStep(3_600_000)).toBe('reset in 1:00:00');
    expect(quotaStep(0)).toBe('reset: trying again');
    const r = moduleRow('q', { loop: loopRow('/ws/q', { status: 'quota_wait', quotaWaitSince: new Date(NOW - 5000).toISOString() }), quotaUntil: new Date(NOW + 65_000).toISOString() });
    expect(rowCells(r, NOW, { stallThreshold: 3, recoveryTotal: 10 }).step).toBe('reset in 1:05');
  });
});

describe('the history view lines', () => {
  it('a header, then each run: how long ago, outcome, iterations, active time, score, recoveries, restarts', () => {
    const ended = new Date(NOW - 3 * 60_000).toISOString();
    const lines = runLines([
      finishedRun('/ws/m', 'complete', 7, 12, { endedAt: ended }),
      finishedRun('/ws/m', 'stall_limit', 3, 5, { endedAt: new Date(NOW - 2 * 3_600_000).toISOString(), recoveries: 10, forced: true }),
    ], NOW);
    expect(lines[0]).toMatch(/^\s*ENDED\s+OUTCOME\s+ITER\s+ACTIVE\s+SCORE\s+RECOVERIES\s+RESTARTS$/);
    expect(lines[1]).toMatch(/^\s*3m ago\s+✓ complete\s+7\/20\s+12m\s+\d\.\d\d\s+0\s+0$/);
    expect(lines[2]).toMatch(/^\s*2h ago\s+✗ stuck \(forced\)\s+3\/20\s+5m\s+0\.00\s+10\s+0$/);
    expect(runLines([], NOW)).toHaveLength(1);
  });
});

describe('the demo pace', () => {
  it('paced in the dashboard, fast headless; --fast and --speed S override', () => {
    expect(demoStep({}, true)).toBe(PACED_STEP);
    expect(demoStep({}, false)).toBe(FAST_STEP);
    expect(demoStep({ fast: true }, true)).toBe(FAST_STEP);
    expect(demoStep({ speed: '1.5' }, false)).toBe(1.5);
    for (const bad of ['0', '-1', 'abc', '61']) expect(() => demoStep({ speed: bad }, true)).toThrow(/--speed: "[^"]+" is not a number of seconds per step/);
  });

  it('paced, the incidents come one after another and the quota wait lasts ten steps', () => {
    const paced = Object.fromEntries(demoModules(PACED_STEP).map((m) => [m.name, m.scenario as Record<string, { atIteration: number; message?: string }>]));
    const at = (name: string, what: string): number => paced[name]![what]!.atIteration;
    expect(at('migrate-database', 'crash')).toBeLessThan(at('clean-old-branches', 'prompt'));
    expect(at('clean-old-branches', 'prompt')).toBeLessThan(at('translate-docs', 'quota'));
    // 60 s margin after a reset 30 s ago: the wait lasts 30 s = ten 3 s steps
    expect(paced['translate-docs']!.quota!.message).toMatch(/\|\{epoch-30\}$/);
    expect(demoModules(FAST_STEP).find((m) => m.name === 'translate-docs')!.scenario).toMatchObject({ quota: { message: expect.stringMatching(/\{epoch-52\}$/) } });
  });
});
