import { describe, expect, it } from 'vitest';
import { plainChange, plainRowsChange } from '../../src/deck/plainChange.js';
import { finishedRun, loopRow, moduleRow } from '../helpers/fakeModel.js';
import type { DeckRow } from '../../src/deck/deck.js';
import type { LoopRow } from '../../src/store/loops.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const LIMITS = { stallThreshold: 3, recoveryTotal: 10 };
const running = (name: string, patch: Partial<LoopRow> = {}, row: Partial<DeckRow> = {}): DeckRow =>
  moduleRow(name, { loop: loopRow(`/ws/AiTasks/${name}`, { startedAt: new Date(NOW - 65_000).toISOString(), lastSignalAt: new Date(NOW - 4000).toISOString(), ...patch }), ...row });

describe('plainChange: what the frame writer may draw without React', () => {
  it.each([
    ['a new step', { step: 'exec', result: '', next: 'check' }],
    ['an iteration', { iteration: 9 }],
    ['a fresh signal', { lastSignalAt: new Date(NOW - 100).toISOString() }],
    ['a stall counted', { stallCount: 2 }],
    ['a recovery step', { recoveryStep: 1 }],
    ['spend', { tokens: 12_000, costUsd: 0.4 }],
  ])('takes %s', (_what, patch) => {
    expect(plainChange(running('a'), running('a', patch), NOW, LIMITS)).toBe(true);
  });

  it.each([
    ['a new status (state cell and colour)', { status: 'stalled' }],
    ['a question for a person (header count)', { waitingFor: { reason: 'permission', text: 'Bash', since: new Date(NOW - 1000).toISOString() } }],
    ['a quota wait (elapsed paused, its colour)', { quotaWaitSince: new Date(NOW - 1000).toISOString() }],
    ['a context nearly full (coloured)', { contextTokens: 190_000, contextWindow: 200_000 }],
  ])('refuses %s', (_what, patch) => {
    expect(plainChange(running('a'), running('a', patch as Partial<LoopRow>), NOW, LIMITS)).toBe(false);
  });

  it('refuses another module, a loop that ended or started, another owner, another last run', () => {
    expect(plainChange(running('a'), running('b'), NOW, LIMITS)).toBe(false);
    expect(plainChange(running('a'), moduleRow('a'), NOW, LIMITS)).toBe(false);
    expect(plainChange(moduleRow('a'), running('a'), NOW, LIMITS)).toBe(false);
    expect(plainChange(running('a'), running('a', {}, { here: false }), NOW, LIMITS)).toBe(false);
    const ended = (id: number) => moduleRow('a', { lastRun: { ...finishedRun('/ws/AiTasks/a', 'complete', 5, 3), id } });
    expect(plainChange(ended(1), ended(1), NOW, LIMITS)).toBe(true);
    expect(plainChange(ended(1), ended(2), NOW, LIMITS)).toBe(false);
  });
});

describe('plainRowsChange: the rows React keeps', () => {
  const drawn = [running('a'), running('b'), running('c')];
  it('keeps them when only plain cells of unselected rows moved', () => {
    const next = [drawn[0]!, running('b', { step: 'merge' }), running('c', { iteration: 7 })];
    expect(plainRowsChange(drawn, next, NOW, LIMITS, drawn[0]!.key)).toBe(true);
  });

  it('not when the selected row moved (the detail pane and footer show it)', () => {
    const next = [drawn[0]!, running('b', { step: 'merge' }), drawn[2]!];
    expect(plainRowsChange(drawn, next, NOW, LIMITS, drawn[1]!.key)).toBe(false);
  });

  it('not when rows were added, removed or reordered, or one changed state', () => {
    expect(plainRowsChange(drawn, [...drawn, running('d')], NOW, LIMITS, drawn[0]!.key)).toBe(false);
    expect(plainRowsChange(drawn, [drawn[0]!, drawn[2]!, drawn[1]!], NOW, LIMITS, drawn[0]!.key)).toBe(false);
    expect(plainRowsChange(drawn, [drawn[0]!, running('b', { status: 'failed' }), drawn[2]!], NOW, LIMITS, drawn[0]!.key)).toBe(false);
  });
});
