/**
 * The regions of an agent's screen, found by structure before anything is decided:
 * the input box, the status/footer line under it, the spinner block above it,
 * and the bottom of the screen where dialogs and menus sit. Text typed into the input box
 * is cut out here, so it can never decide a kind; conversation lines are kept out of the
 * status region, so the model's prose can never read as a spinner or an interrupt hint.
 */

/** How one agent lays out its screen: data per profile. */
export interface Layout {
  /**
   * The start of an input line, anchored at `^`, up to and including its prompt marker
   * (group 1); what follows on the line is typed text and is cut out.
   */
  inputLine: RegExp;
  /** A line of conversation (the model's or the user's), never a status line. */
  conversation: RegExp;
  /** The first line of a message of the model's (`● text`); its indented lines follow it. */
  message?: RegExp;
  /** An overlay of the agent's own (Claude Code's history search `⌕ Search…`): no status under it. */
  overlay?: RegExp;
  /**
   * The line that ends a turn (`✻ Churned for 5s`): status lines above the newest one are
   * stale (a spinner line left over above it is no longer running).
   */
  doneLine?: RegExp;
  /**
   * The first line of a prompt the user sent or an answer the agent gave (not a status or
   * notice): anything above one is history. Defaults to `message`.
   */
  turn?: RegExp;
}

export interface Regions {
  /** Every line, trailing spaces trimmed, typed input cut out. */
  screen: string;
  /** The last BOTTOM_LINES non-empty lines, typed input cut out: where dialogs wait. */
  bottom: string;
  /** The last non-empty line of `bottom`. */
  last: string;
  /**
   * Where the agent prints its state: the non-conversation lines of the latest block above
   * the input (the spinner line) plus the lines under the input box (the status/footer line).
   */
  status: string;
  /** The latest block of lines above the input, all of them (the agent's latest output). */
  recent: string;
  /** The input line's prompt marker alone (`❯`, `>`, `›`, `ask>`), or '' when there is none. */
  input: string;
  /** What is typed on the input line after the marker (or its placeholder), trimmed. */
  typed: string;
}

/** How many of the last non-empty lines count as "the bottom" of a screen. */
export const BOTTOM_LINES = 12;

/** A rule across the screen: the edges of an input box (`───`, `╭───╮`, `╰───╯`, Gemini CLI's `▄▄▄`/`▀▀▀`). */
const RULE = /^\s*[╭╰]?(?:[─━]{8,}|▄{8,}|▀{8,})[╮╯]?\s*$/;
/** A menu line with its cursor: never an input line. */
const MENU_LINE = /^\s*(?:│\s*)?[❯›>▌●]\s*(?:\d+\.\s|Yes\b)/;
/** How far up from the bottom the input box may be (dialogs and footers are short). */
const SEARCH_LINES = 16;
/** A line made only of a parenthesised spinner statistic: `( 1m · 500 tokens )`. */
const STATS_ONLY = /^\s*\([^()]*\d[^()]*tokens\s*\)\s*$/i;

const trimRight = (line: string): string => line.replace(/[ \t]+$/, '');
const blank = (line: string): boolean => line.trim() === '';

