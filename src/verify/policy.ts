import { SENTINEL } from '../hooks/sentinel.js';
import { cleanOutput, tailOf, type TailLimits } from './output.js';
import { passed, type VerifyResult } from './runner.js';

/** Bytes of a verify's output held while it runs (its tail). */
export const VERIFY_OUTPUT_BYTES = 64 * 1024;
/** The tail kept in the run's history. */
export const HISTORY_TAIL: TailLimits = { lines: 80, chars: 6000 };
/** The tail the agent is told (typed into its prompt: short, one line). */
export const MESSAGE_TAIL: TailLimits = { lines: 30, chars: 1500 };
/** The longest continuation message typed to an agent, in characters and in UTF-8 bytes. */
export const MAX_MESSAGE_CHARS = 2400;
export const MAX_MESSAGE_BYTES = 4000;

export const DEFAULT_VERIFY_ATTEMPTS = 3;

/** What a finished verify means for its loop. Pure. */
export type VerifyVerdict =
  | { kind: 'complete' }
  /** The loop goes on: the agent is told why; `failures` in a row so far. */
  | { kind: 'retry'; failures: number }
  /** `attempts` failures in a row: the loop ends `verify_failed`. */
  | { kind: 'give_up'; failures: number };

export function judgeVerify(result: VerifyResult, failuresBefore: number, attempts: number): VerifyVerdict {
  if (passed(result)) return { kind: 'complete' };
  const failures = failuresBefore + 1;
  return failures >= Math.max(1, attempts) ? { kind: 'give_up', failures } : { kind: 'retry', failures };
}

/** How the verify ended, in a few words: `exited with code 1`, `timed out after 10 min and was killed`. */
export function verifyEnding(result: VerifyResult, timeoutMs: number): string {
  if (result.error !== undefined) return `could not be started (${oneLine(result.error).slice(0, 200)})`;
  if (result.timedOut) return `did not finish within ${minutesText(timeoutMs)} and was killed`;
  if (result.cancelled) return 'was cancelled';
  if (result.signal) return `was ended by ${result.signal}`;
  return `exited with code ${result.exitCode}`;
}

function minutesText(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The output's tail as the history keeps it: escapes removed, bounded. */
export function historyTail(result: VerifyResult): string {
  return tailOf(cleanOutput(result.output), HISTORY_TAIL);
}

export interface FeedbackInput {
  command: string;
  result: VerifyResult;
  timeoutMs: number;
  /** This failure's number, and how many end the loop. */
  failures: number;
  attempts: number;
  /** signal: the agent runs its own loop and writes signals; hook: the Stop hook drives it. */
  mode: 'signal' | 'hook';
}

/**
 * The continuation message after a failed verify: which command failed, how, and the end
 * of its output; then what to do. One line (a line break would be Enter in the agent's
 * prompt), escapes and control characters removed, bounded. Pure.
 */
export function feedbackMessage(input: FeedbackInput): string {
  const { result } = input;
  const command = oneLine(cleanOutput(input.command)).slice(0, 300);
  const left = input.attempts - input.failures;
  const head = `autodeck: the loop is not complete: its verify command failed (${input.failures} of ${input.attempts} allowed failures; ${left} left). ` +
    `\`${command}\` ${verifyEnding(result, input.timeoutMs)} after ${Math.max(1, Math.round(result.durationMs / 1000))} s.`;
  const then = input.mode === 'hook'
    ? `Fix the cause, then finish as before; when everything is done, end with ${SENTINEL} again, and autodeck runs the verify again.`
    : 'Fix the cause, then go on with the loop as before (do the work, check it, merge it, report), writing a signal after each step with the next iteration; autodeck runs the verify again when the loop ends.';
  // the agent's own completion word must not arrive inside what it is told
  const tail = tailOf(cleanOutput(result.output), MESSAGE_TAIL).split(SENTINEL).join('[sentinel]');
  const room = MAX_MESSAGE_CHARS - head.length - then.length - 40;
  let shown = tail.split('\n').map((l) => l.trim()).filter((l) => l !== '').join(' ⏎ ');
  if (shown.length > room) shown = `…${shown.slice(shown.length - Math.max(0, room) + 1)}`;
  const say = (text: string): string => `${head}${text === '' ? ' It printed nothing.' : ` The end of its output: «${text}».`} ${then}`;
  // a terminal's line buffer holds 4 KiB: an agent reading lines (not raw keys) must get all of it
  while (Buffer.byteLength(say(shown)) > MAX_MESSAGE_BYTES && shown.length > 1) shown = `…${shown.slice(Math.ceil(shown.length / 8) + 1)}`;
  return say(shown);
}

export interface VerifyEnvInput {
  taskDir: string;
  taskName: string;
  /** The loop's worktree, when it has one. */
  worktree?: string | undefined;
  /** The verify's working directory. */
  cwd: string;
  /** The loop's session (its processes carry it: an adopter can tell them from a recycled pid). */
  session: string;
  attempt: number;
}

/** Variables of the process autodeck runs in that would make a verify behave as part of it. */
const DROPPED = /^(npm_|AUTODECK_|CLAUDE_CODE_|CLAUDECODE$|CLAUDE_PROJECT_DIR$|INIT_CWD$|TMUX$|TMUX_PANE$|COLUMNS$|LINES$|OLDPWD$|_$)/;

/**
 * The verify's environment: the user's, without what belongs to autodeck's own process
 * (npm's lifecycle variables, AUTODECK_* settings, an agent's markers, tmux's), with no
 * terminal, and with the loop's facts as AUTODECK_* variables — the way a shell line
 * reaches the task folder or the worktree (`"$AUTODECK_TASK_DIR"`) without autodeck
 * writing a path into it. Pure.
 */
export function verifyEnv(base: NodeJS.ProcessEnv, input: VerifyEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && !DROPPED.test(k)) env[k] = v;
  Object.assign(env, {
    TERM: 'dumb', NO_COLOR: '1', PWD: input.cwd,
    AUTODECK_VERIFYING: '1', AUTODECK_VERIFY_ATTEMPT: String(input.attempt),
    AUTODECK_TASK_DIR: input.taskDir, AUTODECK_TASK_NAME: input.taskName, AUTODECK_SESSION: input.session,
  });
  delete env.FORCE_COLOR;
  if (input.worktree) env.AUTODECK_WORKTREE_PATH = input.worktree;
  return env;
}
