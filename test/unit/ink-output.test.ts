import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { styledCharsFromTokens, styledCharsToString, tokenize, type StyledChar } from '@alcalzone/ansi-tokenize';
import stringWidth from 'string-width';
// The patched Ink (patches/ink+6.8.0.patch): not in Ink's exports map, so by file.
import Output from '../../node_modules/ink/build/output.js';

/**
 * The patch joins a frame's cells into lines without diffing the styles of neighbours
 * that have the same ones. Oracle: Ink 6.8's own way, the cells laid out as it does and
 * each line joined by the library's styledCharsToString.
 */
function inkWay(width: number, height: number, writes: { x: number; y: number; text: string }[]): string {
  const rows: (StyledChar | undefined)[][] = [];
  for (let y = 0; y < height; y++) rows.push(Array.from({ length: width }, () => ({ type: 'char' as const, value: ' ', fullWidth: false, styles: [] })));
  for (const w of writes) {
    w.text.split('\n').forEach((line, i) => {
      const row = rows[w.y + i];
      if (!row) return;
      let x = w.x;
      for (const c of styledCharsFromTokens(tokenize(line))) {
        row[x] = c;
        const cw = Math.max(1, stringWidth(c.value));
        for (let k = 1; k < cw; k++) row[x + k] = { type: 'char', value: '', fullWidth: false, styles: c.styles };
        x += cw;
      }
    });
  }
  return rows.map((r) => styledCharsToString(r.filter((c): c is StyledChar => c !== undefined)).trimEnd()).join('\n');
}

function patched(width: number, height: number, writes: { x: number; y: number; text: string }[]): string {
  const out = new Output({ width, height });
  for (const w of writes) out.write(w.x, w.y, w.text, { transformers: [] });
  return out.get().output;
}

const ESC = '\u001B[';
// Styles whose diffs are not trivial: same end code (colours), intensity pairs (bold and
// dim both end with 22), 256 and true colour, inverse, resets in the middle.
const STYLES = ['1m', '2m', '22m', '3m', '4m', '7m', '27m', '31m', '32m', '39m', '41m', '49m', '38;5;208m', '48;2;10;20;30m', '0m'];
const piece = fc.oneof(
  fc.constantFrom(...STYLES).map((s) => ESC + s),
  fc.constantFrom('a', 'b', ' ', 'x', '│', '─', '▶', '✓', '中', '😀', 'e\u0301'),
);
const write = fc.record({
  x: fc.integer({ min: 0, max: 20 }),
  y: fc.integer({ min: 0, max: 5 }),
  text: fc.array(fc.array(piece, { maxLength: 30 }).map((p) => p.join('')), { minLength: 1, maxLength: 3 }).map((l) => l.join('\n')),
});

describe('patched Ink output: lines joined without per-cell style diffs', () => {
  it('gives the same frame as Ink 6.8 for a table-like frame', () => {
    const writes = [
      { x: 0, y: 0, text: `${ESC}1mMODULE${ESC}22m   ${ESC}1mSTATE${ESC}22m` },
      { x: 0, y: 1, text: `${ESC}7m› mod-a ${ESC}32m▶ running${ESC}39m${ESC}27m` },
      { x: 0, y: 2, text: `  mod-b ${ESC}2m${ESC}1mboth${ESC}22m plain` },
      { x: 20, y: 1, text: `${ESC}33m1m 05s${ESC}39m` },
      { x: 3, y: 2, text: '中文' },
    ];
    expect(patched(40, 4, writes)).toBe(inkWay(40, 4, writes));
    expect(patched(40, 4, writes)).toContain('\u001B[7m› mod-a \u001B[32m▶ running\u001B[39m');
  });

  it('gives the same frame as Ink 6.8 for any styled writes, overlapping or not', () => {
    fc.assert(fc.property(fc.array(write, { maxLength: 6 }), (writes) => {
      expect(patched(40, 6, writes)).toBe(inkWay(40, 6, writes));
    }), { numRuns: 300 });
  });
});
