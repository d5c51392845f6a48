import type { DeckRow } from './deck.js';
import { countGroups, countText, stateOf, type GroupCount } from './states.js';

/** Each row's state, as its STATE cell shows it. */
export function rowStates(rows: readonly DeckRow[]) {
  return rows.map((r) => stateOf({ loop: r.loop, lastOutcome: r.lastRun?.outcome, lifecycle: r.lifecycle }));
}

/**
 * The header's counts: every group with a module in it, in the order a person acts on them
 * (src/deck/states.ts). Every row is in exactly one group, so they add up to the rows.
 */
export function stateCounts(rows: readonly DeckRow[]): GroupCount[] {
  return countGroups(rowStates(rows));
}

/**
 * The header's text: `autodeck · host vm · 7 modules  ? 1 needs you  ▶ 3 running`; compact
 * (a side pane) `autodeck ?1 ▶3 · vm`, the host last so a narrow pane cuts it first.
 * Components colour the counts; the words are these.
 */
export function headerParts(title: string, host: string, rows: readonly DeckRow[], compact: boolean): { title: string; counts: { text: string; count: GroupCount }[]; tail: string } {
  const counts = stateCounts(rows).map((c) => ({ text: countText(c, compact), count: c }));
  const modules = `${rows.length} module${rows.length === 1 ? '' : 's'}`;
  return compact
    ? { title, counts, tail: ` · ${host}` }
    : { title: `${title} · host ${host} · ${modules}`, counts, tail: '' };
}

export { countText };
