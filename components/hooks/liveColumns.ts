import { createContext, useContext } from 'react';
import type { DOMElement } from 'ink';
import type { LiveBlock, LiveCells } from '../../src/term/liveCells.js';
import type { DeckRow } from '../../src/deck/deck.js';

/** One column of a table whose text moves with time: its box, and what Ink was given for it. */
export interface LiveColumn {
  box: DOMElement | null;
  width: number;
  drawn: readonly string[];
}

/** A table's live columns, and their lines at any moment (one array per column, as `columns`). */
export interface LiveTable {
  columns: readonly LiveColumn[];
  /** Per column (undefined: as Ink drew it); `all` false: only the columns time alone moves. */
  linesAt(now: number, all: boolean): readonly (readonly string[] | undefined)[];
  /** Whether a cell of it can change with time alone. */
  ticking: boolean;
  /** Makes React draw the table again (a block the writer could not place). */
  redraw(): void;
}

/**
 * Where an element was placed in Ink's last layout: the sum of the offsets of it and its
 * parents, as Ink's own renderer adds them up.
 */
export function screenPosition(el: DOMElement): { x: number; y: number } {
  let x = 0;
  let y = 0;
  for (let n: DOMElement | undefined = el; n; n = n.parentNode) {
    if (!n.yogaNode) continue;
    x += n.yogaNode.getComputedLeft();
    y += n.yogaNode.getComputedTop();
  }
  return { x, y };
}

/**
 * The dashboard's cells that move with time alone, for the frame writer to keep current
 * between Ink's frames: the table registers itself here each time React draws it. Also
 * the plain cells of rows whose change React was spared (a step, an iteration: see
 * src/deck/plainChange.ts): the table's lines are worked out from the rows as they are now.
 */
export class LiveColumns implements LiveCells {
  private readonly tables = new Set<LiveTable>();
  private onChange: (() => void) | undefined;
  private readonly redrawers = new Set<() => void>();
  /** The rows React drew are behind the model's in plain cells: the lines come from `rowsNow`. */
  private behind = false;

  /** `rowsNow`: the model's rows this moment (without it, the rows React drew are taken). */
  constructor(private readonly rowsNow?: () => readonly DeckRow[]) {}

  /** `rows` (as React drew them) as they are now: the same modules, the newest row of each. */
  current(rows: readonly DeckRow[]): readonly DeckRow[] {
    if (!this.behind || !this.rowsNow) return rows;
    const byKey = new Map(this.rowsNow().map((r) => [r.key, r]));
    return rows.map((r) => byKey.get(r.key) ?? r);
  }

  /**
   * Plain cells changed and React was not asked to draw (`behind`), or React drew the rows
   * as they are (not behind): the writer is told to draw the difference.
   */
  setBehind(behind: boolean): void {
    this.behind = behind;
    if (behind) this.onChange?.();
  }

  setOnChange(listener: (() => void) | undefined): void {
    this.onChange = listener;
  }

  add(table: LiveTable): () => void {
    this.tables.add(table);
    return () => this.tables.delete(table);
  }

  blocks(now: number): LiveBlock[] {
    const out: LiveBlock[] = [];
    for (const t of this.tables) {
      if (!t.ticking && !this.behind) continue; // nothing in it moves: its lines are what Ink drew
      // behind: plain cells React was spared changed too, in any column
      const lines = t.linesAt(now, this.behind);
      t.columns.forEach((c, i) => {
        if (!c.box || !lines[i]) return;
        const { x, y } = screenPosition(c.box);
        out.push({ x, y, width: c.width, drawn: c.drawn, lines: lines[i]! });
      });
    }
    return out;
  }

  ticking(): boolean {
    for (const t of this.tables) if (t.ticking) return true;
    return false;
  }

  redraw(): void {
    for (const t of this.tables) t.redraw();
    for (const r of this.redrawers) r();
  }

  /** `listener` is called when React must draw (the rows as they are now, not as last drawn). */
  onRedraw(listener: () => void): () => void {
    this.redrawers.add(listener);
    return () => this.redrawers.delete(listener);
  }
}

export const LiveColumnsContext = createContext<LiveColumns | undefined>(undefined);

export function useLiveColumns(): LiveColumns | undefined {
  return useContext(LiveColumnsContext);
}
