import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { diffFrames, SYNC_BEGIN, SYNC_END } from '../../src/term/frameDiff.js';
import { BLANK, DEFAULT_COLOR, RGB_FLAG, blankGrid, gridOfBuffer, type Cell, type Grid } from '../../src/term/grid.js';

import { modelTerminal, type ModelTerminal as Term } from '../../src/term/model.js';

const newTerm = (cols: number, rows: number): Term => modelTerminal(cols, rows);
const feed = (term: Term, bytes: string): Promise<void> => new Promise((r) => term.write(bytes, r));
const screenOf = (term: Term): Grid => gridOfBuffer(term.buffer.active, term.cols, term.rows);

/** A grid drawn by plain writes (as Ink would), read back from the emulator: the canonical form of a screen. */
async function gridFromText(cols: number, rows: number, bytes: string): Promise<Grid> {
  const t = newTerm(cols, rows);
  await feed(t, bytes);
  const g = screenOf(t);
  t.dispose();
  return g;
}

// Narrow, wide (CJK, emoji) and combining-mark characters.
const NARROW = ['a', 'b', 'x', ' ', '│', '─', '█', '·', '✓'];
const WIDE = ['中', '文', '字', '😀', '🚀'];
const COMBINING = ['e\u0301', 'a\u0308', 'n\u0303'];

const color = fc.oneof(
  fc.constant(DEFAULT_COLOR),
  fc.integer({ min: 0, max: 255 }),
  fc.integer({ min: 0, max: 0xffffff }).map((rgb) => RGB_FLAG | rgb),
);
const attrs = fc.record({ fg: color, bg: color, flags: fc.integer({ min: 0, max: 511 }) });
const glyph = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NARROW).map((chars) => ({ chars, width: 1 })) },
  { weight: 2, arbitrary: fc.constantFrom(...WIDE).map((chars) => ({ chars, width: 2 })) },
  { weight: 1, arbitrary: fc.constantFrom(...COMBINING).map((chars) => ({ chars, width: 1 })) },
  { weight: 3, arbitrary: fc.constant({ chars: ' ', width: 1 }) },
);

/** A random grid that a terminal can show: wide characters never split at the row's end. */
function gridArb(cols: number, rows: number): fc.Arbitrary<Grid> {
  const row = fc.array(fc.tuple(glyph, attrs, fc.boolean()), { minLength: cols, maxLength: cols }).map((picks) => {
    const cells: Cell[] = [];
    for (const [g, a, plain] of picks) {
      if (cells.length >= cols) break;
      const at = plain ? { fg: DEFAULT_COLOR, bg: DEFAULT_COLOR, flags: 0 } : a;
      if (g.width === 2) {
        if (cells.length + 2 > cols) {
          cells.push({ chars: 'z', width: 1, ...at });
          continue;
        }
        cells.push({ chars: g.chars, width: 2, ...at }, { chars: '', width: 0, ...at });
      } else cells.push({ chars: g.chars, width: 1, ...at });
    }
    while (cells.length < cols) cells.push(BLANK);
    return cells;
  });
  return fc.array(row, { minLength: rows, maxLength: rows }).map((cells) => ({ cols, rows, cells }));
}

/** A grid as the emulator stores it after drawing it (the model's own view of that screen). */
async function canonical(g: Grid): Promise<Grid> {
  return gridFromText(g.cols, g.rows, diffFrames(undefined, g, { sync: false }));
}

