import { stateCell, type StateCell } from './cells.js';
import type { DeckRow } from './deck.js';
import { countTriage, TRIAGE_GLYPHS, triage, type TriageCounts } from './needsYou.js';

/** One state and how many rows are in it, for the header. */
export interface StateCount extends StateCell {
  count: number;
}

// Live states first, in the order a person acts on them; then how runs ended.
const ORDER = ['stalled', 'quota', 'failed', 'running', 'starting', 'stopping', 'suspended'];

/**
 * How many rows are in each state, as the STATE column shows them (a live loop's status,
 * else its last run's outcome, else the module's lifecycle): states that need a person
 * first, then the running ones, then the rest by count. States with no row are left out.
 */
export function stateCounts(rows: readonly DeckRow[]): StateCount[] {
  const byWord = new Map<string, StateCount>();
  for (const r of rows) {
    const cell = stateCell(r);
    const known = byWord.get(cell.word);
    if (known) known.count++;
    else byWord.set(cell.word, { ...cell, count: 1 });
  }
  const rank = (c: StateCount): number => {
    const i = ORDER.indexOf(c.word);
    return i >= 0 ? i : ORDER.length;
  };
  return [...byWord.values()].sort((a, b) => rank(a) - rank(b) || b.count - a.count || a.word.localeCompare(b.word));
}

/** A count as the header shows it: `! 1 stalled`, or `!1` when `compact` (a side pane). */
export function countText(c: StateCount, compact: boolean): string {
  return compact ? `${c.glyph}${c.count}` : `${c.glyph} ${c.count} ${c.word}`;
}

/** The four headline groups (issue 15 item 2): running, needs you, done, failed. */
export function triageCounts(rows: readonly DeckRow[]): TriageCounts {
  return countTriage(rows.map((r) => triage(r.loop, r.lastRun?.outcome, r.lifecycle)));
}

const TRIAGE_CELLS: { key: keyof TriageCounts; cell: StateCell }[] = [
  { key: 'needsYou', cell: { glyph: TRIAGE_GLYPHS.needsYou, word: 'needs you', tone: 'warn', loud: true } },
  { key: 'running', cell: { glyph: TRIAGE_GLYPHS.running, word: 'running', tone: 'active' } },
  { key: 'failed', cell: { glyph: TRIAGE_GLYPHS.failed, word: 'failed', tone: 'bad', loud: true } },
  { key: 'done', cell: { glyph: TRIAGE_GLYPHS.done, word: 'done', tone: 'ok' } },
];

/** The header's counts: the groups that have rows, the ones that want a person first. */
export function headerCounts(rows: readonly DeckRow[]): StateCount[] {
  const c = triageCounts(rows);
  return TRIAGE_CELLS.filter((t) => c[t.key] > 0).map((t) => ({ ...t.cell, count: c[t.key] }));
}
