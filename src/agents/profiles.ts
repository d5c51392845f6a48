import type { AgentProfile } from '../config/schema.js';
import { CODEX } from './codex/profile.js';
import { exitCommand, type ExitCommand } from './exit.js';
import { GEMINI } from './gemini/profile.js';
import { busyByStatus, GLYPHS, p, PRESS_ENTER, whole, YES_NO } from './patterns.js';
import type { Layout } from './regions.js';

/**
 * What a captured screen shows, as far as recovery cares. Listed in the
 * order they are tried: the first kind with a matching pattern wins (busy before idle:
 * a working Claude Code still shows its input box).
 */
export const SCREEN_KINDS = [
  'quota', 'unknown_command', 'compacting', 'question', 'permission_prompt', 'yes_no_prompt', 'continue_prompt', 'busy', 'idle',
] as const;
export type ScreenKind = (typeof SCREEN_KINDS)[number] | 'unknown';

/**
 * Which region of the screen a pattern looks at (regions.ts): all of it, the bottom lines,
 * the last line, the status region (spinner line + footer), the latest output block, or the
 * input line's prompt marker. Typed input is cut out of every region.
 */
export type Region = 'screen' | 'bottom' | 'last' | 'status' | 'recent' | 'input';
export const REGIONS: readonly Region[] = ['screen', 'bottom', 'last', 'status', 'recent', 'input'];

export interface ScreenPattern {
  kind: (typeof SCREEN_KINDS)[number];
  regex: RegExp;
  region: Region;
  /** Where the pattern comes from: a real capture, a transcription, or the user's settings. */
  source: string;
}

export { BOTTOM_LINES } from './regions.js';

export interface Profile {
  name: AgentProfile;
  /** How the screen is cut into regions. */
  layout: Layout;
  /** Tried in SCREEN_KINDS order; within a kind, in table order. */
  patterns: ScreenPattern[];
  /** Typed (then Enter as its own write) when the agent sits idle at its prompt mid-loop. */
  continuationMessage: string;
  exit: ExitCommand;
  /**
   * The part of the screen that is hashed for stall detection: a status line or a
   * clock that ticks by itself must not make a stuck agent look alive.
   */
  hashedLines(lines: readonly string[]): readonly string[];
  /** Where the agent keeps a transcript autodeck can read, if anywhere. */
  transcript: 'claude' | undefined;
  /** The flag that resumes a session by id (`--resume <id>`), for the hung-agent restart. */
  resumeFlag?: string;
  /** Dialogs answered by their label or keys, not as a stall (dialogs.ts). */
  dialogs?: readonly DialogRule[];
}

/**
 * A dialog autodeck answers itself: `now` as soon as it is seen (a menu that only hides the
 * prompt), or `probe` when a quota wait tries again (a quota dialog's retry option). The
 * answer is fixed keys, or the numbered option whose label matches `choose` (reached with
 * the arrow keys from the highlighted one, then Enter).
 */
export interface DialogRule {
  name: string;
  /** Matched against the bottom of the screen (typed input cut out). */
  match: RegExp;
  keys?: readonly string[];
  choose?: RegExp;
  when: 'now' | 'probe';
  source: string;
}

/** A line of box-drawing rule across most of the screen: Claude Code's input box edges. */
const RULE = /^\s*[─━]{20,}\s*$/;

/** Claude Code: everything above its input box (the box and the footer may tick). */
function aboveInputBox(lines: readonly string[]): readonly string[] {
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!RULE.test(lines[i]!)) continue;
    // the box is two rules around the input; hash above the upper one
    for (let j = i - 1; j >= 0 && i - j <= 6; j--) if (RULE.test(lines[j]!)) return lines.slice(0, j);
    return lines.slice(0, i);
  }
  return lines;
}

/*
 * Claude Code 2.1.x, from CLAUDE-CODE.md and the captures in test/fixtures/screens/claude/;
 * older layouts (boxed `│ > Try "…"` input, boxed `│ ❯ 1. Yes │` menus, a bare `>` prompt)
 * from other supervisors' test suites (test/fixtures/screens/<agent>/<version>/README.md).
 */
/** Claude Code's end of a turn: a glyph, a past-tense verb, `for <duration>` (a spinner line has `…` instead). */
const DONE_LINE = new RegExp(`^\\s*[${GLYPHS}]\\s*[^\\s…]+(?: [^\\s…]+)? for \\d+(?:\\.\\d+)?[hms](?: \\d+[ms])*(?:\\s*·[^…\\n]*)?$`, 'u');

