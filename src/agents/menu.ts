/**
 * A menu at the bottom of an agent's screen, read by structure: a block of option lines,
 * one of them marked by the cursor (`❯`, `›`, `>`, `●`, `▌`), numbered (`❯ 1. Yes`) or not
 * (`❯ No` over `  Yes`). Options are chosen by their label, never by position: with the
 * option's number where the menu has numbers, with the arrow keys where it has none. Pure.
 */

export interface MenuOption {
  /** The option's number as drawn (`2`), absent in a menu without numbers. */
  n?: string | undefined;
  /** Its label, trimmed, without the number (`Yes, and don't ask again for …`). */
  label: string;
  /** The line it starts on. */
  line: number;
}

export interface Menu {
  options: MenuOption[];
  /** Index into options of the highlighted one. */
  cursor: number;
  numbered: boolean;
}

const CURSOR = /^(\s*(?:[│▌]\s*)?)([❯›>●▌])\s+(\S.*)$/;
const NUMBERED = /^(\d+)\.\s+(\S.*)$/;
/** A line that is not an option: a rule, a footer hint (`Enter to confirm · Esc to cancel`). */
const NOT_OPTION = /^\s*(?:[─━╌]{3,}|(?:Enter|Esc|Tab|↑|Space|ctrl\+)\b[^\n]*(?:·|to (?:confirm|cancel|select|navigate)))/i;

export const KEY = { up: '\x1b[A', down: '\x1b[B', enter: '\r' } as const;

/**
 * The menu in the last `bottom` lines, if one is drawn: the cursor line and the option lines
 * around it at the same indent (numbered menus: every numbered line of the block).
 */
export function readMenu(lines: readonly string[], bottom = 16): Menu | undefined {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === '') end--;
  const from = Math.max(0, end - bottom);
  let at = -1;
  for (let i = end - 1; i >= from; i--) if (CURSOR.test(lines[i]!.replace(/\s+$/, ''))) { at = i; break; }
  if (at < 0) return undefined;
  const m = CURSOR.exec(lines[at]!.replace(/\s+$/, ''))!;
  // the column where an option's text starts: right after the cursor glyph and its spaces
  const indent = lines[at]!.length - lines[at]!.trimStart().length;
  const textCol = lines[at]!.indexOf(m[3]!);
  const numbered = NUMBERED.test(m[3]!);
  const optionAt = (i: number): MenuOption | undefined => {
    const raw = lines[i]!.replace(/\s+$/, '');
    if (raw.trim() === '' || NOT_OPTION.test(raw)) return undefined;
    const cur = CURSOR.exec(raw);
    let text: string;
    if (cur) text = cur[3]!;
    else {
      // an option without the cursor starts where the cursor line's text starts
      const lead = raw.length - raw.trimStart().length;
      if (lead !== textCol && !(numbered && lead > indent && lead <= textCol + 1)) return undefined;
      text = raw.trim();
    }
    const num = NUMBERED.exec(text);
    if (numbered !== Boolean(num)) return undefined;
    return num ? { n: num[1], label: num[2]!.trim(), line: i } : { label: text.trim(), line: i };
  };
  const options: MenuOption[] = [];
  // upwards from the cursor, then downwards; a wrapped option's second line (deeper, no number) ends neither walk in a numbered menu
  for (let i = at - 1; i >= from; i--) {
    const o = optionAt(i);
    if (o) { options.unshift(o); continue; }
    if (numbered && isContinuation(lines[i]!, textCol)) continue;
    break;
  }
  const cursor = options.length;
  options.push(optionAt(at)!);
  for (let i = at + 1; i < end; i++) {
    const o = optionAt(i);
    if (o) { options.push(o); continue; }
    if (numbered && isContinuation(lines[i]!, textCol)) continue;
    break;
  }
  if (options.length < 2) return undefined;
  return { options, cursor, numbered };
}

function isContinuation(line: string, textCol: number): boolean {
  const lead = line.length - line.trimStart().length;
  return line.trim() !== '' && lead >= textCol + 2 && !NOT_OPTION.test(line);
}

/** The index of the first option whose label matches. */
export function findOption(menu: Menu, label: RegExp): number {
  return menu.options.findIndex((o) => label.test(o.label));
}

/**
 * The writes that choose option `index`: its number where the menu has numbers, else the
 * arrows from the cursor to it, then Enter (each its own write).
 */
export function keysFor(menu: Menu, index: number): string[] {
  const target = menu.options[index];
  if (!target) return [];
  if (menu.numbered && target.n !== undefined) return index === menu.cursor ? [KEY.enter] : [target.n];
  const steps = index - menu.cursor;
  const arrow = steps > 0 ? KEY.down : KEY.up;
  return [...Array.from({ length: Math.abs(steps) }, () => arrow), KEY.enter];
}
