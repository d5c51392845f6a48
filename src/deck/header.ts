import type { DeckRow } from './deck.js';
import { cellWidth } from './layout.js';
import { countGroups, countText, stateOf, type GroupCount, type StateDef } from './states.js';
import { claudeState } from '../claudeSessions/cells.js';

/** Each row's state, as its STATE cell shows it. */
export function rowStates(rows: readonly DeckRow[]): StateDef[] {
  return rows.map((r) => (r.claude ? claudeState(r.claude) : stateOf({ loop: r.loop, lastOutcome: r.lastRun?.outcome, lifecycle: r.lifecycle })));
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
  // Claude Code's own sessions are rows too, counted apart from the modules
  const claude = states.filter((s) => s.source === 'claude').length;
  const n = states.length - claude;
  const modules = `${n} module${n === 1 ? '' : 's'}${claude > 0 ? ` · ${claude} Claude Code session${claude === 1 ? '' : 's'}` : ''}`;
  return compact
    ? { title, counts, tail: ` · ${host}` }
    : { title: `${title} · host ${host} · ${modules}`, counts, tail: '' };
}

/**
 * The header for a terminal `width` wide: the full words when they fit, else the compact
 * form (always in a side pane), so that no count is cut off the end of the line.
 */
export function headerFitting(title: string, host: string, states: readonly StateDef[], width: number, side: boolean): { parts: HeaderParts; compact: boolean } {
  if (!side) {
    const full = headerOf(title, host, states, false);
    if (cellWidth(headerText(full, false)) <= width) return { parts: full, compact: false };
  }
  return { parts: headerOf(title, host, states, true), compact: true };
}

export function headerParts(title: string, host: string, rows: readonly DeckRow[], width: number, side: boolean): { parts: HeaderParts; compact: boolean } {
  return headerFitting(title, host, rowStates(rows), width, side);
}

/** The header as plain text (as a screen capture reads it, before a filter's note). */
export function headerText(p: HeaderParts, compact: boolean): string {
  return `${p.title}${p.counts.map((c) => `${compact ? ' ' : '  '}${c.text}`).join('')}${p.tail}`;
}

export { countText };