const CLAUDE_LAYOUT: Layout = {
  // at the left edge (or after a box's `│`): an indented `>` is a dialog's content (a wrapped `> file` redirection)
  inputLine: /^ ?(?:│\s*)?([❯>])(?=[\s\u00a0]|$)/,
  // the model's `●`/`⏺` messages and their indented continuations, the user's echoed `❯ text`
  conversation: /^(?:\s*[⏺●]\s|\s*│?\s*[❯>][\s\u00a0]+\S|\s{2,}\S)/,
  message: /^\s*[⏺●]\s/,
  overlay: /^ ?⌕ Search…/,
  // `✻ Churned for 5s`, `✻ Cogitated for 1m 3s · done 6:05 PM`: the end of a turn (no `…`)
  doneLine: DONE_LINE,
};

const CLAUDE: Profile = {
  name: 'claude',
  layout: CLAUDE_LAYOUT,
  patterns: [
    p('quota', /What do you want to do\?[\s\S]*1\.\s*Stop and wait for limit to reset/, 'bottom', 'Claude Code quota menu'),
    // `● Unknown command: /nonexistent-skill` then `● Args from unknown skill: foo` (captured)
    // (its own `●` notice, anywhere on the screen: the `Args …` notice may follow it as a block of its own)
    p('unknown_command', /^\s*[●⏺⎿]\s*Unknown (?:slash )?command:?\s*(\/\S+)/m, 'screen', 'Claude Code 2.1.197 (captured)'),
    p('unknown_command', /^\s*(?:[●⏺⎿]\s*)?Args from unknown skill\b/m, 'recent', 'Claude Code 2.1.197 (captured)'),
    p('compacting', /Compacting conversation/, 'bottom', 'Claude Code'),
    // AskUserQuestion: `☐ Header`, options, `Type something.`, `Enter to select · ↑/↓ to navigate · Esc to cancel`
    p('question', /Enter to select · ↑\/↓ to navigate|^\s*(?:[❯>]\s*)?\d+\.\s*Type something\.?$|^\s*☐ \S/m, 'bottom', 'Claude Code 2.1.197 question tool (captured)'),
    // older question tools (kbwo/ccmanager's tests): `Enter to select`, `Tab/arrow keys to navigate`, `Ready to submit your answers?`
    p('question', /^\s*(?:Enter to select\b|Tab\/arrow keys to navigate\b|Ready to submit your answers\?)/im, 'bottom', 'Claude Code question tool (older)'),
    // a dialog's footer with no menu and no history search: it waits for an answer autodeck cannot give
    p('question', /^\s*(?:│\s*)?Action Required\b/m, 'bottom', 'Claude Code elicitation (agent-deck tests)'),
    // (not a menu with numbers, nor one that offers a Yes: those are prompts of their own kind below)
    p('question', /(?<![\s\S])(?![\s\S]*⌕ Search…)(?![\s\S]*^\s*(?:│\s*)?[❯>]\s*\d+\.)(?![\s\S]*^[ \t]+(?:│\s*)?(?:[❯>]\s+)?Yes\b)[\s\S]*\besc to cancel\b/im, 'bottom', 'Claude Code dialog footer'),
    p('permission_prompt', /(?:Do you want|Would you like) to [^\n]*\n(?:[^\n]*\n){0,2}?\s*(?:│\s*)?[❯>]\s*1\.\s/i, 'bottom', 'Claude Code permission menu'),
    p('permission_prompt', /❯\s*1\.\s*Yes, I trust this folder|Do you trust the files in this folder\?|^\s*(?:❯\s*)?Yes, I trust this (?:folder|directory)\b/m, 'bottom', 'Claude Code folder trust (2.1.197, 2.1.332 and older wording)'),
    // 2.1.332: menus without numbers (`❯ No` over `  Yes`, `❯ No, exit` over `  Yes, I accept`): a cursor line and a Yes option a few lines apart
    p('permission_prompt', /^[ \t]+(?:│\s*)?[❯>]\s+\S[^\n]*\n(?:[^\n]*\n){0,3}?[ \t]+(?:│\s*)?Yes\b|^[ \t]+(?:│\s*)?Yes\b[^\n]*\n(?:[^\n]*\n){0,3}?[ \t]+(?:│\s*)?[❯>]\s+\S/m, 'bottom', 'Claude Code 2.1.332 menu without numbers (captured)'),
    // wordings other supervisors' tests treat as Claude Code waiting on a person (asheshgoplani/agent-deck)
    p('permission_prompt', /^\s*(?:│\s*)?(?:Waiting for user confirmation|Allow execution of\b)/m, 'bottom', 'confirmation wording (agent-deck tests)'),
    p('permission_prompt', /^\s*(?:│\s*)?❯\s*\d+\.\s.*\n\s*(?:│\s*)?\d+\.\s|^\s*(?:│\s*)?\d+\.\s.*\n\s*(?:│\s*)?❯\s*\d+\.\s/m, 'bottom', 'a numbered menu with its cursor'),
    p('permission_prompt', /\d+\.\s*(?:Deny|No)\s*\(esc\)|No, and tell Claude what to do differently/i, 'bottom', 'Claude Code permission options'),
    // older layouts: `│ Do you want to run this command?` over `│ Yes` / `│ No`; `Yes, allow once`
    p('permission_prompt', /(?:Do you want|Would you like) to [^\n]*\?\s*\n\s*(?:│\s*)?(?:[❯>]\s*)?(?:1\.\s*)?Yes\b|^\s*(?:│\s*)?(?:[❯>]\s*)?Yes, allow once\b|^\s*(?:│\s*)?❯\s*Yes\b|(?:Do you want|Would you like) to [^\n]*\?\s*\n\s*│\s*>$/im, 'bottom', 'Claude Code permission menu (older layouts)'),
    YES_NO,
    PRESS_ENTER,
    ...busyByStatus('Claude Code'),
    // a tool still running (2.1.197 `⎿  Running… (9s)`; both: `(ctrl+b ctrl+b (twice) to run in background)` under it)
    // with no end of the turn after it: busy whatever the status line under the box shows
    p('busy', new RegExp(`^\\s*(?:⎿\\s+Running…|\\(ctrl\\+b(?: ctrl\\+b)?(?: \\(twice\\))? to run in background\\))(?![\\s\\S]*${DONE_LINE.source.slice(1, -1)})`, 'mu'), 'recent', 'Claude Code running tool (captured)'),
    p('idle', /^(?:│\s*)?[❯>]$/, 'input', 'Claude Code input line'),
    p('idle', /⌕ Search…/, 'bottom', 'Claude Code history search'),
  ],
  // Plain words: no "?", no "(y/n)", nothing any pattern above could match.
  continuationMessage: 'Please continue with the task from where you left off.',
  exit: exitCommand('claude'),
  hashedLines: aboveInputBox,
  transcript: 'claude',
  resumeFlag: '--resume',
};

