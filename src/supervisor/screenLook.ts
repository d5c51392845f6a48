import { sha1Hex } from '../lazy.js';
import { answerKeys, classifyScreen, type Classification } from '../agents/classify.js';
import type { AgentRecord } from '../agents/agentRecord.js';
import type { Profile } from '../agents/profiles.js';
import { resetClause } from '../agents/quota.js';
import type { Session } from '../sessions/session.js';
import type { AgentState } from '../store/agentState.js';
import { screenRequest } from '../policy/screenRequest.js';
import type { ApprovalRequest } from '../policy/rules.js';
import { errorBanner, type DecisionSource } from './hung.js';
import { screenQuestion } from './needsYouScreen.js';
import { readDialog, type Dialog, type DialogConsent } from '../agents/dialogs.js';
import { within } from './loopBoundary.js';

/** What one look at an agent's screen found. */
export interface Look {
  version: number | undefined;
  hash: string;
  classification: Classification;
  answer: string[] | undefined;
  /** An API error banner on the screen (hung.ts), if any. */
  banner?: string | undefined;
  /** Nothing on the screen at all. */
  blank?: boolean | undefined;
  /** What a permission prompt on the screen asks for (approval policy). */
  request?: ApprovalRequest | undefined;
  /** The question on the screen, when it shows one (printable, one line). */
  question?: string | undefined;
  /** One of the agent's own dialogs (src/agents/dialogs.ts), when the screen shows one and the look asked for them. */
  dialog?: Dialog | undefined;
}

/** Kinds a dialog of the agent's own may read as (a menu, a footer, or nothing known). */
const DIALOG_KINDS: ReadonlySet<Classification['kind']> = new Set(['permission_prompt', 'question', 'yes_no_prompt', 'continue_prompt', 'unknown']);

/**
 * Captures, hashes and classifies the screen, unless the session says nothing was drawn
 * since `last`: an idle agent then costs no capture at all.
 */
export function lookAtScreen(profile: Profile, session: Session, last: Look | undefined, consent?: DialogConsent): Look {
  const version = session.screenVersion;
  if (version !== undefined && version === last?.version) return last;
  return within('screen read', () => {
    const lines = session.screen();
    const classification = classifyScreen(profile, lines);
    return {
      version, hash: sha1Hex(profile.hashedLines(lines).join('\n')), classification,
      answer: answerKeys(profile, classification, lines), banner: errorBanner(lines), blank: lines.every((l) => l.trim() === ''),
      request: classification.kind === 'permission_prompt' ? screenRequest(profile.name, lines) : undefined,
      question: classification.kind === 'question' || classification.kind === 'permission_prompt' ? screenQuestion(lines) : undefined,
      dialog: consent && DIALOG_KINDS.has(classification.kind) ? readDialog(lines, consent) : undefined,
    };
  });
}

/** What a hook-reported state means for recovery; absent: the screen decides. */
const HOOK_KINDS: Partial<Record<AgentState, Classification['kind']>> = {
  busy: 'busy', waiting: 'permission_prompt', idle: 'idle', compacting: 'compacting',
};

/** Kinds the screen decides even when a hook reported a state. */
const SCREEN_FIRST: ReadonlySet<Classification['kind']> = new Set(['quota', 'unknown_command', 'question']);

/** Screens that wait for an answer autodeck can give. */
export const ANSWERABLE: ReadonlySet<Classification['kind']> = new Set(['permission_prompt', 'yes_no_prompt', 'continue_prompt']);

/**
 * The agent's own word comes before the screen, except a quota message on the screen,
 * which is more specific than "idle" or "waiting".
 */
export function withHookState(look: Look, state: AgentState | undefined, profile: Profile, from: DecisionSource = 'hook'): Look & { source: DecisionSource } {
  const kind = state ? HOOK_KINDS[state] : undefined;
  // The screen's own notices (a quota stop, a command the agent does not know) are more specific than any hook state.
  if (!kind || SCREEN_FIRST.has(look.classification.kind)) return { ...look, source: 'screen' };
  if (kind === look.classification.kind) return { ...look, source: from };
  // Claude Code reports busy (PreToolUse) before it asks for permission: a prompt on the
  // screen is the newer news, and an agent waiting on it is not working.
  if (kind === 'busy' && ANSWERABLE.has(look.classification.kind)) return { ...look, source: 'screen' };
  // Claude Code's prompts are read from its screen (by their labels): none there, nothing pressed blindly
  const blind = profile.name === 'codex' ? ['y'] : profile.name === 'claude' ? undefined : ['\r'];
  const answer = kind === 'permission_prompt' ? look.answer ?? blind : undefined;
  return { ...look, classification: { kind }, answer, source: from };
}

/**
 * The usage-limit stop the agent's own record says its last turn ended with, when the screen
 * shows no other state that decides (a screen scrolled past it, a stop line cut): the record
 * is the agent's word, written when it happened.
 */
export function withRecordQuota(look: Look, record: AgentRecord | undefined): Look {
  const q = record?.state === 'idle' ? record.quota : undefined;
  const kind = look.classification.kind;
  if (!q || kind === 'quota' || (kind !== 'idle' && kind !== 'unknown' && !look.classification.dialog)) return look;
  const quotaReset = resetClause(q.line);
  return { ...look, classification: { ...look.classification, kind: 'quota', quotaLine: q.line, ...(quotaReset ? { quotaReset } : {}) } };
}

/** An unknown-command notice that is not about the start command: the agent sits at its prompt. */
export function orIdle(c: Classification): Classification {
  return c.kind === 'unknown_command' ? { kind: 'idle' } : c;
}

/** The one line a failed loop shows when its agent does not know the start command. */
export function unknownCommandMessage(command: string): string {
  const shown = command.replace(/[^\x20-\x7e]/g, '?').slice(0, 60) || 'its start command';
  return `the agent does not know the command ${shown}: run \`autodeck init\` in the project, or set \`agent\``;
}

/** Control characters as `\r`-style escapes, for events a person reads. */
export function showKeys(keys: readonly string[]): string {
  return keys.map((k) => JSON.stringify(k).slice(1, -1)).join(' ');
}
