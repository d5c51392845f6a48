import { findOption, keysFor, readMenu, type Menu } from './menu.js';
import { printableLine } from '../policy/screenRequest.js';
import type { DialogRule } from './profiles.js';

/**
 * The agents' own dialogs, answered by the label of the option chosen, never by position:
 * - Claude Code's table (readDialog): offers that would change the user's settings, the
 *   first-run trust and API-key dialogs, the auto mode notices, answered with the option
 *   that keeps things as they are or with what the user consented to;
 * - a profile's dialog rules (dialogAnswer): Codex CLI's and Gemini CLI's menus answered at
 *   once, and a quota dialog's retry answered when a quota wait probes.
 * Any other dialog is never answered: it is "needs you". Pure.
 */

/*
 * Claude Code's own dialogs that are not a tool's permission prompt nor the model's
 * question: offers that would change the user's settings beyond this session, the
 * first-run trust and API-key dialogs, the auto mode notices. Each is recognised by its
 * words and structure; autodeck answers one only by choosing the option that keeps things
 * as they are, by its label (the arrow keys where the menu has no numbers). The trust,
 * API-key and bypass dialogs are accepted only where the user said so. Any dialog not in
 * this table is never answered: it is "needs you" with its text.
 */

export type DialogId =
  | 'auto-default-offer' | 'auto-mode-unavailable' | 'teach-auto-mode' | 'fullscreen-offer'
  | 'trust-folder' | 'api-key' | 'bypass-warning';

/** What the user said autodeck may accept on their behalf (each answer changes their own files). */
export interface DialogConsent {
  /** The user recorded this project as trusted (`autodeck init` in it). */
  trustedProject?: boolean | undefined;
  /** The user chose bypassPermissions for supervised sessions. */
  bypassPermissions?: boolean | undefined;
}

export interface Dialog {
  id: DialogId;
  /** The dialog's title or question, one printable line. */
  text: string;
  /** The writes that give the answer autodeck may give here; absent: a person must answer. */
  keys?: string[] | undefined;
  /** The option or key chosen, as a person reads it (for the event log). */
  choice?: string | undefined;
}

interface ClaudeDialogRule {
  id: DialogId;
  /** Recognises the dialog: in the lines just above its menu, or (menu: false) in its last line. */
  test: RegExp;
  /** Whether it draws a menu (most do); one without is recognised by its footer, the last line. */
  menu?: false;
  /** The line that names it (for the person), a regex whose match is shown; else `test`'s. */
  title?: RegExp;
  /** How to answer: the option that keeps things as they are, or one allowed by consent. */
  answer(menu: Menu | undefined, bottom: string, consent: DialogConsent): { keys: string[]; choice: string } | undefined;
}

const byLabel = (label: RegExp) => (menu: Menu | undefined): { keys: string[]; choice: string } | undefined => {
  if (!menu) return undefined;
  const i = findOption(menu, label);
  return i < 0 ? undefined : { keys: keysFor(menu, i), choice: menu.options[i]!.label };
};

const RULES: readonly ClaudeDialogRule[] = [
  {
    // 2.1.332, a user whose default mode is manual: `❯ Yes, set auto mode as my default permission mode` preselected
    id: 'auto-default-offer',
    test: /Make auto mode your default permission mode\?/,
    answer: byLabel(/^No\b/),
  },
  {
    // 2.1.332 behind a gateway: no numbered menu, a footer `Enter to stay in auto mode · shift+Tab to leave … · Esc to cancel`
    id: 'auto-mode-unavailable',
    test: /^\s*Enter to stay in auto mode\b/,
    menu: false,
    title: /Auto mode can't check actions[^\n]*/,
    answer: (_menu, bottom) => (/Enter to stay in auto mode/.test(bottom) ? { keys: ['\r'], choice: 'stay in auto mode (Enter)' } : undefined),
  },
  {
    // Yes / Not now / Don't show again: "Don't show again" is a setting
    id: 'teach-auto-mode',
    test: /Teach auto mode about your environment\?/,
    answer: byLabel(/^Not now\b/),
  },
  {
    // `Try the new fullscreen renderer?` with `Yes, try it` / `Not now`: Yes switches the renderer in the settings
    id: 'fullscreen-offer',
    test: /Try the (?:new )?fullscreen renderer\?/,
    answer: (menu, bottom) => byLabel(/^Not now\b/)(menu) ?? (/Not now/.test(bottom) ? { keys: ['\x1b'], choice: 'Not now (Esc)' } : undefined),
  },
  {
    // 2.1.197 `❯ 1. Yes, I trust this folder`; 2.1.332 a menu without numbers, `❯ No, exit` preselected
    id: 'trust-folder',
    test: /Yes, I trust this (?:folder|directory)|Do you trust the files in this folder\?|Trust this directory\?/,
    title: /(?:Accessing workspace:|Do you trust the files in this folder\?|Trust this directory\?)[^\n]*/,
    answer: (menu, _bottom, consent) => (consent.trustedProject ? byLabel(/^Yes\b.*\btrust\b/i)(menu) : undefined),
  },
  {
    id: 'api-key',
    test: /Do you want to use this API key\?/,
    answer: () => undefined,
  },
  {
    id: 'bypass-warning',
    test: /running in Bypass Permissions mode/,
    title: /[^\n]*running in Bypass Permissions mode/,
    answer: (menu, _bottom, consent) => (consent.bypassPermissions ? byLabel(/^Yes, I accept\b/)(menu) : undefined),
  },
];

