import { exitCommand } from '../exit.js';
import { INTERRUPT_HINT, p, PRESS_ENTER, whole, YES_NO } from '../patterns.js';
import type { Profile } from '../profiles.js';

/*
 * Codex CLI, from the real 0.171.0 (test/fixtures/screens/codex/0.171.0, captured in tmux and
 * through autodeck's PTY against a fake Responses API); the older wordings transcribed from
 * kbwo/ccmanager's and asheshgoplani/agent-deck's tests are kept where no capture shows them.
 *
 * What the captures show: the composer `› Ask Codex to do anything` between the history and a
 * two-line footer; the status `• Working (12s • esc to interrupt)` above the composer while a
 * request waits, hidden while an answer streams (only the answer's `• text` shows, with no
 * `Worked for <N>s • <time>` under it yet); a start-up logo of braille art (no spinner);
 * approvals `Would you like to run the following command?` … `$ cmd` … `› 1. Yes, proceed (y)`;
 * `■ You’ve hit your usage limit. … try again at 8:01 PM.`; a usage footer
 * `⚠ 5h limit: 8% left · resets at 22:57 · /status` and a `⚠ Heads up, …` line (warnings);
 * retries `• Server is busy, reconnecting 1/2 (0s • esc to interrupt)` over the last error.
 */

/** An agent message or tool line (`• text`), unless it is the live status with its timer. */
const MESSAGE = /^\s*[•◦] (?![^\n]*\(\d+[smh][^()\n]*esc to interrupt\))\S/;

export const CODEX: Profile = {
  name: 'codex',
  layout: {
    inputLine: /^\s*(?:│\s*)?([›▌>]|codex>)(?=\s|$)/,
    // tool output under `└`, the user's echoed `› text`, answers, notices (`■ …`, `✔ You approved …`, `⚠ …`)
    conversation: /^(?:\s*[└│]\s|\s*[•◦] (?![^\n]*\(\d+[smh][^()\n]*esc to interrupt\))|[›■✔✗⚠] \S|\s{2,}Worked for\b)/,
    // a prompt the user sent or an answer: a limit line above one is history
    turn: /^(?:› (?!\d+\.)\S|[•◦] (?![^\n]*esc to interrupt\))\S)/,
  },
  patterns: [
    p('unknown_command', /Unrecognized command '?(\/[^\s'.]+)/, 'recent', 'Codex 0.171.0 (captured): `• Unrecognized command \'/x\'. Type "/" …`'),
    // first-run screens a person answers: trusting the folder writes to the user's config.toml
    p('question', /^\s*Trust this folder\?|^\s*Folder access$[\s\S]*Trust and continue/m, 'bottom', 'Codex 0.171.0 folder trust (captured)'),
    p('question', /^\s*Welcome to Codex\b[\s\S]*Sign in with ChatGPT|^\s*(?:[›>]\s*)?\d+\.\s*Sign in with ChatGPT/m, 'bottom', 'Codex 0.171.0 sign-in (captured)'),
    // the question counts with a live menu (its cursor on an option) or its footer: a stale one in the history does not
    p('permission_prompt', /(Would you like to (run the following command|make the following edits)\?|Approve this (command|change)\?|Allow the [^\n]* to run tool)[\s\S]*(^\s*[›▌]\s*(?:\d+\.|Yes\b)|press enter to confirm|enter to submit)/im, 'bottom', 'Codex 0.171.0 approval menu (captured)'),
    p('permission_prompt', /(Allow command\?|Allow execution\b|press enter to confirm\b|enter to submit \| esc to cancel)/i, 'bottom', 'Codex approval (kbwo/ccmanager tests)'),
    p('question', /(^\s*Question \d+\/\d+|enter to submit answer)/im, 'bottom', 'Codex plan question (kbwo/ccmanager tests)'),
    p('yes_no_prompt', /(yes \(y\)\s*\/\s*no \(n\)|Confirm with [^\n]*\bEnter\b)/i, 'bottom', 'Codex confirm (kbwo/ccmanager tests)'),
    YES_NO,
    PRESS_ENTER,
    p('busy', /\(\d+[smh](?: \d+[smh])? • esc to interrupt\)/, 'status', 'Codex 0.171.0 status line (captured)'),
    p('busy', /Working \(\d+[smh]/, 'status', 'Codex status line'),
    p('busy', /^\s*press esc to (?:cancel|stop)\b/im, 'status', 'Codex status line (older, kbwo/ccmanager tests)'),
    p('busy', INTERRUPT_HINT, 'status', 'Codex interrupt hint'),
    // an answer streaming: the latest block is the model's `• text`, with no `Worked for` under it yet
    p('busy', new RegExp(`${MESSAGE.source}(?![\\s\\S]*^\\s*(?:└|Worked for\\b|Token usage:))`, 'm'), 'recent', 'Codex 0.171.0 answer streaming, status hidden (captured)'),
    p('idle', /^(?:│\s*)?(?:[›▌>]|codex>)$/, 'input', 'Codex composer'),
    p('idle', /^\s*How can I help (?:you )?today\?$/, 'last', 'Codex greeting (agent-deck tests)'),
  ],
  dialogs: [
    // Esc closes the menu and keeps the model; its third option would change the user's settings
    { name: 'switch-model menu', match: /^\s*Approaching rate limits\n[\s\S]*Keep current model[\s\S]*esc back/m, keys: ['\x1b'], when: 'now', source: 'Codex 0.171.0 (captured)' },
  ],
  continuationMessage: 'Please continue with the task from where you left off.',
  exit: exitCommand('codex'),
  hashedLines: whole,
  transcript: undefined,
};
