import { stateCell } from './cells.js';
import type { DeckRow } from './deck.js';

/** How much a row asks for a person's eye: lower first. */
function rank(row: DeckRow): number {
  const loop = row.loop;
  if (!loop) return 4;
  if (stateCell(row).loud) return 0; // stalled, quota wait, failed
  // a restart, a stop under way, a screen that has not moved for three heartbeats (a prompt?)
  if (loop.status === 'stopping' || loop.status === 'starting' || loop.stallCount >= 3) return 1;
  if (loop.status === 'running') return 2;
  return 3;
}

/**
 * The row the detail pane follows until a person moves the selection (the demo): the one
 * that most wants an eye (a stall, a quota wait, a failure, then a restart or stop under
 * way, then a running loop). The one followed so far stays while it is as interesting as
 * any other, so the pane does not jump between equals.
 */
export function interestingKey(rows: readonly DeckRow[], previous: string | undefined): string | undefined {
  let best: DeckRow | undefined;
  for (const r of rows) if (!best || rank(r) < rank(best)) best = r;
  if (!best) return undefined;
  const kept = rows.find((r) => r.key === previous);
  return kept && rank(kept) === rank(best) ? kept.key : best.key;
}
