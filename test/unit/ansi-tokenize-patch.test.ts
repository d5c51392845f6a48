import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ansiCodesToString, diffAnsiCodes, styledCharsFromTokens, styledCharsToString, tokenize } from '@alcalzone/ansi-tokenize';

// patches/@alcalzone+ansi-tokenize: Ink turns every cell of every frame back into a string
// with styledCharsToString; the patch skips the per-cell style diff when two neighbours are
// styled alike (start-up: the first frame, docs/performance.md). Its output must be the
// original's, byte for byte. The original, as published in 0.2.5:
type Chars = ReturnType<typeof styledCharsFromTokens>;
function original(chars: Chars): string {
  let ret = '';
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (i === 0) ret += ansiCodesToString(char.styles);
    else ret += ansiCodesToString(diffAnsiCodes(chars[i - 1]!.styles, char.styles));
    ret += char.value;
    if (i === chars.length - 1) ret += ansiCodesToString(diffAnsiCodes(char.styles, []));
  }
  return ret;
}

const SGR = ['0', '1', '2', '22', '3', '23', '4', '24', '7', '27', '31', '32', '39', '41', '49', '38;5;208', '48;2;10;20;30', '90'];
const piece = fc.oneof(
  fc.constantFrom(...SGR).map((c) => `\x1b[${c}m`),
  fc.constantFrom('a', 'b', ' ', '─', '▶', '日'),
  fc.constant('\x1b]8;;https://example.invalid\x07'), fc.constant('\x1b]8;;\x07'),
);

describe('the styledCharsToString patch', () => {
  it('is patched (the fast path is in)', () => {
    expect(styledCharsToString.toString()).toContain('sameCodes');
  });

  it('gives what the original gives, for any run of styled text', () => {
    fc.assert(fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
      const chars = styledCharsFromTokens(tokenize(pieces.join('')));
      expect(styledCharsToString(chars)).toBe(original(chars));
    }), { numRuns: 2000 });
  });

  it('a row of plain spaces and one of a single style gain no codes between cells', () => {
    const plain = styledCharsFromTokens(tokenize('   abc   '));
    expect(styledCharsToString(plain)).toBe('   abc   ');
    const red = styledCharsFromTokens(tokenize('\x1b[31mabc\x1b[39m'));
    expect(styledCharsToString(red)).toBe(original(red));
  });
});
