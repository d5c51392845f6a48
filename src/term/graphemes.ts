// Intl.Segmenter for the dashboard bundle, which puts this class in its place
// (scripts/bundle.mjs: esbuild's define and inject). Ink and its text libraries (string-width,
// slice-ansi, ansi-tokenize) each build a grapheme segmenter as they load and run every line
// of every frame through it. The first one loads ICU: 12-22 ms of the first frame and 2.6 MB
// resident, for text that is almost always one character to a grapheme (docs/performance.md).
// Text made only of characters that never join a neighbour is segmented here,
// one UTF-16 unit to a grapheme, as ICU would (test/unit/graphemes.test.ts checks every one of
// them against ICU); anything else, and every other granularity, goes to the real segmenter,
// built on first need.

/**
 * Characters that are a grapheme alone whatever stands next to them: none is a combining or
 * spacing mark, a joiner, a prepended concatenation mark, a Hangul jamo or syllable, a
 * regional indicator or a carriage return (the Unicode rules that join two characters,
 * UAX #29). All in the Basic Multilingual Plane, so one unit is one character. ASCII but CR,
 * Latin, Greek, Cyrillic, punctuation, symbols, arrows, box drawing, blocks, shapes,
 * dingbats, Braille, CJK punctuation, kana and ideographs, fullwidth forms.
 */
const ALONE = /^[\0-\x0c\x0e-\u02ff\u0370-\u0482\u048a-\u052f\u2000-\u200b\u200e-\u20cf\u2100-\u2bff\u3000-\u3029\u3030-\u3098\u309b-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff01-\uff60]*$/;

/** True when `text` holds only characters that are a grapheme each. */
export const oneUnitPerGrapheme = (text: string): boolean => ALONE.test(text);

interface SegmentData {
  segment: string;
  index: number;
  input: string;
}

/** The Segments of a text of lone characters: each unit one grapheme. */
class UnitSegments implements Iterable<SegmentData> {
  constructor(private readonly input: string) {}

  containing(codeUnitIndex?: number): SegmentData | undefined {
    const index = Math.trunc(Number(codeUnitIndex ?? 0)) || 0;
    if (index < 0 || index >= this.input.length) return undefined;
    return { segment: this.input[index]!, index, input: this.input };
  }

  *[Symbol.iterator](): Iterator<SegmentData> {
    const { input } = this;
    for (let index = 0; index < input.length; index++) yield { segment: input[index]!, index, input };
  }
}

/** Intl.Segmenter's shape, grapheme by default as it is; ICU's segmenter only when the text needs it. */
export class LazyGraphemeSegmenter {
  private real: Intl.Segmenter | undefined;
  private readonly graphemes: boolean;

  constructor(private readonly locales?: string | string[], private readonly options?: Intl.SegmenterOptions) {
    this.graphemes = (options?.granularity ?? 'grapheme') === 'grapheme';
  }

  static supportedLocalesOf(locales: string | string[], options?: { localeMatcher?: 'lookup' | 'best fit' }): string[] {
    return globalThis.Intl.Segmenter.supportedLocalesOf(locales, options);
  }

  segment(input: string): UnitSegments | Intl.Segments {
    const text = String(input);
    if (this.graphemes && oneUnitPerGrapheme(text)) return new UnitSegments(text);
    return this.icu().segment(text);
  }

  resolvedOptions(): Intl.ResolvedSegmenterOptions {
    return this.icu().resolvedOptions();
  }

  private icu(): Intl.Segmenter {
    this.real ??= new globalThis.Intl.Segmenter(this.locales, this.options);
    return this.real;
  }
}
