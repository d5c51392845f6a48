import { tmpdir } from 'node:os';
import type { ScreenKind } from '../agents/profiles.js';
import type { AgentProfile } from '../config/schema.js';
import { decide, denialMessage, type PolicyOutcome } from '../policy/decide.js';
import type { ApprovalPolicy, ApprovalRequest, PolicyContext } from '../policy/rules.js';
import { hookRequest } from '../policy/screenRequest.js';
import type { AgentStateRow } from '../store/agentState.js';
import type { EventKind } from '../store/events.js';
import type { WaitingFor } from '../store/loops.js';

/**
 * Permission prompts as decisions, not stalls: the first beat that sees
 * one asks the approval policy and acts — Yes, No (then tells the agent why at its next
 * idle prompt), or leaves it to a person (the loop "needs you"). None of it counts as a
 * stall or spends the recovery budget. A prompt that is still there after `retryBeats`
 * unchanged beats gets the same answer again, a few times, then is left to a person.
 */

export interface ApprovalHost {
  now(): number;
  /** Wall time, for what is stored (`since`); `now` may be monotonic. */
  wall(): number;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  sendKeys(keys: readonly string[]): void;
  /** Types a line for the agent, then Enter as its own write. */
  typeLine(text: string): void;
  /** Marks (or clears, with null) what the loop waits on a person for. */
  setWaiting(waiting: WaitingFor | null): void;
}

/** One beat's view of a permission prompt. */
export interface PromptSeen {
  /** The screen's hash (the profile's hashed lines): a new prompt has a new one. */
  hash: string;
  /** Read from the screen, if it could be. */
  screen: ApprovalRequest | undefined;
  /** From Claude Code's PermissionRequest hook, if it reported one. */
  hook: ApprovalRequest | undefined;
  /** The keys that answer Yes on this screen. */
  yesKeys: readonly string[] | undefined;
  /**
   * The agent's hooks still say busy (PreToolUse) though its dialog is drawn: Claude Code
   * runs the PermissionRequest hook alongside drawing it, so its exact payload is due.
   */
  hookPending?: boolean | undefined;
  /** The prompt's question as the screen shows it, for a prompt whose request cannot be read. */
  question?: string | undefined;
}

/** The keys that refuse a tool prompt: each of these agents offers "No … (esc)". */
const DENY_KEYS: Record<AgentProfile, readonly string[]> = {
  claude: ['\x1b'], codex: ['\x1b'], gemini: ['\x1b'], aider: ['n', '\r'], generic: ['n', '\r'],
};

/** How many times one prompt is answered before it is left to a person. */
export const MAX_TRIES = 3;

/** A loop's policy and its project: the module's repository, the agent's cwd, home, the temp dirs. */
export function approvalSetup(policy: ApprovalPolicy, projectDir: string, cwd: string, home: string): { policy: ApprovalPolicy; context: PolicyContext } {
  return { policy, context: { projectDir, cwd, home, tempDirs: [...new Set([tmpdir(), '/tmp'])] } };
}

/** The request Claude Code's hooks reported for the current agent process, while it waits on a permission. */
export function waitingRequest(reported: AgentStateRow | undefined, sessionSince: number): ApprovalRequest | undefined {
  if (!reported || reported.state !== 'waiting' || Date.parse(reported.at) < sessionSince) return undefined;
  return hookRequest(reported.detail);
}

/** The hook's word is used when it names the tool the screen shows (or the screen names none). */
export function chooseRequest(seen: PromptSeen): ApprovalRequest | undefined {
  const { screen, hook } = seen;
  if (hook && (!screen || screen.tool === 'unknown' || screen.tool === hook.tool)) return { ...hook, text: screen?.text ?? hook.text };
  return screen;
}

interface Current {
  key: string;
  request: ApprovalRequest;
  outcome: PolicyOutcome;
  keys: readonly string[];
  beats: number;
  tries: number;
}

export class Approvals {
  private current: Current | undefined;
  /** The refusal to tell the agent once it is back at its prompt. */
  private pendingMessage: string | undefined;
  /** The screen (hash) whose decision waits one beat for the hook's payload. */
  private deferred: string | undefined;

  constructor(
    private readonly host: ApprovalHost,
    private readonly agent: AgentProfile,
    private readonly policy: ApprovalPolicy,
    private readonly ctx: PolicyContext,
    private readonly retryBeats: number,
  ) {}

  /** A refusal waits to be told to the agent. */
  get telling(): boolean {
    return this.pendingMessage !== undefined;
  }

