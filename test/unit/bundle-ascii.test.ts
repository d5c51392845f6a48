import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { escapeNonAscii } from '../../scripts/ascii.mjs';

// The bundles' post-pass (scripts/ascii.mjs): regex literals keep their meaning once their
// characters beyond ASCII are escaped, so V8 can hold the dashboard's source one byte a character.

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/** Evaluates `code` (an expression) in a fresh context. */
const run = (code: string): unknown => runInNewContext(`(${code})`);

describe('escapeNonAscii', () => {
  const cases: { regex: string; inputs: string[] }[] = [
    { regex: String.raw`/^\s*[╭╰]?(?:[─━]{8,})[╮╯]?\s*$/`, inputs: ['╭────────╮', '────', '  ━━━━━━━━━━  ', 'x────────'] },
    { regex: String.raw`/^ ?(?:│\s*)?([❯>])(?=[\s\u00a0]|$)/`, inputs: ['❯ go', '│ > x', ' ❯', '» no'] },
    { regex: String.raw`/^(todo|tbd|\.\.\.|…)$/i`, inputs: ['…', 'TODO', '...', '……'] },
    // astral characters: two units without the u flag, one code point with it
    { regex: '/^[⏺🔥]$/', inputs: ['🔥', '⏺', '\ud83d', 'x'] },
    { regex: '/^[⏺🔥]$/u', inputs: ['🔥', '⏺', '\ud83d', 'x'] },
    { regex: '/(?<![\\s\\S])(?![\\s\\S]*⌕ Search…)ok/m', inputs: ['ok', 'ok ⌕ Search…', 'no'] },
  ];

  it('leaves only ASCII, and every regex matches what it matched before', () => {
    for (const { regex, inputs } of cases) {
      const escaped = escapeNonAscii(regex);
      expect(escaped).toMatch(/^[\x00-\x7f]*$/);
      const before = run(regex) as RegExp;
      const after = run(escaped) as RegExp;
      expect(after.flags).toBe(before.flags);
      for (const input of inputs) expect(after.test(input), `${regex} on ${JSON.stringify(input)}`).toBe(before.test(input));
    }
  });

  it('keeps strings, templates and ASCII code as they were', () => {
    const code = '[`│ ${1 + 1} ❯`, "…\\n", \'a\\\\\', /\\d+/.source]';
    expect(run(escapeNonAscii(code))).toEqual(run(code));
    expect(escapeNonAscii('const a = /\\d+/g; // plain')).toBe('const a = /\\d+/g; // plain');
  });

  it('stops on a non-ASCII character right after a backslash rather than change it', () => {
    expect(() => escapeNonAscii('/\\…/')).toThrow(/escaped non-ASCII character/);
    expect(escapeNonAscii('/\\\\…/')).toBe('/\\\\\\u2026/');
  });
});

describe('the built bundles', () => {
  it('are ASCII only (npm test builds them first)', () => {
    for (const file of ['dashboard.bundle.js', 'cli/hook.cjs', 'cli/permission.cjs', 'cli/status.cjs', 'cli/cli.js']) {
      const text = readFileSync(`${DIST}${file}`, 'utf8');
      const at = text.search(/[^\x00-\x7f]/);
      expect(at, `${file}: ${text.slice(Math.max(0, at - 40), at + 10)}`).toBe(-1);
    }
  });
});
