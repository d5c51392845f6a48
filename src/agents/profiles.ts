import type { AgentProfile } from '../config/schema.js';
import { exitCommand, type ExitCommand } from './exit.js';

/**
 * What a captured screen shows, as far as recovery cares (SPEC 5.3). Listed in the
 * order they are tried: the first kind with a matching pattern wins (busy before idle:
 * a working Claude Code still shows its input box).
 */
export const SCREEN_KINDS = ['quota', 'compacting', 'permission_prompt', 'yes_no_prompt', 'continue_prompt', 'busy', 'idle'] as const;
export type ScreenKind = (typeof SCREEN_KINDS)[number] | 'unknown';

/** Which lines of the screen a pattern looks at: all, the last few non-empty, or the last non-empty. */
export type Region = 'screen' | 'bottom' | 'last';

export interface ScreenPattern {
  kind: (typeof SCREEN_KINDS)[number];
  regex: RegExp;
  /** `bottom`: only the last BOTTOM_LINES non-empty lines, where an agent waits for input. */
  region: Region;
  /** Where the pattern comes from: a real capture, a transcription, or the user's settings. */
  source: string;
}

/** How many of the last non-empty lines count as "the bottom" of a screen. */
export const BOTTOM_LINES = 8;

export interface Profile {
  name: AgentProfile;
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
}

const p = (kind: ScreenPattern['kind'], regex: RegExp, region: Region, source: string): ScreenPattern => ({ kind, regex, region, source });

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

const whole = (lines: readonly string[]): readonly string[] => lines;

// Shared by every agent: plain terminal prompts.
const YES_NO = p('yes_no_prompt', /(\((y\/n|yes\/no)\)|\[(y\/n|Y\/n|y\/N|yes\/no)\])\s*[:?]?\s*$/i, 'last', 'common terminal prompt');
const PRESS_ENTER = p('continue_prompt', /(press (enter|return) to continue|--more--|^\s*continue\?\s*$)/i, 'last', 'common terminal prompt');

/*
 * Claude Code 2.1.x, from CLAUDE-CODE.md and the captures in test/fixtures/screens/claude/.
 * Versions change their words: match structure (the menu cursor, the box) where possible.
 */
const CLAUDE: Profile = {
  name: 'claude',
  patterns: [
    p('quota', /What do you want to do\?[\s\S]*1\.\s*Stop and wait for limit to reset/, 'screen', 'Claude Code quota menu'),
    p('compacting', /Compacting conversation/, 'screen', 'Claude Code'),
    p('permission_prompt', /Do you want to [^\n]*\?\s*\n(?:\s*\n)*\s*❯\s*1\.\s/, 'screen', 'Claude Code permission menu'),
    p('permission_prompt', /❯\s*1\.\s*Yes, I trust this folder/, 'screen', 'Claude Code folder trust'),
    p('permission_prompt', /^\s*❯\s*\d+\.\s.*\n\s*\d+\.\s|^\s*\d+\.\s.*\n\s*❯\s*\d+\.\s/m, 'screen', 'a numbered menu with its cursor'),
    YES_NO,
    PRESS_ENTER,
    p('busy', /esc to interrupt/i, 'bottom', 'Claude Code footer while working'),
    p('idle', /^\s*│?\s*❯\u00a0/m, 'bottom', 'Claude Code input line (❯ + no-break space)'),
  ],
  // Plain words: no "?", no "(y/n)", nothing any pattern above could match.
  continuationMessage: 'Please continue with the task from where you left off.',
  exit: exitCommand('claude'),
  hashedLines: aboveInputBox,
  transcript: 'claude',
};

/* Codex CLI: transcribed from its documentation and users' reports, not captured here. */
const CODEX: Profile = {
  name: 'codex',
  patterns: [
    p('permission_prompt', /(Allow command\?|Would you like to run the following command\?|Approve this (command|change)\?)/i, 'screen', 'Codex approval (transcribed)'),
    YES_NO,
    PRESS_ENTER,
    p('busy', /(Esc to interrupt|esc to interrupt|Working \(\d+s)/, 'bottom', 'Codex status line (transcribed)'),
    p('idle', /^\s*[›▌>]\s/m, 'bottom', 'Codex composer (transcribed)'),
  ],
  continuationMessage: 'Please continue with the task from where you left off.',
  exit: exitCommand('codex'),
  hashedLines: whole,
  transcript: undefined,
};

/* Gemini CLI: transcribed from its documentation and users' reports, not captured here. */
const GEMINI: Profile = {
  name: 'gemini',
  patterns: [
    p('permission_prompt', /(Allow execution|Apply this change|Do you want to proceed)\??[\s\S]*1\.\s*Yes/i, 'screen', 'Gemini confirmation (transcribed)'),
    YES_NO,
    PRESS_ENTER,
    p('busy', /\(esc to cancel/i, 'bottom', 'Gemini spinner (transcribed)'),
    p('idle', /^\s*│?\s*>\s+(Type your message|$)/m, 'bottom', 'Gemini input box (transcribed)'),
  ],
  continuationMessage: 'Please continue with the task from where you left off.',
  exit: exitCommand('gemini'),
  hashedLines: whole,
  transcript: undefined,
};

/* Aider: transcribed from its documentation, not captured here. */
const AIDER: Profile = {
  name: 'aider',
  patterns: [
    p('yes_no_prompt', /\(Y\)es\/\(N\)o(\/\(A\)ll)?(\/\(S\)kip all)?(\/\(D\)on't ask again)? \[(Yes|No)\]:\s*$/, 'bottom', 'aider confirm (transcribed)'),
    YES_NO,
    PRESS_ENTER,
    p('idle', /^(\w+ )?>\s*$/, 'last', 'aider prompt (transcribed)'),
  ],
  continuationMessage: 'Please continue with the task from where you left off.',
  exit: exitCommand('aider'),
  hashedLines: whole,
  transcript: undefined,
};

/** Any other program: plain terminal prompts only; idle is a bare prompt as the last line. */
const GENERIC: Profile = {
  name: 'generic',
  patterns: [YES_NO, PRESS_ENTER, p('idle', /^\s*[>❯›]\s*$/, 'last', 'a bare prompt as the last line')],
  continuationMessage: 'Please continue with the task from where you left off.',
  exit: exitCommand('generic'),
  hashedLines: whole,
  transcript: undefined,
};

export const PROFILES: Readonly<Record<AgentProfile, Profile>> = { claude: CLAUDE, codex: CODEX, gemini: GEMINI, aider: AIDER, generic: GENERIC };