describe('diffFrames', () => {
  it('draws a whole frame that the emulator reads back cell for cell', async () => {
    const cols = 12;
    const rows = 4;
    await fc.assert(
      fc.asyncProperty(gridArb(cols, rows), async (g) => {
        const t = newTerm(cols, rows);
        await feed(t, diffFrames(undefined, g, { sync: true }));
        const shown = screenOf(t);
        t.dispose();
        // Compared as the emulator keeps cells; the property is: what is drawn is what was asked.
        expect(shown.cells.map((r) => r.map((c) => [c.chars, c.width, c.fg, c.bg, c.flags])))
          .toEqual(g.cells.map((r) => r.map((c) => [c.chars, c.width, c.fg, c.bg, c.flags])));
      }),
      { numRuns: 100 },
    );
  });

  it('turns any screen into any other with the cells that changed', async () => {
    const cols = 10;
    const rows = 3;
    await fc.assert(
      fc.asyncProperty(gridArb(cols, rows), gridArb(cols, rows), async (a, b) => {
        // Both screens as the model reads them, which is what the writer diffs.
        const [from, to] = [await canonical(a), await canonical(b)];
        const t = newTerm(cols, rows);
        await feed(t, diffFrames(undefined, from, { sync: false }));
        await feed(t, diffFrames(from, to, { sync: false }));
        expect(screenOf(t)).toEqual(to);
        t.dispose();
      }),
      { numRuns: 200 },
    );
  });

  it('turns a screen into a slightly changed one (wide characters replaced by half)', async () => {
    const cols = 10;
    const rows = 3;
    const edit = fc.record({ y: fc.nat(rows - 1), x: fc.nat(cols - 1), g: glyph, a: attrs });
    await fc.assert(
      fc.asyncProperty(gridArb(cols, rows), fc.array(edit, { maxLength: 6 }), async (a, edits) => {
        // Each edit written over the screen as a program would; the emulator settles the halves.
        const t = newTerm(cols, rows);
        await feed(t, diffFrames(undefined, a, { sync: false }));
        const before = screenOf(t);
        let bytes = diffFrames(undefined, a, { sync: false });
        for (const e of edits) bytes += `\x1b[${e.y + 1};${e.x + 1}H${e.g.width === 2 && e.x === cols - 1 ? 'q' : e.g.chars}`;
        const target = await gridFromText(cols, rows, bytes);
        await feed(t, diffFrames(before, target, { sync: false }));
        expect(screenOf(t)).toEqual(target);
        t.dispose();
      }),
      { numRuns: 200 },
    );
  });

  it('writes nothing when nothing changed', async () => {
    const g = await gridFromText(20, 3, 'hello \x1b[1;31mworld\x1b[0m 中文');
    expect(diffFrames(g, g, { sync: true })).toBe('');
  });

  it('costs a cursor move and the changed characters for a ticking clock', async () => {
    const line = (clock: string): string => `\x1b[1;1Hbuild  \x1b[32mrunning\x1b[0m  ${clock}  some task text that does not change`;
    const a = await gridFromText(60, 2, line('1m02s'));
    const b = await gridFromText(60, 2, line('1m03s'));
    const bytes = diffFrames(a, b, { sync: false });
    // One move to the changed digit and the digit itself.
    expect(bytes).toBe('\x1b[1;20H3');
    expect(diffFrames(a, b, { sync: true })).toBe(`${SYNC_BEGIN}\x1b[1;20H3${SYNC_END}`);
  });

  it('sets attributes for changed cells and resets them after', async () => {
    const a = await gridFromText(20, 1, 'state: \x1b[32mok\x1b[0m');
    const b = await gridFromText(20, 1, 'state: \x1b[1;31mno\x1b[0m');
    const bytes = diffFrames(a, b, { sync: false });
    expect(bytes).toBe('\x1b[1;8H\x1b[0;1;31mno\x1b[0m');
  });

  it('clears and hides the cursor on a full redraw, and draws only non-blank cells', async () => {
    const g = await gridFromText(20, 3, '\x1b[2;3Hhi');
    expect(diffFrames(undefined, g, { sync: false })).toBe('\x1b[0m\x1b[H\x1b[2J\x1b[?25l\x1b[2;3Hhi');
    // A size change is a full redraw too.
    expect(diffFrames(blankGrid(10, 3), g, { sync: false })).toMatch(/^\x1b\[0m\x1b\[H\x1b\[2J/);
  });
});

describe('gridOfBuffer given the grid it made last', () => {
  it('lends the rows and cells that did not change, and reads what did as a fresh read does', async () => {
    const term = newTerm(20, 4);
    await feed(term, 'mod-01  \x1b[33m1m 05s\x1b[0m\r\nmod-02  9s\r\n\x1b[1mbold\x1b[0m');
    const first = screenOf(term);
    // a clock ticks (same length, same style), a row gains a wide character, one loses its bold
    await feed(term, '\x1b[1;9H\x1b[33m1m 06s\x1b[0m\x1b[2;9H中\x1b[3;1Hbold');
    const second = gridOfBuffer(term.buffer.active, 20, 4, first);
    expect(second).toEqual(screenOf(term));
    expect(second.cells[3]).toBe(first.cells[3]); // untouched: the same row
    for (const y of [0, 1, 2]) expect(second.cells[y]).not.toBe(first.cells[y]);
    expect(second.cells[0]![0]).toBe(first.cells[0]![0]); // 'm' of an unchanged name in a changed row
    expect(second.cells[0]![8]).toBe(first.cells[0]![8]); // '1', same text and style
    expect(second.cells[0]![11]).toBe(first.cells[0]![11]); // '0'
    expect(second.cells[0]![12]).not.toBe(first.cells[0]![12]); // '5' became '6'
    expect(second.cells[0]![12]).toMatchObject({ chars: '6', fg: 3 });
    expect(second.cells[2]![0]).toMatchObject({ chars: 'b', flags: 0 });
    // and nothing is lent across a resize
    term.resize(21, 4);
    const wider = gridOfBuffer(term.buffer.active, 21, 4, second);
    expect(wider.cells[3]).not.toBe(second.cells[3]);
    expect(wider).toEqual(screenOf(term));
    term.dispose();
  });
});
