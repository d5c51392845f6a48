import type { LoopEvent } from '../store/events.js';
import type { Notification } from './decide.js';
import { cleanText } from './text.js';

/** Why a person is told: what happened, in one word a script can switch on. */
export type NotifyReason = 'permission' | 'question' | 'input' | 'quota' | 'stall' | 'done' | 'ended' | 'failed' | 'budget';

/**
 * What `notifyCommand` gets on stdin and `notifyUrl` in its POST body (and, flattened, as
 * AUTODECK_EVENT_* variables). Fields that are not known are left out, never guessed.
 */
export interface NotifyPayload {
  source: 'autodeck';
  /** The task module's name. */
  module: string;
  taskDir: string;
  session: string;
  /** The machine the supervisor runs on. */
  host: string;
  reason: NotifyReason;
  /** The line the terminal notification shows. */
  text: string;
  /** The event kind it came from (`ended`, `stall`, ...), and when. */
  event: string;
  at: string;
  iteration?: number;
  /** Spent so far, from the agent's transcript; left out when not known (no transcript, no price). */
  tokens?: number;
  costUsd?: number;
  /** ended: the loop's outcome. */
  outcome?: string;
  /** quota: when the limit resets, HH:MM local time of the supervisor's machine. */
  until?: string;
  /** permission / question / input: the bottom of the agent's screen, cleaned (the prompt, its command, the question). */
  screen?: string;
  /** permission: what the prompt is about (`Bash command`) and the command or path, read from the screen. */
  tool?: string;
  command?: string;
  /** permission / question: the question asked. */
  question?: string;
}

const RULE = /^[\s─━—-]{8,}$/;
const OPTION = /^\s*(?:[│|]\s*)?(?:[❯>]\s*)?1\.\s/;

/**
 * What a prompt on a Claude Code-like screen asks (CLAUDE-CODE.md; the permission prompt
 * and the question tool captured from 2.1.197): the block between the last rule above the
 * menu and the menu. A permission prompt: its first line the tool (`Bash command`), the
 * next the command, the last the question (`Do you want to proceed?`); a question: the
 * line above the menu. Pure; undefined fields when the screen does not look like that.
 */
export function promptFacts(reason: NotifyReason, lines: readonly string[]): { tool?: string; command?: string; question?: string } {
  const menu = lines.findIndex((l) => OPTION.test(l));
  if (menu < 0) return {};
  let top = menu - 1;
  while (top >= 0 && !RULE.test(lines[top]!)) top--;
  const block = lines.slice(top + 1, menu).map((l) => cleanText(l.replace(/^\s*[│|]/, ''), 300)).filter((l) => l !== '' && !l.startsWith('☐'));
  if (block.length === 0) return {};
  const question = block[block.length - 1]!;
  if (reason !== 'permission' || block.length < 3) return { question };
  return { tool: block[0]!, command: block[1]!, question };
}

const PERMISSION = new Set(['permission_prompt', 'yes_no_prompt', 'continue_prompt']);
/** Lines of the screen's bottom sent with a prompt, and characters at most. */
const SCREEN_LINES = 12;
const SCREEN_CHARS = 1000;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The reason of an event that gave a notification. Pure. */
export function reasonOf(e: LoopEvent): NotifyReason {
  const kind = str(e.detail.kind);
  switch (e.kind) {
    case 'failed':
      return 'failed';
    case 'ended': {
      const outcome = str(e.detail.outcome);
      return outcome === 'complete' ? 'done' : outcome === 'budget' ? 'budget' : outcome === 'failed' ? 'failed' : 'ended';
    }
    case 'quota_wait':
      return 'quota';
    case 'needs_you': {
      const why = str(e.detail.reason);
      return why === 'question' ? 'question' : why === 'permission' || why === 'answer_not_taken' ? 'permission' : 'input';
    }
    case 'stall_unrecognized':
      return kind === 'question' ? 'question' : PERMISSION.has(kind) ? 'permission' : 'input';
    default:
      return kind === 'question' ? 'question' : PERMISSION.has(kind) ? 'permission' : 'stall';
  }
}

