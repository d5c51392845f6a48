import { BOTTOM_LINES, SCREEN_KINDS, type Profile, type Region, type ScreenKind, type ScreenPattern } from './profiles.js';
import { findQuotaMessage } from './quota.js';

export interface Classification {
  kind: ScreenKind;
  /** The pattern that decided it (none for `unknown` and for quota found by the quota parser). */
  pattern?: ScreenPattern;
  /** The quota line, when kind is `quota`, and its reset clause (which may wrap onto the next lines). */
  quotaLine?: string;
  quotaReset?: string;
}

/** Trailing spaces and tabs only: a no-break space after `❯` is Claude Code's idle mark. */
const trimRight = (line: string): string => line.replace(/[ \t]+$/, '');
const blank = (line: string): boolean => /^[ \t]*$/.test(line);

/** The last `n` non-empty lines: where a program waits for an answer. */
export function bottomOf(lines: readonly string[], n = BOTTOM_LINES): string {
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < n; i--) {
    if (!blank(lines[i]!)) out.unshift(trimRight(lines[i]!));
  }
  return out.join('\n');
}

function regionText(region: Region, screen: string, bottom: string): string {
  if (region === 'screen') return screen;
  if (region === 'bottom') return bottom;
  return bottom.slice(bottom.lastIndexOf('\n') + 1);
}

/**
 * What a captured screen shows (SPEC 5.3): the first kind, in SCREEN_KINDS order, with a
 * matching pattern. A pure function of the screen text; the table is the profile's.
 */
export function classifyScreen(profile: Profile, lines: readonly string[]): Classification {
  const screen = lines.map(trimRight).join('\n');
  const bottom = bottomOf(lines);
  for (const kind of SCREEN_KINDS) {
    if (kind === 'quota') {
      const found = findQuotaMessage(screen);
      if (found) return found.resetText ? { kind, quotaLine: found.line, quotaReset: found.resetText } : { kind, quotaLine: found.line };
    }
    for (const pattern of profile.patterns) {
      if (pattern.kind !== kind) continue;
      if (pattern.regex.test(regionText(pattern.region, screen, bottom))) {
        return kind === 'quota' ? { kind, pattern, quotaLine: matchedLine(screen, pattern.regex) } : { kind, pattern };
      }
    }
  }
  return { kind: 'unknown' };
}

function matchedLine(text: string, regex: RegExp): string {
  const m = regex.exec(text);
  if (!m) return '';
  const start = text.lastIndexOf('\n', m.index) + 1;
  const end = text.indexOf('\n', m.index);
  return text.slice(start, end === -1 ? undefined : end).trim();
}

/** A menu line with the cursor on it: `❯ 2. No`. */
const MENU_CURSOR = /^\s*[❯›>●]\s*(\d+)\.\s/m;

/**
 * The writes that answer a prompt, each its own write (a composer swallows an Enter
 * that arrives in the same write as the text). Undefined: nothing to send.
 */
export function answerKeys(profile: Profile, c: Classification, lines: readonly string[]): string[] | undefined {
  switch (c.kind) {
    case 'permission_prompt': {
      // Enter takes the highlighted option; when the cursor is not on "1. Yes", choose 1 directly.
      const cursor = MENU_CURSOR.exec(lines.join('\n'));
      if (cursor && cursor[1] !== '1') return ['1'];
      return profile.name === 'codex' ? ['y'] : ['\r'];
    }
    case 'yes_no_prompt':
      return ['y', '\r'];
    case 'continue_prompt':
      return ['\r'];
    case 'quota':
      // Claude Code's own menu about the limit: its first option is to wait.
      return /Stop and wait for limit to reset/.test(lines.join('\n')) ? ['1'] : undefined;
    default:
      return undefined;
  }
}
