import type { StateCell } from './cells.js';
import type { DeckRow } from './deck.js';
import { countTriage, TRIAGE_GLYPHS, triage, type TriageCounts } from './needsYou.js';
import { claudeTriage } from '../claudeSessions/cells.js';

/** One headline group and how many modules are in it, for the header. */
export interface StateCount extends StateCell {
  count: number;
}

/** The headline groups in the order a person acts on them; glyphs shared with the tmux segment. */
const GROUPS: readonly { key: keyof TriageCounts; cell: StateCell }[] = [
  { key: 'needsYou', cell: { glyph: TRIAGE_GLYPHS.needsYou, word: 'needs you', tone: 'warn', loud: true } },
  { key: 'failed', cell: { glyph: TRIAGE_GLYPHS.failed, word: 'failed', tone: 'bad', loud: true } },
  { key: 'running', cell: { glyph: TRIAGE_GLYPHS.running, word: 'running', tone: 'active' } },
  { key: 'done', cell: { glyph: TRIAGE_GLYPHS.done, word: 'done', tone: 'ok' } },
];

/** The modules in the four groups, counted as the tmux segment counts them (`triage`), so the two never disagree. */
export function triageOf(rows: readonly DeckRow[]): TriageCounts {
  return countTriage(rows.map((r) => (r.claude ? claudeTriage(r.claude) : triage(r.loop, r.lastRun?.outcome, r.lifecycle))));
}

/**
 * The header's counts: needs you, failed, running, done — the groups with none left out.
 * Each row's own state (stalled, quota, stopped by a limit) is in its STATE cell.
 */
export function stateCounts(rows: readonly DeckRow[]): StateCount[] {
  const c = triageOf(rows);
  return GROUPS.filter((g) => c[g.key] > 0).map((g) => ({ ...g.cell, count: c[g.key] }));
}

/** A count as the header shows it: `? 1 needs you`, or `?1` when `compact` (a side pane). */
export function countText(c: StateCount, compact: boolean): string {
  return compact ? `${c.glyph}${c.count}` : `${c.glyph} ${c.count} ${c.word}`;
}
