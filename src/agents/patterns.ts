import type { Region, ScreenPattern } from './profiles.js';

/**
 * Screen patterns shared by every agent's profile: plain terminal prompts, and how a
 * spinner line and an interrupt hint look. Each profile (profiles.ts, codex/, gemini/)
 * takes what fits its program.
 */

export const p = (kind: ScreenPattern['kind'], regex: RegExp, region: Region, source: string): ScreenPattern => ({ kind, regex, region, source });

/** A y/n prompt at the end of the screen (optionally followed by a bare prompt marker line). */
export const YES_NO = p('yes_no_prompt', /(\((y\/n|yes\/no)\)|\[(y\/n|Y\/n|y\/N|yes\/no)\])\s*[:?]?\s*(?:\n\s*(?:│\s*)?[>›❯]?)?$/i, 'bottom', 'common terminal prompt');
export const PRESS_ENTER = p('continue_prompt', /(press (enter|return|any key) to continue|--more--|^\s*continue\?\s*$)/i, 'last', 'common terminal prompt');
/** An interrupt hint where a status is printed: `esc to interrupt`, `(ctrl+c to interrupt · …`. */
export const INTERRUPT_HINT = /(?:^\s*|[(·•|∙]\s*)(?:press\s+)?(?:esc|ctrl\+c)\s+to\s+interrupt\b/im;
/**
 * Spinner glyphs in front of an activity word: Claude Code's ornaments (`✳ ✶ ✻ ✽ ✢ · *`,
 * ccmanager's SPINNER_CHARS), bullets. A braille spinner (`⠙`) is a spinner with any text.
 */
export const GLYPHS = '*✱✲✳✴✵✶✷✸✹✺✻✼✽✾✿❀❁❂❃❇❈❉❊❋✢✣✤✥✦✧✨⊛⊕⊙◉◎◍⁂⁕※⍟☼★☆·•∙⋅';
/** `✳ Cooking… (9m 22s · ↓ 14.1k tokens)`: a glyph, words, then the ellipsis (`✻ Baked for 3s` has none). */
export const SPINNER_LINE = new RegExp(`^\\s*[${GLYPHS}]\\s*[^\\s…][^…\\n]{0,120}…`, 'mu');
export const BRAILLE_SPINNER = /^\s*[\u2801-\u28ff]\s*\S/mu;
/** The spinner's statistics: `(9m 21s · ↓ 13.7k tokens`, `( 1m · 500 TOKENS )`. */
export const TOKEN_STATS = /\([^()\n]*\d[^()\n]*\btokens\b/i;

export const busyByStatus = (source: string): ScreenPattern[] => [
  p('busy', SPINNER_LINE, 'status', `${source} spinner line`),
  p('busy', BRAILLE_SPINNER, 'status', `${source} braille spinner`),
  p('busy', INTERRUPT_HINT, 'status', `${source} interrupt hint`),
  p('busy', TOKEN_STATS, 'status', `${source} spinner statistics`),
];

/** The whole screen is hashed for stall detection. */
export const whole = (lines: readonly string[]): readonly string[] => lines;