/** How many of the last lines a dialog may take. */
const DIALOG_LINES = 30;
/** How far above its first option a dialog's words may be (a trust dialog explains itself at length). */
const ABOVE_MENU = 14;

/**
 * The dialog of this table on the screen, if any, with the answer autodeck may give. Its
 * words count only where the dialog is drawn — above the live menu at the bottom, or as the
 * footer on the last line — so the conversation quoting them is no dialog.
 */
export function readDialog(raw: readonly string[], consent: DialogConsent = {}): Dialog | undefined {
  const lines = raw.map((l) => l.replace(/\s+$/, ''));
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === '') end--;
  const bottomLines = lines.slice(Math.max(0, end - DIALOG_LINES), end);
  const bottom = bottomLines.join('\n');
  const menu = readMenu(bottomLines, DIALOG_LINES);
  const framed = menu ? bottomLines.slice(Math.max(0, menu.options[0]!.line - ABOVE_MENU)).join('\n') : '';
  const last = bottomLines[bottomLines.length - 1] ?? '';
  const rule = RULES.find((r) => (r.menu === false ? r.test.test(last) : menu !== undefined && r.test.test(framed)));
  if (!rule) return undefined;
  const named = (rule.title ?? rule.test).exec(rule.menu === false ? bottom : framed);
  const text = printableLine(named ? named[0] : rule.id);
  const answer = rule.answer(menu, bottom, consent);
  return answer ? { id: rule.id, text, keys: answer.keys, choice: answer.choice } : { id: rule.id, text };
}

/*
 * Dialogs a profile answers itself by its dialog rules (profiles.ts, codex/, gemini/): the
 * menus of Codex CLI and Gemini CLI that only hide the prompt, and a quota dialog's retry.
 * A menu's options are read from the screen: the option whose label the rule names is
 * reached with the arrow keys from the highlighted one, then Enter. A rule whose option is
 * not on the screen answers nothing: a dialog autodeck does not know is never answered with
 * a guess.
 */

export interface DialogAnswer {
  name: string;
  /** Each its own write. */
  keys: string[];
  when: DialogRule['when'];
}

const DOWN = '\x1b[B';
const UP = '\x1b[A';

/** A numbered option, with the highlight when it has one (`› 1. Yes`, `│ ● 2. Stop │`). */
const OPTION = /^\s*(?:│\s*)?([❯›>●▌])?\s*(\d+)\.\s+(.*?)\s*(?:│\s*)?$/;

export interface LabelledOption {
  n: number;
  label: string;
  highlighted: boolean;
}

/** A line with nothing but a box's borders and spaces. */
const BLANK = /^[\s│]*$/;

/**
 * The numbered options of the menu with the highlight, in screen order: the block of lines
 * around the highlighted option up to a blank line on either side (a numbered list elsewhere
 * on the screen, the start-up tips, is no part of it). A description line under an option is
 * skipped.
 */
export function menuOptions(text: string): LabelledOption[] {
  const lines = text.split('\n');
  const cursor = lines.findIndex((l) => OPTION.exec(l)?.[1] !== undefined);
  if (cursor < 0) return [];
  let first = cursor;
  while (first > 0 && !BLANK.test(lines[first - 1]!)) first--;
  let last = cursor;
  while (last + 1 < lines.length && !BLANK.test(lines[last + 1]!)) last++;
  const out: LabelledOption[] = [];
  for (const line of lines.slice(first, last + 1)) {
    const m = OPTION.exec(line);
    if (m) out.push({ n: Number(m[2]), label: m[3]!.trim(), highlighted: m[1] !== undefined });
  }
  return out;
}

/** The keys that move the highlight to the option whose label matches, then choose it; undefined when it is not there. */
export function keysForLabel(text: string, label: RegExp): string[] | undefined {
  const options = menuOptions(text);
  const target = options.findIndex((o) => label.test(o.label));
  const cursor = options.findIndex((o) => o.highlighted);
  if (target < 0 || cursor < 0) return undefined;
  const step = target > cursor ? DOWN : UP;
  return [...Array<string>(Math.abs(target - cursor)).fill(step), '\r'];
}

/** The first rule that matches the bottom of the screen, with the keys that answer it. */
export function dialogAnswer(rules: readonly DialogRule[], bottom: string): DialogAnswer | undefined {
  for (const rule of rules) {
    if (!rule.match.test(bottom)) continue;
    const keys = rule.keys ? [...rule.keys] : rule.choose ? keysForLabel(bottom, rule.choose) : undefined;
    if (keys) return { name: rule.name, keys, when: rule.when };
  }
  return undefined;
}
