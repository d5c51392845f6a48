import { printableLine } from '../policy/screenRequest.js';

/** A quota wait whose reset is further off than this (or unknown) needs a person to know. */
export const QUOTA_HORIZON_MS = 3 * 3_600_000;

const OPTION = /^\s*(?:[│▌]\s*)?(?:[❯›>●]\s*)?\d+\.\s/;
const RULE = /^\s*[─━╌]{8,}\s*$/;

/**
 * The question a question dialog asks, from its screen: the last line ending in `?` in the
 * bottom of the screen that is no menu option, else the line above the first option
 * (`Question 1/3`). Printable, one line. Pure.
 */
export function screenQuestion(raw: readonly string[]): string | undefined {
  const lines = raw.map((l) => l.replace(/\s+$/, '')).filter((l) => l.trim() !== '').slice(-16);
  const asked = [...lines].reverse().find((l) => /\?\s*$/.test(l) && !OPTION.test(l) && !/^\s*(?:[│▌]\s*)?[❯›>]\s/.test(l));
  if (asked) return printableLine(asked.replace(/^\s*[│▌]\s*/, ''));
  const first = lines.findIndex((l) => OPTION.test(l));
  for (let i = first - 1; i >= 0; i--) {
    if (RULE.test(lines[i]!)) continue;
    return printableLine(lines[i]!.replace(/^\s*[│▌☐]\s*/, ''));
  }
  return undefined;
}
