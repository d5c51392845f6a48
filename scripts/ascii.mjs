// esbuild's output is ASCII (charset: 'ascii') except inside regular-expression literals,
// which it leaves as they were written (the agents' screen patterns: │ ❯ ⏺ …). One such
// character makes V8 hold the whole bundle's source as two bytes a character for as long
// as the dashboard runs (2 MB instead of 1 MB, docs/performance.md). Each non-ASCII UTF-16
// unit becomes a \uXXXX escape: the same character in a regex (a pair of escaped surrogates
// is one code point under the u flag, and two units without it, as the raw character was),
// a string, a template or a comment. A non-ASCII character right after a backslash would
// become an escaped backslash instead: the build stops on one rather than change a pattern.

/** The source with every character beyond ASCII written as a \uXXXX escape. */
export function escapeNonAscii(source) {
  return source.replace(/(\\*)([^\x00-\x7f])/g, (_, slashes, unit) => {
    if (slashes.length % 2 === 1) throw new Error(`escaped non-ASCII character ${JSON.stringify(unit)} in the bundle: write it as \\u${hex(unit)} in the source`);
    return `${slashes}\\u${hex(unit)}`;
  });
}

const hex = (unit) => unit.charCodeAt(0).toString(16).padStart(4, '0');
