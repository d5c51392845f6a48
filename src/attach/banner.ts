/**
 * The line attach mode keeps on the terminal's last row: the key that comes back and which
 * agent this is (`Ctrl-Q: back to autodeck · attached to auto-fix-login-1`). The
 * agent gets one row less (its pty is resized to it) and the terminal a scroll region above
 * the line, so the agent's scrolling never moves it; the agent's own region resets are kept
 * off it (keepRegion). What erases that row (clearing the screen or below the cursor, the
 * other screen, a full reset) has the line drawn again. Pure: the bytes, and when they are due.
 */

/** Below this many rows the agent's screen is too small to give one up: no line. */
export const MIN_BANNER_ROWS = 4;

/** What erases the line: ED 0/2/3 (from the cursor down, all), the other screen, RIS. */
const ERASES_LAST_ROW = /\x1b\[[023]?J|\x1b\[\?(?:1049|1047|47)[hl]|\x1bc/;
/** What gives the scroll region back to the whole terminal: DECSTBM, the other screen, RIS. */
const REGION = /\x1b\[(\d*)(?:;(\d*))?r|\x1b\[\?(?:1049|1047|47)[hl]|\x1bc/g;

/** The way back first: a narrow terminal cuts the session's name, not the key. */
export function bannerText(session: string, detachKey: string): string {
  return `${detachKey}: back to autodeck · attached to ${session}`;
}

/** Whether the agent's bytes may have erased the line: it is drawn again once they are parsed. */
export function touchesBanner(chunk: string): boolean {
  return ERASES_LAST_ROW.test(chunk);
}

/**
 * The agent's bytes for a terminal `rows` tall whose last row is the line: a scroll region
 * reset to the whole terminal (`CSI r`; a bottom at or past the line) keeps the line out
 * of it, in the same sequence, so text that scrolls right after it within the chunk never
 * moves the line (DECSTBM homes the cursor either way: the agent's screen is the same). A
 * full reset and a switch of screen are followed by the region again (the switch's cursor
 * kept: DECSC/DECRC, the slot the switch itself used). A sequence cut across two chunks
 * goes as it is.
 */
export function keepRegion(chunk: string, rows: number): string {
  const bottom = rows - 1;
  return chunk.replace(REGION, (seq: string, top?: string, end?: string) => {
    if (seq === '\x1bc') return `${seq}\x1b[1;${bottom}r`;
    if (seq.startsWith('\x1b[?')) return `${seq}\x1b7\x1b[1;${bottom}r\x1b8`;
    const b = Number(end || 0);
    if (b > 0 && b <= bottom) return seq;
    const t = Number(top || 1);
    return t < bottom ? `\x1b[${t};${bottom}r` : seq;
  });
}

/**
 * The bytes that (re)draw the line at the foot of a `rows` x `cols` terminal: the scroll
 * region above it, the line in reverse video (one column short of the edge: no pending
 * wrap), then the cursor back where the agent left it (0-based, from its emulator).
 * Only the reverse attribute is switched, and back: the agent's colours stay as they were.
 */
export function bannerBytes(text: string, rows: number, cols: number, cursor: { x: number; y: number }): string {
  const width = Math.max(0, cols - 1);
  const shown = [...text].length > width ? `${[...text].slice(0, Math.max(0, width - 1)).join('')}…` : text;
  const line = shown + ' '.repeat(Math.max(0, width - [...shown].length));
  const y = Math.min(cursor.y, rows - 2);
  return `\x1b[1;${rows - 1}r\x1b[${rows};1H\x1b[7m${line}\x1b[27m\x1b[${y + 1};${cursor.x + 1}H`;
}
