import { describe, expect, it } from 'vitest';
// The patched string-width (patches/string-width+8.3.0.patch), the copy the dashboard bundle holds.
import stringWidth from 'string-width';

/**
 * The patch builds string-width's RGI emoji pattern on first need and tests a cluster with it
 * only when the cluster holds a non-ASCII Emoji code point or a keycap mark (start-up, issue
 * 12: the pattern costs 20-35 ms to build and as much on its first test, and every first frame
 * paid both for a line of box drawing and digits). The rule it must keep: a cluster the RGI
 * pattern matches is two cells wide.
 */
describe('string-width, patched to build its emoji pattern late', () => {
  it('measures every single-code-point RGI emoji, with and without VS16, and every keycap, as two cells', () => {
    const rgi = new RegExp('^\\p{RGI_Emoji}$', 'v');
    const wrong: string[] = [];
    let matched = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      const forms = cp < 0x80 ? [c, `${c}\uFE0F`, `${c}\uFE0F\u20E3`] : [c, `${c}\uFE0F`];
      for (const s of forms) {
        if (!rgi.test(s)) continue;
        matched++;
        if (stringWidth(s) !== 2) wrong.push(`U+${cp.toString(16).toUpperCase()}${s.length > c.length ? ' +' : ''}`);
      }
    }
    expect(matched).toBeGreaterThan(1300); // Unicode 15-16: ~1,400 (guards against a pattern that matches nothing)
    expect(wrong).toEqual([]);
  });

  it('measures sequences, text-default symbols and plain text as before', () => {
    const cases: Array<[string, number]> = [
      ['\u{1F468}\u200D\u{1F469}\u200D\u{1F467}', 2], // ZWJ family
      ['\u{1F44D}\u{1F3FD}', 2], // modifier sequence
      ['\u{1F1EB}\u{1F1F7}', 2], // flag
      ['\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}', 2], // tag sequence
      ['1\uFE0F\u20E3', 2], // keycap
      ['\u00A9', 1], // © without VS16: text
      ['\u00A9\uFE0F', 2], // © with VS16: emoji
      ['\u26A0\uFE0F waiting', 10],
      ['autodeck \u00B7 vm \u00B7 20 modules', 26],
      ['\u2500'.repeat(40), 40],
      ['\u203A bench-01 \u2191\u2193', 13],
      ['\u65E5\u672C\u8A9E', 6],
      ['e\u0301', 1],
    ];
    for (const [text, width] of cases) expect(stringWidth(text), JSON.stringify(text)).toBe(width);
  });
});