  /** Whether autodeck waits on a person for the prompt on screen. */
  get asking(): boolean {
    return this.current !== undefined && (this.current.outcome.decision === 'ask' || this.current.tries > MAX_TRIES);
  }

  /**
   * A beat that shows a permission prompt. True: handled here (the stall logic must not
   * count it); false: no request could be read, the old way applies.
   */
  onPrompt(seen: PromptSeen): boolean {
    // Claude Code's tool prompts name their tool (its hook, its dialog's heading): a menu that names none is a
    // dialog autodeck does not know, and is left to a person, never answered.
    const known = chooseRequest(seen);
    const request = this.agent === 'claude' && (!known || known.tool === 'unknown') ? unknownPrompt(seen) : known;
    if (!request) return false;
    // one prompt is one request, however its screen is redrawn meanwhile (a clock, a hint):
    // decided and said once, answered again only after retryBeats beats still showing it
    const key = `${request.tool}|${request.command ?? request.path ?? request.url ?? request.text}`;
    const cur = this.current;
    if (cur && cur.key === key) {
      if (this.asking) return true;
      cur.beats++;
      if (cur.beats < this.retryBeats) return true;
      cur.beats = 0;
      cur.tries++;
      if (cur.tries > MAX_TRIES) {
        this.host.setWaiting({ reason: 'answer_not_taken', text: request.text, since: new Date(this.host.wall()).toISOString() });
        this.host.event('needs_you', { reason: 'answer_not_taken', text: request.text, tries: MAX_TRIES });
        return true;
      }
      this.answer(cur, true);
      return true;
    }
    // one beat for the hook's exact request, once per screen
    if (seen.hookPending && !seen.hook && this.deferred !== seen.hash) {
      this.deferred = seen.hash;
      return true;
    }
    if (cur) this.gone();
    const outcome = request.tool === UNKNOWN_PROMPT ? UNKNOWN_OUTCOME : decide(request, this.policy, this.ctx);
    const keys = outcome.decision === 'allow' ? seen.yesKeys ?? ['\r'] : outcome.decision === 'deny' ? DENY_KEYS[this.agent] : [];
    const next: Current = { key, request, outcome, keys, beats: 0, tries: 1 };
    this.current = next;
    if (outcome.decision === 'ask') {
      const reason = request.tool === UNKNOWN_PROMPT ? 'question' : 'permission';
      this.host.setWaiting({ reason, text: request.text, since: new Date(this.host.wall()).toISOString() });
      this.host.event('needs_you', { reason, text: request.text, rule: outcome.rule, ...(reason === 'permission' ? { tool: request.tool, ...subject(request) } : {}) });
      return true;
    }
    this.answer(next, false);
    return true;
  }

  /**
   * A beat with no permission prompt on screen (`kind` as the screen reads). Types a
   * pending refusal at the first idle prompt; true when it typed (progress, not a stall).
   */
  onOther(kind: ScreenKind): boolean {
    if (this.current) this.gone();
    if (this.pendingMessage !== undefined && kind === 'idle') {
      const text = this.pendingMessage;
      this.pendingMessage = undefined;
      this.host.typeLine(text);
      return true;
    }
    return false;
  }

  private gone(): void {
    if (this.asking) this.host.setWaiting(null);
    this.current = undefined;
  }

  private answer(cur: Current, retry: boolean): void {
    const { request, outcome } = cur;
    this.host.event('approval', {
      decision: outcome.decision, rule: outcome.rule, reason: outcome.reason, tool: request.tool, ...subject(request),
      prompt: request.text, source: request.source, keys: cur.keys.map((k) => JSON.stringify(k).slice(1, -1)).join(' '),
      ...(retry ? { retry: cur.tries } : {}),
    });
    this.host.sendKeys(cur.keys);
    if (outcome.decision === 'deny') this.pendingMessage = denialMessage(request, outcome);
  }
}

/** A prompt autodeck cannot read as a tool's request: a person answers it. */
const UNKNOWN_PROMPT = 'unknown prompt';
const UNKNOWN_OUTCOME: PolicyOutcome = { decision: 'ask', rule: 'unknown prompt', reason: 'autodeck does not know this prompt' };

function unknownPrompt(seen: PromptSeen): ApprovalRequest {
  const text = seen.screen?.text || seen.question || 'a prompt autodeck does not know';
  return { tool: UNKNOWN_PROMPT, text, source: 'screen' };
}

function subject(r: ApprovalRequest): Record<string, string> {
  const out: Record<string, string> = {};
  if (r.command !== undefined) out.command = r.command.slice(0, 500);
  if (r.path !== undefined) out.path = r.path;
  if (r.url !== undefined) out.url = r.url;
  return out;
}