/**
 * The last non-blank lines of a screen, each cleaned of control characters, at most
 * SCREEN_CHARS in all (the end kept: that is where the prompt is). Agent output: untrusted.
 */
export function screenExcerpt(lines: readonly string[]): string | undefined {
  const kept = lines.map((l) => cleanText(l, 300)).filter((l) => l !== '').slice(-SCREEN_LINES);
  if (kept.length === 0) return undefined;
  const text = kept.join('\n');
  return text.length <= SCREEN_CHARS ? text : `…${text.slice(text.length - SCREEN_CHARS + 1)}`;
}

function clockOf(iso: unknown): string | undefined {
  const t = typeof iso === 'string' ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? undefined : new Date(t).toTimeString().slice(0, 5);
}

export interface PayloadContext {
  host: string;
  /** The loop's iteration now, when this process runs it. */
  iteration?: number;
  /** The agent's screen now, when this process runs it. */
  screen?: readonly string[];
  /** What the loop spent so far, when known. */
  tokens?: number | null;
  costUsd?: number | null;
}

/** The payload for an event and the notification decided for it. Pure. */
export function payloadFor(e: LoopEvent, n: Notification, ctx: PayloadContext): NotifyPayload {
  const reason = reasonOf(e);
  const p: NotifyPayload = {
    source: 'autodeck',
    module: e.taskName || e.taskDir.split('/').filter(Boolean).pop() || e.session,
    taskDir: e.taskDir,
    session: e.session,
    host: ctx.host,
    reason,
    text: cleanText(n.text),
    event: e.kind,
    at: e.at,
  };
  const iteration = typeof e.detail.iterations === 'number' ? e.detail.iterations : ctx.iteration;
  if (typeof iteration === 'number') p.iteration = iteration;
  const tokens = typeof e.detail.tokens === 'number' ? e.detail.tokens : ctx.tokens;
  if (typeof tokens === 'number') p.tokens = tokens;
  const cost = typeof e.detail.costUsd === 'number' ? e.detail.costUsd : ctx.costUsd;
  if (typeof cost === 'number') p.costUsd = Math.round(cost * 10_000) / 10_000;
  if (e.kind === 'ended' && typeof e.detail.outcome === 'string') p.outcome = e.detail.outcome;
  if (reason === 'quota') {
    const until = clockOf(e.detail.resetAt);
    if (until) p.until = until;
  }
  if ((reason === 'permission' || reason === 'question' || reason === 'input') && ctx.screen) {
    const screen = screenExcerpt(ctx.screen);
    if (screen) p.screen = screen;
    Object.assign(p, promptFacts(reason, ctx.screen));
  }
  // a needs_you event knows its prompt exactly (the approval policy read it): that wins over the screen's excerpt
  if (e.kind === 'needs_you') {
    if (str(e.detail.tool)) p.tool = cleanText(str(e.detail.tool));
    const subject = str(e.detail.command) || str(e.detail.path) || str(e.detail.url);
    if (subject) p.command = cleanText(subject);
    if (str(e.detail.text)) p.question = cleanText(str(e.detail.text));
  }
  return p;
}

/** `AUTODECK_EVENT_<FIELD>` for each field present (`taskDir` -> AUTODECK_EVENT_TASK_DIR). */
export function envFor(p: NotifyPayload): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(p)) {
    if (v === undefined) continue;
    env[`AUTODECK_EVENT_${k.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`] = String(v);
  }
  return env;
}

/** A title for a push service: `autodeck: fix-auth done`. */
export function titleOf(p: NotifyPayload): string {
  return cleanText(`autodeck: ${p.module} ${p.reason}${p.until ? ` until ${p.until}` : ''}`, 120);
}
