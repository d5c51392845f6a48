import { describe, expect, it } from 'vitest';
import { countGroups, STATE_GROUPS, STATES, stateDef, stateOf, stateLegend, tmuxSegment, wordsOf } from '../../src/deck/states.js';
import { LOOP_STATUSES } from '../../src/store/loops.js';
import { OUTCOMES } from '../../src/store/runs.js';
import { LIFECYCLE_STATUSES } from '../../src/protocol/modules.js';

describe('the state groups', () => {
  it('know every stored value: each loop status, outcome and module status has its row', () => {
    const missing = [
      ...LOOP_STATUSES.map((s) => ['loop', s] as const), ...OUTCOMES.map((s) => ['outcome', s] as const),
      ...LIFECYCLE_STATUSES.map((s) => ['lifecycle', s] as const),
    ].filter(([source, id]) => !STATES.some((s) => s.source === source && s.id === id));
    expect(missing).toEqual([]);
  });

  it('put every state word in exactly one group, each group with its own glyph', () => {
    const groupsOfWord = new Map<string, Set<string>>();
    for (const s of STATES) groupsOfWord.set(s.word, (groupsOfWord.get(s.word) ?? new Set()).add(s.group));
    expect([...groupsOfWord].filter(([, g]) => g.size > 1)).toEqual([]);
    expect(new Set(STATE_GROUPS.map((g) => g.glyph)).size).toBe(STATE_GROUPS.length);
    for (const s of STATES) expect(STATE_GROUPS.some((g) => g.id === s.group), s.word).toBe(true);
    // `? needs you` and a word of nine: the STATE column holds twelve with its gap
    for (const s of STATES) expect(s.word.length, s.word).toBeLessThanOrEqual(9);
    // the legend says every word
    const legend = stateLegend().map((l) => l.states).join(', ');
    for (const s of STATES) expect(legend).toContain(s.word);
  });

  it('count every module once, so the counts add up to the modules', () => {
    const all = STATES.map((s) => stateDef(s.source, s.id));
    expect(countGroups(all).reduce((n, c) => n + c.count, 0)).toBe(STATES.length);
    expect(countGroups(all).map((c) => c.group.id)).toEqual(STATE_GROUPS.map((g) => g.id));
    for (const g of STATE_GROUPS) expect(wordsOf(g.id).length, g.id).toBeGreaterThan(0);
  });

  it('give a value a newer autodeck wrote its own word, in a group, never nothing', () => {
    expect(stateDef('loop', 'reviewing')).toMatchObject({ word: 'reviewing', group: 'running', tone: 'muted' });
    expect(stateDef('outcome', 'review_failed')).toMatchObject({ word: 'review_failed', group: 'stopped' });
    expect(stateOf({ lifecycle: 'whatever' })).toMatchObject({ group: 'idle' });
    expect(stateOf({})).toMatchObject({ word: 'unknown', group: 'idle' });
  });

  it('decide by the loop first (a waiting loop needs you, a failed one failed), then the last run, then the module', () => {
    const waiting = { reason: 'question' as const, text: 'Which one?', since: '' };
    expect(stateOf({ loop: { status: 'running', waitingFor: waiting, stopReason: '' }, lastOutcome: 'complete' }).word).toBe('needs you');
    expect(stateOf({ loop: { status: 'failed', waitingFor: waiting, stopReason: 'x' } }).word).toBe('failed');
    expect(stateOf({ loop: { status: 'stopping', waitingFor: waiting, stopReason: '' } }).word).toBe('stopping');
    expect(stateOf({ lastOutcome: 'max_iterations', lifecycle: 'executing' }).word).toBe('max iter');
    expect(stateOf({ lifecycle: 'draft' })).toMatchObject({ word: 'draft', group: 'idle' });
    expect(tmuxSegment([stateDef('loop', 'running'), stateDef('derived', 'needs_you'), stateDef('loop', 'running')])).toBe('?1 ▶2');
  });
});
