import { SCREEN_KINDS, type Profile, type ScreenKind, type ScreenPattern } from './profiles.js';
import { findQuotaStop } from './quota.js';
import { findRegions, type Layout, type Regions } from './regions.js';
import { dialogAnswer, readDialog, type DialogAnswer } from './dialogs.js';
import { keysFor, readMenu } from './menu.js';

export interface Classification {
  kind: ScreenKind;
  /** The pattern that decided it (none for `unknown` and for quota found by the quota parser). */
  pattern?: ScreenPattern;
  /** The quota line, when kind is `quota`, and its reset clause (which may wrap onto the next lines). */
  quotaLine?: string;
  quotaReset?: string;
  /** A generic rate limit with no reset: transient, waited out with a growing back-off. */
  quotaTransient?: boolean;
  /** The agent scheduled its own resume at the reset (nothing is to be typed). */
  quotaSelfResume?: boolean;
  /** The command the agent did not know, when kind is `unknown_command` (`/ai-cli-task`). */
  command?: string;
  /** A dialog of the profile's own that autodeck answers (dialogs.ts): at once, or when a quota wait probes. */
  dialog?: DialogAnswer;
  /** What sits typed on the input line, not sent (or the input's placeholder), when anything does. */
  typed?: string;
}

/**
 * What a captured screen shows. The screen is first cut into the profile's
 * regions (regions.ts: input line, status/footer, spinner block, bottom), then the first
 * kind in SCREEN_KINDS order with a pattern matching its region wins: prompts before busy
 * (a dialog is modal), busy before idle (a working agent still shows its input box). The
 * quota parser runs on the whole screen with the typed input cut out. Pure.
 */
export function classifyScreen(profile: Profile, lines: readonly string[]): Classification {
  const regions = findRegions(lines, profile.layout);
  const c = regions.typed ? { ...byKind(profile, regions), typed: regions.typed } : byKind(profile, regions);
  const dialog = profile.dialogs ? dialogAnswer(profile.dialogs, lastLines(regions.screen, DIALOG_LINES)) : undefined;
  if (!dialog) return c;
  // a dialog answered at once is what the screen waits on, unless a quota stop is there too (its wait comes first)
  if (dialog.when === 'now') return c.kind === 'quota' ? { ...c, dialog } : { kind: 'continue_prompt', dialog };
  return c.kind === 'quota' ? { ...c, dialog } : c;
}

function byKind(profile: Profile, regions: Regions): Classification {
  for (const kind of SCREEN_KINDS) {
    if (kind === 'quota') {
      const found = findQuotaStop(regions.screen);
      // a stop line with a prompt or an answer after it is history: the agent went on since
      if (found && !newerTurn(regions.screen, found.at, profile.layout)) {
        return {
          kind, quotaLine: found.line, ...(found.resetText ? { quotaReset: found.resetText } : {}),
          ...(found.transient ? { quotaTransient: true } : {}), ...(found.selfResume ? { quotaSelfResume: true } : {}),
        };
      }
    }
    for (const pattern of profile.patterns) {
      if (pattern.kind !== kind) continue;
      const text = regions[pattern.region];
      const m = pattern.regex.exec(text);
      if (!m) continue;
      if (kind === 'quota') return { kind, pattern, quotaLine: matchedLine(text, pattern.regex) };
      if (kind === 'unknown_command') return { kind, pattern, command: (m[1] ?? '').trim() };
      return { kind, pattern };
    }
  }
  return { kind: 'unknown' };
}

/** How many of the last non-empty lines a dialog rule looks at: a sign-in dialog is taller than the bottom region. */
const DIALOG_LINES = 24;

function lastLines(text: string, n: number): string {
  return text.split('\n').filter((l) => l.trim() !== '').slice(-n).join('\n');
}

/** Whether a prompt the user sent or an answer the agent gave starts below line `at` of `text`. */
function newerTurn(text: string, at: number, layout: Layout): boolean {
  const turn = layout.turn ?? layout.message;
  if (!turn) return false;
  const lines = text.split('\n');
  for (let i = at + 1; i < lines.length; i++) if (turn.test(lines[i]!)) return true;
  return false;
}

/** The regions of a screen as the profile cuts it (for tools and tests). */
export function screenRegions(profile: Profile, lines: readonly string[]): Regions {
  return findRegions(lines, profile.layout);
}

function matchedLine(text: string, regex: RegExp): string {
  const m = regex.exec(text);
  if (!m) return '';
  const start = text.lastIndexOf('\n', m.index) + 1;
  const end = text.indexOf('\n', m.index);
  return text.slice(start, end === -1 ? undefined : end).trim();
}

/** A menu line with the cursor on it: `❯ 2. No`. */
const MENU_CURSOR = /^\s*(?:│\s*)?[❯›>●▌]\s*(\d+)\.\s/m;
/** Every numbered option of a menu, with its label. */
const MENU_OPTION = /^\s*(?:│\s*)?(?:[❯›>●▌]\s*)?(\d+)\.\s+([^\n]*)$/gm;
/** An option that says yes. */
const YES_ONCE = /^Yes\b/i;
/** A yes that lasts beyond this one call (a rule, a mode, a default): never chosen for the user. */
const LASTING = /\b(?:always|don['’]t ask again|do not ask again|switch(?:es)? to|default|from now on|for (?:this|the) (?:session|project)|all\b)/i;

/** An option that refuses or quits. */
const REFUSAL = /^(?:No\b|Deny\b|Cancel\b|Exit\b|Quit\b|Reject\b)/i;

/**
 * The writes that answer a prompt, each its own write (a composer swallows an Enter
 * that arrives in the same write as the text). Undefined: nothing to send.
 */
export function answerKeys(profile: Profile, c: Classification, lines: readonly string[]): string[] | undefined {
  if (c.dialog?.when === 'now') return [...c.dialog.keys];
  switch (c.kind) {
    case 'permission_prompt': {
      // Claude Code's own dialogs (trust, API key, offers) are answered by dialogs.ts, with consent, or by a person.
      if (profile.name === 'claude' && readDialog(lines)) return readDialog(lines)!.keys;
      // A menu read by its labels: the plain "Yes" (this once), by its number or the arrows.
      const menu = profile.name === 'codex' ? undefined : readMenu(lines);
      if (menu) {
        const yes = menu.options.findIndex((o) => YES_ONCE.test(o.label) && !LASTING.test(o.label));
        if (yes >= 0) return keysFor(menu, yes);
      }
      // Enter takes the highlighted option; when the cursor is not on "1. Yes", choose 1 directly.
      const text = lines.join('\n');
      const cursor = MENU_CURSOR.exec(text);
      // The highlighted option refuses or quits (`❯ 1. No, exit`): choose the first "Yes" by its number.
      const options = [...text.matchAll(MENU_OPTION)].map((m) => ({ n: m[1]!, label: m[2]!.trim() }));
      const current = cursor ? options.find((o) => o.n === cursor[1]) : undefined;
      if (current && REFUSAL.test(current.label)) {
        const yes = options.find((o) => /^Yes\b/i.test(o.label));
        if (yes) return [yes.n];
      }
      if (cursor && cursor[1] !== '1') return ['1'];
      // Codex names its keys: `Yes, proceed (y)`; otherwise Enter takes the highlighted "Yes".
      return profile.name === 'codex' && /\(y\)/.test(text) ? ['y'] : ['\r'];
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
