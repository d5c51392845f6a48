/** Longest notification text, in characters (code points): a status line or a desktop toast. */
export const MAX_NOTIFY_LENGTH = 200;

/**
 * Escape sequences as a terminal would parse them, removed whole so no parameter junk is
 * left behind: CSI (7- and 8-bit), terminated string sequences (OSC, DCS, SOS, PM, APC),
 * and the short ESC sequences (`ESC c`, `ESC ( B`).
 */
const ESCAPE_SEQUENCES = new RegExp(
  [
    '\\x1b\\[[0-?]*[ -/]*[@-~]',
    '\\x9b[0-?]*[ -/]*[@-~]',
    '(?:\\x1b[\\]PX^_]|[\\x90\\x98\\x9d\\x9e\\x9f])[^\\x07\\x1b\\x9c]*(?:\\x07|\\x1b\\\\|\\x9c)',
    '\\x1b[ -/]*[0-~]',
  ].join('|'),
  'g',
);

/**
 * What is left after that: every control character (C0, DEL, C1 — a UTF-8 terminal may
 * act on C1 too), line and paragraph separators, and the bidirectional overrides that
 * could make a name read as something else. Each becomes a space.
 */
const UNSAFE = /[\p{Cc}\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Notification text safe to put inside a terminal escape sequence or a tmux message:
 * no control character at all (so no BEL, ESC or ST can end an OSC early or start a new
 * sequence), whitespace collapsed to single spaces, at most `max` characters. Module
 * names and agent output are not ours to trust.
 */
export function cleanText(text: string, max = MAX_NOTIFY_LENGTH): string {
  const flat = text.replace(ESCAPE_SEQUENCES, '').replace(UNSAFE, ' ').replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat); // by code point: never half a surrogate pair
  return chars.length <= max ? flat : `${chars.slice(0, Math.max(0, max - 1)).join('').trimEnd()}…`;
}
