import { createContext, useContext } from 'react';
import type { DOMElement } from 'ink';
import type { LiveBlock, LiveCells } from '../../src/term/liveCells.js';

/** One column of a table whose text moves with time: its box, and what Ink was given for it. */
export interface LiveColumn {
  box: DOMElement | null;
  width: number;
  drawn: readonly string[];
}

/** A table's live columns, and their lines at any moment (one array per column, as `columns`). */
export interface LiveTable {
  columns: readonly LiveColumn[];
  linesAt(now: number): readonly (readonly string[])[];
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
 * between Ink's frames: the table registers itself here each time React draws it.
 */
export class LiveColumns implements LiveCells {
  private readonly tables = new Set<LiveTable>();

  add(table: LiveTable): () => void {
    this.tables.add(table);
    return () => this.tables.delete(table);
  }

  blocks(now: number): LiveBlock[] {
    const out: LiveBlock[] = [];
    for (const t of this.tables) {
      if (!t.ticking) continue; // nothing in it moves with time: its lines are what Ink drew
      const lines = t.linesAt(now);
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
  }
}

export const LiveColumnsContext = createContext<LiveColumns | undefined>(undefined);

export function useLiveColumns(): LiveColumns | undefined {
  return useContext(LiveColumnsContext);
}
