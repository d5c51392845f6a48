import { stateCell, type StateCell } from './cells.js';
import type { DeckRow } from './deck.js';

/** One state and how many rows are in it, for the header. */
export interface StateCount extends StateCell {
  count: number;
}

// Live states first, in the order a person acts on them (a loop waiting on a person first); then how runs ended.
const ORDER = ['needs you', 'stalled', 'quota', 'failed', 'running', 'starting', 'stopping', 'suspended'];

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