export function findRegions(raw: readonly string[], layout: Layout): Regions {
  const lines = raw.map(trimRight);
  let end = lines.length;
  while (end > 0 && blank(lines[end - 1]!)) end--;
  const nonBlankIdx: number[] = [];
  for (let i = 0; i < end; i++) if (!blank(lines[i]!)) nonBlankIdx.push(i);
  const searchFrom = nonBlankIdx[Math.max(0, nonBlankIdx.length - SEARCH_LINES)] ?? 0;

  // 1. The input line: the bottom-most line that reads as one, in the bottom of the screen.
  let inputAt = -1;
  for (let i = end - 1; i >= searchFrom; i--) {
    if (!MENU_LINE.test(lines[i]!) && layout.inputLine.test(lines[i]!)) { inputAt = i; break; }
  }
  // 2. The box around it (rules right above and below), or the bottom-most pair of rules.
  let top = -1;
  let bottomRule = -1;
  if (inputAt >= 0) {
    for (let j = inputAt - 1; j >= 0 && inputAt - j <= 3; j--) if (RULE.test(lines[j]!)) { top = j; break; }
    for (let j = inputAt + 1; j < end && j - inputAt <= 8; j++) if (RULE.test(lines[j]!)) { bottomRule = j; break; }
    // a rule below it and none above: a dialog drawn under the history, whose `❯ text` line this is
    if (top < 0 && bottomRule >= 0 && !lines.slice(inputAt + 1, bottomRule).every(blank)) {
      inputAt = -1;
      bottomRule = -1;
    }
  }
  if (inputAt < 0) {
    for (let i = end - 1; i >= searchFrom; i--) {
      if (!RULE.test(lines[i]!)) continue;
      if (bottomRule < 0) bottomRule = i;
      else if (bottomRule - i <= 8) { top = i; break; }
      else break;
    }
    if (top < 0) bottomRule = -1; // a lone rule tops a dialog: its lines are the bottom, not a box
  }

  // The typed text is cut out: only the prompt marker stays.
  const shown = lines.slice(0, end);
  let input = '';
  let typed = '';
  if (inputAt >= 0) {
    const m = layout.inputLine.exec(lines[inputAt]!)!;
    input = (m[1] ?? m[0]).trim();
    typed = lines[inputAt]!.slice(m[0].length).trim();
    shown[inputAt] = m[0];
    // a multi-line input: the lines after the input line inside the box are typed text too
    if (bottomRule > inputAt) for (let j = inputAt + 1; j < bottomRule; j++) shown[j] = '';
  }

  // Above the input (or the box): the latest block of output, the spinner line's place.
  const aboveEnd = top >= 0 ? top : inputAt >= 0 ? inputAt : bottomRule >= 0 ? -1 : end;
  const recentLines = aboveEnd >= 0 ? latestBlock(shown, aboveEnd) : [];
  const footer = bottomRule >= 0 ? shown.slice(bottomRule + 1, end).filter((l) => !blank(l)).slice(0, 4)
    : inputAt >= 0 ? shown.slice(inputAt + 1, end).filter((l) => !blank(l)).slice(0, 4) : [];
  // Lines between a pair of rules are the box's content, never status (bottom still sees a dialog there).
  const isStatus = (l: string): boolean => STATS_ONLY.test(l) || !layout.conversation.test(l);
  // No input line and no box (a cropped or older screen): every non-conversation line at the bottom.
  const unframed = inputAt < 0 && bottomRule < 0 && top < 0;
  const current = layout.doneLine ? afterLast(recentLines, layout.doneLine) : recentLines;
  const statusLines = unframed ? bottomOf(shown, BOTTOM_LINES).filter(isStatus) : [...current.filter(isStatus), ...footer];

  // The model's messages never hold a dialog: they are left out of the bottom.
  const unsaid = layout.message ? withoutMessages(shown, layout.message) : shown;
  const bottomLines = bottomOf(unsaid, BOTTOM_LINES);
  const overlaid = layout.overlay !== undefined && unsaid.some((l) => layout.overlay!.test(l));
  return {
    screen: shown.join('\n'),
    bottom: bottomLines.join('\n'),
    last: bottomLines[bottomLines.length - 1] ?? '',
    status: overlaid ? '' : statusLines.join('\n'),
    recent: recentLines.join('\n'),
    input,
    typed,
  };
}

/**
 * The last contiguous block of non-empty lines before `end`, skipping empty lines, rules
 * and bare prompt markers right above it: older output further up is history.
 */
function latestBlock(lines: readonly string[], end: number): string[] {
  let last = end - 1;
  while (last >= 0 && (blank(lines[last]!) || RULE.test(lines[last]!) || /^\s*[❯>›]\s*$/.test(lines[last]!))) last--;
  let first = last;
  while (first > 0 && !blank(lines[first - 1]!) && !RULE.test(lines[first - 1]!) && last - first < 15) first--;
  return last < 0 ? [] : lines.slice(first, last + 1);
}

/** The lines after the last one that matches (all of them when none does): the newest status wins. */
function afterLast(lines: readonly string[], re: RegExp): readonly string[] {
  for (let i = lines.length - 1; i >= 0; i--) if (re.test(lines[i]!)) return lines.slice(i + 1);
  return lines;
}

/** The last `n` non-empty lines. */
function bottomOf(lines: readonly string[], n: number): string[] {
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < n; i--) if (!blank(lines[i]!)) out.unshift(lines[i]!);
  return out;
}

/** The lines with each message block (its first line and the indented lines under it) blanked. */
function withoutMessages(lines: readonly string[], message: RegExp): string[] {
  const out = [...lines];
  for (let i = 0; i < out.length; i++) {
    if (!message.test(out[i]!)) continue;
    out[i] = '';
    while (i + 1 < out.length && /^\s{2,}\S/.test(out[i + 1]!) && !RULE.test(out[i + 1]!)) out[++i] = '';
  }
  return out;
}