/* Aider: from its documentation; the prompt is `> ` or `<edit format>> ` (`ask> `, `architect> `). */
const AIDER: Profile = {
  name: 'aider',
  layout: { inputLine: /^((?:[\w-]+(?: multi)?)?>)(?=\s|$)/, conversation: /^\s{2,}\S/ },
  patterns: [
    p('yes_no_prompt', /\(Y\)es\/\(N\)o(\/\(A\)ll)?(\/\(S\)kip all)?(\/\(D\)on't ask again)? \[(Yes|No)\]:\s*$/, 'bottom', 'aider confirm'),
    YES_NO,
    PRESS_ENTER,
    ...busyByStatus('aider'),
    p('idle', /^(?:[\w-]+(?: multi)?)?>$/, 'last', 'aider prompt'),
  ],
  continuationMessage: 'Please continue with the task from where you left off.',
  exit: exitCommand('aider'),
  hashedLines: whole,
  transcript: undefined,
};

/** Any other program: plain terminal prompts only; idle is a bare prompt as the last line. */
const GENERIC: Profile = {
  name: 'generic',
  layout: { inputLine: /^\s*([>❯›])(?=\s|$)/, conversation: /^\s{2,}\S/ },
  patterns: [YES_NO, PRESS_ENTER, p('idle', /^\s*[>❯›]$/, 'last', 'a bare prompt as the last line')],
  continuationMessage: 'Please continue with the task from where you left off.',
  exit: exitCommand('generic'),
  hashedLines: whole,
  transcript: undefined,
};

export const PROFILES: Readonly<Record<AgentProfile, Profile>> = { claude: CLAUDE, codex: CODEX, gemini: GEMINI, aider: AIDER, generic: GENERIC };
