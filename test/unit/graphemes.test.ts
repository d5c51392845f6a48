import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LazyGraphemeSegmenter, oneUnitPerGrapheme } from '../../src/term/graphemes.js';

// The dashboard bundle's Intl.Segmenter (src/term/graphemes.ts): text of lone characters is
// segmented without ICU, and must come out as ICU segments it, on every Node line (ICU
// versions differ; `npm run test:node24` runs this file there too).

const icu = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const segments = (s: Iterable<{ segment: string; index: number }>): Array<[string, number]> => [...s].map(({ segment, index }) => [segment, index]);

/** Every code unit the fast path takes. */
function loneUnits(): string[] {
  const out: string[] = [];
  for (let u = 0; u <= 0xffff; u++) if (oneUnitPerGrapheme(String.fromCharCode(u))) out.push(String.fromCharCode(u));
  return out;
}

describe('LazyGraphemeSegmenter', () => {
  it('takes only characters that ICU never joins to a neighbour', () => {
    // Two characters join only when the second extends the first (marks, joiners), the first
    // is prepended to the second, both are Hangul jamo, both regional indicators, or CR LF.
    // Each lone character stays alone after a letter, before a letter, and next to itself.
    const joined: string[] = [];
    const units = loneUnits();
    for (const c of units) {
      for (const text of [`a${c}a`, `${c}${c}`, `\u4e00${c}\u4e00`]) {
        if ([...icu.segment(text)].length !== text.length) joined.push(`U+${c.charCodeAt(0).toString(16)} in ${JSON.stringify(text)}`);
      }
    }
    expect(units.length).toBeGreaterThan(30_000); // ASCII, Latin, symbols, box drawing, CJK...
    expect(joined).toEqual([]);
    for (const c of ['\r', '\u0301', '\u200d', '\ufe0f', '\u1100', '\uac00', '\ud83d', '\u0e33']) expect(oneUnitPerGrapheme(c), JSON.stringify(c)).toBe(false);
  });

  it('segments any text as ICU does, containing() included', () => {
    const seg = new LazyGraphemeSegmenter();
    const alphabet = ['a', ' ', '\x1b', '[', '3', '1', 'm', '\n', '\r', '\u00b7', '\u2500', '\u203a', '\u23fa', '\u65e5', '\u0301', '\u200d', '\ufe0f', '\u{1f600}', '\u{1f1eb}', '\u1100', '\u1161', '\uac00'];
    fc.assert(fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 30 }).map((a) => a.join('')), (text) => {
      const ours = seg.segment(text);
      const theirs = icu.segment(text);
      expect(segments(ours)).toEqual(segments(theirs));
      for (let i = -1; i <= text.length; i++) {
        const a = ours.containing(i);
        const b = theirs.containing(i);
        expect(a && [a.segment, a.index]).toEqual(b && [b.segment, b.index]);
      }
    }), { numRuns: 3000 });
  });

  it('hands other granularities and its options to ICU', () => {
    const words = new LazyGraphemeSegmenter('en', { granularity: 'word' });
    expect(segments(words.segment('two words'))).toEqual(segments(new Intl.Segmenter('en', { granularity: 'word' }).segment('two words')));
    expect(new LazyGraphemeSegmenter().resolvedOptions().granularity).toBe('grapheme');
    expect(LazyGraphemeSegmenter.supportedLocalesOf(['en'])).toEqual(Intl.Segmenter.supportedLocalesOf(['en']));
  });

  it('stands in for Intl.Segmenter throughout the dashboard bundle', () => {
    const bundle = readFileSync(fileURLToPath(new URL('../../dist/dashboard.bundle.js', import.meta.url)), 'utf8');
    expect(bundle.match(/new LazyGraphemeSegmenter\b/g)?.length).toBeGreaterThanOrEqual(3); // string-width, slice-ansi, ansi-tokenize
    expect(bundle).not.toMatch(/new Intl\.Segmenter\b/);
  });
});
