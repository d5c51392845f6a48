import type { DialogRule } from './profiles.js';

/**
 * Dialogs a profile answers itself, by their label (dialog rules: profiles.ts, codex/,
 * gemini/). A menu's options are read from the screen: the option whose label the rule
 * names is reached with the arrow keys from the highlighted one, then Enter. A rule whose
 * option is not on the screen answers nothing: a dialog autodeck does not know is never
 * answered with a guess. Pure.
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

export interface MenuOption {
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
export function menuOptions(text: string): MenuOption[] {
  const lines = text.split('\n');
  const cursor = lines.findIndex((l) => OPTION.exec(l)?.[1] !== undefined);
  if (cursor < 0) return [];
  let first = cursor;
  while (first > 0 && !BLANK.test(lines[first - 1]!)) first--;
  let last = cursor;
  while (last + 1 < lines.length && !BLANK.test(lines[last + 1]!)) last++;
  const out: MenuOption[] = [];
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
