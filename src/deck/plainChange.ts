import type { DeckRow } from './deck.js';
import { rowCells, type CellLimits, type RowCells } from './cells.js';
import { triage } from './needsYou.js';

/**
 * The cells the table draws as plain text in one style per column: iteration and elapsed
 * with their bars, step, stall and recovery counts, the last signal's age, spend. A change
 * there alone is drawn by the frame writer over Ink's last frame (live cells), with no
 * React render and no Ink frame: about one loop in twenty takes a step each
 * second at rest, and each step was a whole frame. The name (bold when selected), the
 * state (coloured), ctx (coloured when nearly full) and `paused` (colours the elapsed
 * cell) go through React.
 */
const PLAIN_FIELDS: ReadonlySet<string> = new Set<keyof RowCells>(['iteration', 'iterationFill', 'step', 'elapsed', 'elapsedFill', 'stalls', 'recoveries', 'lastSignal', 'spend']);

const groupOf = (r: DeckRow) => triage(r.loop, r.lastRun?.outcome, r.lifecycle);

/**
 * Whether `b` differs from `a` (the same module) only in plain cells: same module, same
 * loop status and header group (the header's counts), every other cell alike at `now`.
 */
export function plainChange(a: DeckRow, b: DeckRow, now: number, limits: CellLimits): boolean {
  if (a.key !== b.key || a.name !== b.name || a.lifecycle !== b.lifecycle || a.here !== b.here || a.ownerAlive !== b.ownerAlive) return false;
  if ((a.loop === undefined) !== (b.loop === undefined) || a.loop?.status !== b.loop?.status || a.lastRun?.id !== b.lastRun?.id) return false;
  if (groupOf(a) !== groupOf(b)) return false;
  const ca = rowCells(a, now, limits) as unknown as Record<string, unknown>;
  const cb = rowCells(b, now, limits) as unknown as Record<string, unknown>;
  const fields = new Set([...Object.keys(ca), ...Object.keys(cb)]);
  for (const k of fields) {
    if (PLAIN_FIELDS.has(k)) continue;
    if (JSON.stringify(ca[k]) !== JSON.stringify(cb[k])) return false;
  }
  return true;
}

/**
 * Whether `next` differs from the rows React last drew only in plain cells of rows other
 * than `pinned` (the selected row, which the detail pane and the footer also show): the
 * same modules in the same order. Then React keeps the rows it drew and the writer draws
 * the difference.
 */
export function plainRowsChange(drawn: readonly DeckRow[], next: readonly DeckRow[], now: number, limits: CellLimits, pinned: string | undefined): boolean {
  if (drawn.length !== next.length) return false;
  for (let i = 0; i < next.length; i++) {
    const a = drawn[i]!;
    const b = next[i]!;
    if (a === b) continue;
    if (b.key === pinned || !plainChange(a, b, now, limits)) return false;
  }
  return true;
}
