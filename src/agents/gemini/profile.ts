import { exitCommand } from '../exit.js';
import { busyByStatus, p, PRESS_ENTER, whole, YES_NO } from '../patterns.js';
import type { Profile } from '../profiles.js';

/*
 * Gemini CLI, from the real 0.61.0 (test/fixtures/screens/gemini/0.61.0, captured in tmux and
 * through autodeck's PTY against a fake Gemini API); the older wordings transcribed from
 * kbwo/ccmanager's and asheshgoplani/agent-deck's tests and the CLI's own test snapshots are
 * kept where no capture shows them.
 *
 * What the captures show: a rule over the input line ` >   Type your message or @path/to/file`
 * and a footer under it; the spinner `⠋ Thinking... (esc to cancel, 3s)` right above the rule,
 * also while an answer streams or a retry waits; answers as `✦ text`, the user's prompts echoed
 * as ` > text`; tool confirmations in a box with the command in a box of its own
 * (`│ │ echo hi > x.txt │ │`) over `Allow execution of [Shell]?` and `● 1. Allow once`; the
 * quota dialog `Usage limit reached for all Pro models.` (`Access resets at 8:26 PM UTC.` when
 * the API gave a delay) over `● 1. Keep trying` / `2. Stop`; after Stop
 * `✕ [API Error: You have exhausted your daily quota on this model.]`.
 */

/** The first-run sign-in and key dialogs, when the key in the environment is the user's choice. */
const KEY_FROM_ENV = /Existing API key detected \(GEMINI_API_KEY\)/;

export const GEMINI: Profile = {
  name: 'gemini',
  // the input marker: `>`, older `gemini>`, `!` in shell mode, `*` in YOLO mode, `(r:)` in reverse search
  layout: {
    inputLine: /^\s*(?:│\s*)?((?:gemini)?>)(?=\s|$)|^ ?(?:!|\*|\(r:\))(?=\s{2,}|$)/,
    conversation: /^(?:\s*✦\s|\s{2,}\S)/,
    // a prompt the user sent (` > text`) or an answer (`✦ text`): a limit line above one is history
    turn: /^(?: > \S|✦ \S)/,
  },
  patterns: [
    p('unknown_command', /Unknown command:\s*(\/\S+)/, 'recent', 'Gemini CLI slashCommandProcessor.ts: `Unknown command: <input>` (older versions; 0.61.0 sends it to the model)'),
    // first-run dialogs a person answers: trusting the folder writes trustedFolders.json; a key must be pasted
    p('question', /Do you trust the files in this folder\?/, 'bottom', 'Gemini CLI 0.61.0 folder trust (captured)'),
    p('question', /How would you like to authenticate\b|Enter Gemini API Key/, 'bottom', 'Gemini CLI 0.61.0 sign-in and API-key dialogs (captured; answered by a dialog rule when the key comes from GEMINI_API_KEY)'),
    // its question and plan dialogs (AskUserDialog, ExitPlanModeDialog snapshots): they need a person
    p('question', /^\s*Enter to (?:select|submit) ·|^\s*Review your answers:/m, 'bottom', 'Gemini CLI question dialog (its test snapshots)'),
    p('permission_prompt', /(Allow execution|Apply this change|Do you want to proceed|Waiting for user confirmation|Yes, allow once)/i, 'bottom', 'Gemini CLI 0.61.0 tool confirmation (captured) and older wordings'),
    // any other menu with its cursor (`● 1. Keep loop detection enabled (esc)`)
    p('question', /(?<![\s\S])(?![\s\S]*(?:Allow execution|Apply this change|Do you want to proceed|Allow once|Yes, allow|Keep trying))[\s\S]*^\s*(?:│\s*)?●\s*1\.\s.*\n(?:.*\n){0,8}?\s*(?:│\s*)?2\.\s/m, 'bottom', 'Gemini CLI choice dialog that is no tool confirmation (its test snapshots)'),
    YES_NO,
    PRESS_ENTER,
    p('busy', /\besc to cancel\b|\bcancel, \d+(?:m \d+)?s\)/i, 'status', 'Gemini CLI 0.61.0 spinner `(esc to cancel, 5s)` (captured), also wrapped'),
    p('busy', /^\s*(?:[\u2801-\u28ff]\s*)?(?:Generating response|Processing)(?:\.\.\.|…)|^\s*Please wait\b/m, 'last', 'Gemini spinner text as the last line (older, kbwo/ccmanager tests)'),
    ...busyByStatus('Gemini'),
    p('idle', /^(?:│\s*)?(?:(?:gemini)?>|!|\*|\(r:\))$/, 'input', 'Gemini input line (`>`, `!`, `*`, `(r:)`, older `gemini>`)'),
    p('idle', /^\s*(?:│\s*)?>?\s*Type your message/m, 'bottom', 'Gemini input placeholder'),
  ],
  dialogs: [
    // the key in the environment is the user's own choice: Enter takes the option the CLI put the cursor on, or submits the key it filled in
    { name: 'sign-in with the key from GEMINI_API_KEY', match: new RegExp(`How would you like to authenticate[\\s\\S]*●\\s*\\d+\\.\\s*Use Gemini API Key[\\s\\S]*${KEY_FROM_ENV.source}`), keys: ['\r'], when: 'now', source: 'Gemini CLI 0.61.0 (captured)' },
    { name: 'API key from GEMINI_API_KEY', match: new RegExp(`Enter Gemini API Key[\\s\\S]*│ │ (?!Paste your API key here)\\S[\\s\\S]*${KEY_FROM_ENV.source}`), keys: ['\r'], when: 'now', source: 'Gemini CLI 0.61.0 (captured)' },
    // the quota dialog waits; a probe (or the reset) chooses "Keep trying", which sends the request again
    { name: 'quota dialog', match: /Usage limit reached[\s\S]*Keep trying/, choose: /^Keep trying$/, when: 'probe', source: 'Gemini CLI 0.61.0 (captured)' },
  ],
  continuationMessage: 'Please continue with the task from where you left off.',
  exit: exitCommand('gemini'),
  hashedLines: whole,
  transcript: undefined,
};
