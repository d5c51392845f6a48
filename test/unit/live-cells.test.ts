import { describe, expect, it } from 'vitest';
import { overlayBlocks, cellsText, type LiveBlock } from '../../src/term/liveCells.js';
import { BLANK, blankGrid, gridText, type Grid } from '../../src/term/grid.js';

// The clocks drawn between Ink's frames: only where Ink's frame shows what Ink
// was given, keeping its style, and never a character that is not one plain cell.

const YELLOW = 3;

/** A 30x4 screen with `text` written at (x, y), every character in `fg`. */
function frame(writes: Array<{ x: number; y: number; text: string; fg?: number }>): Grid {
  const g = blankGrid(30, 4);
  for (const w of writes) {
    const row = g.cells[w.y]!;
    [...w.text].forEach((ch, i) => {
      row[w.x + i] = { ...BLANK, chars: ch, fg: w.fg ?? BLANK.fg };
    });
  }
  return g;
}

const block = (over: Partial<LiveBlock>): LiveBlock => ({ x: 10, y: 1, width: 8, drawn: ['1m 05s', '9s'], lines: ['1m 06s', '10s'], ...over });

describe('overlayBlocks', () => {
  it('draws the new text of a clock where Ink drew the old, in its style, the rest of the cell blank', () => {
    const ink = frame([{ x: 0, y: 1, text: 'mod-01' }, { x: 10, y: 1, text: '1m 05s', fg: YELLOW }, { x: 10, y: 2, text: '9s' }, { x: 20, y: 1, text: 'plan' }]);
    const { grid, stale } = overlayBlocks(ink, [block({})]);
    expect(stale).toBe(false);
    expect(gridText(grid).split('\n').slice(1, 3)).toEqual(['mod-01    1m 06s    plan', '          10s']);
    expect(grid.cells[1]![15]).toMatchObject({ chars: 's', fg: YELLOW });
    expect(grid.cells[2]![12]).toMatchObject({ chars: 's', fg: BLANK.fg });
    // Ink's frame itself is left as it was (the writer diffs the next tick against it again).
    expect(cellsText(ink.cells[1]!, 10, 8)).toBe('1m 05s');
  });

  it('shrinks a text and blanks what it left', () => {
    const ink = frame([{ x: 10, y: 1, text: 'ended 59s ago' }]);
    const { grid } = overlayBlocks(ink, [block({ width: 14, drawn: ['ended 59s ago'], lines: ['ended 1m ago'] })]);
    expect(cellsText(grid.cells[1]!, 10, 14)).toBe('ended 1m ago');
    expect(grid.cells[1]![22]).toBe(BLANK);
  });

  it('gives back the same frame when no clock moved', () => {
    const ink = frame([{ x: 10, y: 1, text: '1m 05s' }, { x: 10, y: 2, text: '9s' }]);
    const { grid, stale } = overlayBlocks(ink, [block({ lines: ['1m 05s', '9s'] })]);
    expect(grid).toBe(ink);
    expect(stale).toBe(false);
  });

  it('writes nothing where the frame does not show what Ink was given (a dialog over the table), and asks for Ink', () => {
    const ink = frame([{ x: 5, y: 1, text: '┌ Start a loop ───────┐' }, { x: 10, y: 2, text: '9s' }]);
    const { grid, stale } = overlayBlocks(ink, [block({})]);
    expect(grid).toBe(ink);
    expect(stale).toBe(true);
  });

  it('leaves to Ink a text that is wide, has controls, outgrows the cell, or appears in an empty one', () => {
    const ink = frame([{ x: 10, y: 1, text: 'plan' }]);
    for (const lines of [['計画'], ['x\x1b[2J'], ['much too long'], ['']]) {
      const drawn = lines[0] === '' ? [''] : ['plan'];
      const now = lines[0] === '' ? ['soon'] : lines;
      const { grid, stale } = overlayBlocks(drawn[0] === '' ? frame([]) : ink, [block({ drawn, lines: now, width: 8 })]);
      expect(stale).toBe(true);
      expect(gridText(grid)).not.toMatch(/計|soon|much|\x1b/);
    }
  });

  it('leaves to Ink a block whose rows changed in number, or that lies off the screen', () => {
    const ink = frame([{ x: 10, y: 1, text: '1m 05s' }, { x: 10, y: 2, text: '9s' }]);
    expect(overlayBlocks(ink, [block({ lines: ['1m 06s'] })]).stale).toBe(true);
    expect(overlayBlocks(ink, [block({ x: 25 })]).stale).toBe(true);
    expect(overlayBlocks(ink, [block({ y: 3 })]).stale).toBe(true);
  });

  it('works a block out again when the same lines come over another frame or at another place (a column whose text time does not move)', () => {
    const lines = ['1m 06s', '10s'];
    const drawn = ['1m 05s', '9s'];
    const ink = frame([{ x: 10, y: 1, text: '1m 05s' }, { x: 10, y: 2, text: '9s' }]);
    const first = overlayBlocks(ink, [block({ lines, drawn })]);
    expect(cellsText(first.grid.cells[1]!, 10, 8)).toBe('1m 06s');
    // the same lines at the next tick: the same cells
    expect(gridText(overlayBlocks(ink, [block({ lines, drawn })]).grid)).toBe(gridText(first.grid));
    // a dialog over the table in Ink's next frame: left alone, and Ink asked to draw
    const dialog = frame([{ x: 5, y: 1, text: '┌ Start a loop ───────┐' }, { x: 10, y: 2, text: '9s' }]);
    const over = overlayBlocks(dialog, [block({ lines, drawn })]);
    expect(over.stale).toBe(true);
    expect(over.grid).toBe(dialog);
    // the table moved down a line in a new frame: drawn where it is now
    const moved = frame([{ x: 10, y: 2, text: '1m 05s' }, { x: 10, y: 3, text: '9s' }]);
    const below = overlayBlocks(moved, [block({ lines, drawn, y: 2 })]);
    expect(gridText(below.grid).split('\n').slice(1)).toEqual(['', '          1m 06s', '          10s']);
    // and over the first frame at the old place again, as before
    expect(gridText(overlayBlocks(ink, [block({ lines, drawn })]).grid)).toBe(gridText(first.grid));
    // at the old place over the moved frame: not what Ink drew there, so left alone
    expect(overlayBlocks(moved, [block({ lines, drawn })]).stale).toBe(true);
  });
});
