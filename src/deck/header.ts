import type { DeckRow } from './deck.js';
import { countGroups, countText, stateOf, type GroupCount, type StateDef } from './states.js';

/** Each row's state, as its STATE cell shows it. */
export function rowStates(rows: readonly DeckRow[]): StateDef[] {
  return rows.map((r) => stateOf({ loop: r.loop, lastOutcome: r.lastRun?.outcome, lifecycle: r.lifecycle }));
}

/**
 * The header's counts: every group with a module in it, in the order a person acts on them
 * (src/deck/states.ts). Every row is in exactly one group, so they add up to the rows.
 */
export function stateCounts(rows: readonly DeckRow[]): GroupCount[] {
  return countGroups(rowStates(rows));
}

export interface HeaderParts {
  title: string;
  counts: { text: string; count: GroupCount }[];
  tail: string;
}

/**
 * The header: `autodeck · host vm · 7 modules  ? 1 needs you  ▶ 3 running`; compact (a side
 * pane) `autodeck ?1 ▶3 · vm`, the host last so a narrow pane cuts it first. Components
 * colour the counts; the words are these.
 */
export function headerOf(title: string, host: string, states: readonly StateDef[], compact: boolean): HeaderParts {
  const counts = countGroups(states).map((c) => ({ text: countText(c, compact), count: c }));
  const modules = `${states.length} module${states.length === 1 ? '' : 's'}`;
  return compact
    ? { title, counts, tail: ` · ${host}` }
    : { title: `${title} · host ${host} · ${modules}`, counts, tail: '' };
}

export function headerParts(title: string, host: string, rows: readonly DeckRow[], compact: boolean): HeaderParts {
  return headerOf(title, host, rowStates(rows), compact);
}

/** The header as plain text (as a screen capture reads it, before a filter's note). */
export function headerText(p: HeaderParts, compact: boolean): string {
  return `${p.title}${p.counts.map((c) => `${compact ? ' ' : '  '}${c.text}`).join('')}${p.tail}`;
}

export { countText };
