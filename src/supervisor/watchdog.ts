import { join } from 'node:path';
import { sha1Hex } from '../lazy.js';
import { answerKeys, classifyScreen, type Classification } from '../agents/classify.js';
import { ENTER_DELAY_MS } from '../agents/exit.js';
import type { Profile } from '../agents/profiles.js';
import type { AgentRecord } from '../agents/agentRecord.js';
import { resetClause } from '../agents/quota.js';
import { DialogAnswers } from './dialogs.js';
import { QuotaSightings } from './quotaSightings.js';
import { findTranscript, isReasoningLoop, lastAssistantTexts, lastQuotaError, readTranscriptTail } from '../agents/transcript.js';
import { currentIdentity, SIGNAL_FILE } from '../protocol/signal.js';
import type { StopReason } from '../protocol/stopFile.js';
import type { Session } from '../sessions/session.js';
import type { EventKind } from '../store/events.js';
import type { LoopRow } from '../store/loops.js';
import type { AgentState } from '../store/agentState.js';
import { parseResetTime } from '../agents/resetTime.js';
import { decideBeat, quotaWait, type BeatAction, type BeatLimits, type BeatState, type QuotaWait } from './heartbeat.js';
import { monoOfWall } from './clock.js';
import { ticksIn } from './tick.js';
import { DEFAULT_HUNG_LIMITS, errorBanner, type DecisionSource } from './hung.js';
import { HungWatch } from './hungWatch.js';
import { Approvals } from './approvals.js';
import { screenQuestion, QUOTA_HORIZON_MS } from './needsYouScreen.js';
import { screenRequest } from '../policy/screenRequest.js';
import type { ApprovalPolicy, ApprovalRequest, PolicyContext } from '../policy/rules.js';
import type { WaitingFor } from '../store/loops.js';

/** What the watchdog needs of its loop. */
export interface WatchdogHost {
  readonly taskDir: string;
  /** Monotonic time (clock.ts): every duration the watchdog measures. */
  now(): number;
  /** The wall clock: stored times, transcript times and reset times; now() when absent. */
  wall?(): number;
  session(): Session | undefined;
  row(): LoopRow;
  patch(patch: Partial<LoopRow>): void;
  /** For counters that move every beat: seen at once, written with the next batch. */
  patchLater(patch: Partial<LoopRow>): void;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  requestStop(reason: StopReason): void;
  /** Ends the loop at once as `failed`, with a one-line message for the log and the dashboard row. */
  fail(message: string, code: string): void;
  /** The agent's pid while it runs (for the process-tree CPU sign). */
  agentPid?(): number | undefined;
  /** Ends the agent and starts it again with `extraArgs` appended (the hung ladder's restart). */
  restartAgent?(extraArgs: readonly string[], detail: Record<string, unknown>): void;
  later(ms: number, fn: () => void): void;
  /** The state the agent's own hooks last reported for this run of it, if any (SPEC 9). */
  agentState?(): AgentState | undefined;
  /** What Claude Code's PermissionRequest hook said the agent asks for, while it waits (issue 15). */
  agentRequest?(): ApprovalRequest | undefined;
  /** The same as of the supervisor's tick (one look at the database per tick for all loops). */
  recentAgentRequest?(): ApprovalRequest | undefined;
  /** What the agent's own files say (Codex's rollout, Gemini CLI's session file), when it keeps any. */
  agentRecord?(): AgentRecord | undefined;
}

/** The approval policy of a loop and where its project is (issue 15 item 3). */
export interface ApprovalSetup {
  policy: ApprovalPolicy;
  context: PolicyContext;
}

/** What a hook-reported state means for recovery; absent: the screen decides. */
const HOOK_KINDS: Partial<Record<AgentState, Classification['kind']>> = {
  busy: 'busy', waiting: 'permission_prompt', idle: 'idle', compacting: 'compacting',
};

/**
 * The agent's own word comes before the screen (SPEC 5.3), except a quota message on the
 * screen, which is more specific than "idle" or "waiting".
 */
export function withHookState(look: Look, state: AgentState | undefined, profile: Profile, from: DecisionSource = 'hook'): Look & { source: DecisionSource } {
  const kind = state ? HOOK_KINDS[state] : undefined;
  // The screen's own notices (a quota stop, a command the agent does not know) are more specific than any hook state.
  if (!kind || SCREEN_FIRST.has(look.classification.kind)) return { ...look, source: 'screen' };
  if (kind === look.classification.kind) return { ...look, source: from };
  // Claude Code reports busy (PreToolUse) before it asks for permission: a prompt on the
  // screen is the newer news, and an agent waiting on it is not working.
  if (kind === 'busy' && ANSWERABLE.has(look.classification.kind)) return { ...look, source: 'screen' };
  const answer = kind === 'permission_prompt' ? look.answer ?? (profile.name === 'codex' ? ['y'] : ['\r']) : undefined;
  return { ...look, classification: { kind }, answer, source: from };
}

/** An unknown-command notice that is not about the start command: the agent sits at its prompt. */
function orIdle(c: Classification): Classification {
  return c.kind === 'unknown_command' ? { kind: 'idle' } : c;
}

/**
 * The usage-limit stop the agent's own record says its last turn ended with, when the screen
 * shows no other state that decides (a screen scrolled past it, a stop line cut): the record
 * is the agent's word, written when it happened.
 */
function withRecordQuota(look: Look, record: AgentRecord | undefined): Look {
  const q = record?.state === 'idle' ? record.quota : undefined;
  const kind = look.classification.kind;
  if (!q || kind === 'quota' || (kind !== 'idle' && kind !== 'unknown' && !look.classification.dialog)) return look;
  const quotaReset = resetClause(q.line);
  return { ...look, classification: { ...look.classification, kind: 'quota', quotaLine: q.line, ...(quotaReset ? { quotaReset } : {}) } };
}

/** Kinds the screen decides even when a hook reported a state. */
const SCREEN_FIRST: ReadonlySet<Classification['kind']> = new Set(['quota', 'unknown_command', 'question']);

export type { DecisionSource } from './hung.js';

/** The one line a failed loop shows when its agent does not know the start command. */
export function unknownCommandMessage(command: string): string {
  const shown = command.replace(/[^\x20-\x7e]/g, '?').slice(0, 60) || 'its start command';
  return `the agent does not know the command ${shown}: run \`autodeck init\` in the project, or set \`agent\``;
}

/** Screens that wait for an answer autodeck can give. */
const ANSWERABLE: ReadonlySet<Classification['kind']> = new Set(['permission_prompt', 'yes_no_prompt', 'continue_prompt']);

const STATUS_FILE = join('.working', '.status.json');

/** Early looks (one per loop tick, for five seconds) for a prompt the agent's hook reported but the screen does not show yet. */
const EARLY_LOOKS = ticksIn(5000);

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
}


/** Control characters as `\r`-style escapes, for events a person reads. */
function showKeys(keys: readonly string[]): string {
  return keys.map((k) => JSON.stringify(k).slice(1, -1)).join(' ');
}

/**
 * The heartbeat of one loop (SPEC 5.3, 5.4): captures the agent's screen, lets the pure
 * decider judge it, and carries out what it decides — answering prompts, the silent
 * continue, quota waits — plus the transcript checks (reasoning loop, API 429).
 */
export class Watchdog {
  private state: BeatState;
  /** Identities of the signal and status files when the screen stopped changing (compare-and-swap). */
  private baseline: string | undefined;
  private statusIdentity: string | undefined;
  /** The loop's signal and status files (made once: a beat looks at them every time). */
  private readonly signalPath: string;
  private readonly statusPath: string;
  private transcriptIdentity: string | undefined;
  private lastLook: Look | undefined;
  private readonly hungWatch: HungWatch;
  /** A valid signal came in this loop: the agent knew its start command. */
  private sawSignal = false;
  /** Permission prompts as decisions (issue 15); undefined in tests that predate it. */
  private readonly approvals: Approvals | undefined;
  /** The hook-reported request an early look last acted on (or gave up on), and the looks taken for it. */
  private hookRequestSeen: string | undefined;
  private earlyKey: string | undefined;
  private earlyLooks = 0;
  /** Dialogs the profile answers at once (dialogs.ts). */
  private readonly dialogs: DialogAnswers;
  /** When each quota message was first seen: its clock time is the next one after that. */
  private readonly quotaSightings = new QuotaSightings();

  constructor(
    private readonly host: WatchdogHost,
    private readonly profile: Profile,
    private readonly limits: BeatLimits,
    private readonly transcriptDir: string | undefined,
    approval?: ApprovalSetup,
  ) {
    const row = host.row();
    this.state = {
      stallCount: row.stallCount, lastCaptureHash: row.lastCaptureHash, recoveryStep: row.recoveryStep,
      recoveryTotal: row.recoveryTotal, lastProgressAt: host.now(), quotaArmed: true,
      quota: row.quotaWaitSince ? this.storedWait(Date.parse(row.quotaWaitSince), row.quotaResetAt ? Date.parse(row.quotaResetAt) : NaN) : undefined,
    };
    this.signalPath = join(host.taskDir, SIGNAL_FILE);
    this.statusPath = join(host.taskDir, STATUS_FILE);
    this.statusIdentity = currentIdentity(this.statusPath);
    this.hungWatch = new HungWatch({
      event: (kind, detail) => host.event(kind, detail),
      sendKeys: (keys) => { const session = host.session(); if (session) this.sendKeys(session, keys); },
      typeContinuation: () => { const session = host.session(); if (session) this.typeContinuation(session); },
      fail: (message, code) => host.fail(message, code),
      agentPid: host.agentPid ? () => host.agentPid!() : undefined,
      restartAgent: host.restartAgent ? (args, detail) => host.restartAgent!(args, detail) : undefined,
    }, limits.hung ?? DEFAULT_HUNG_LIMITS, profile.resumeFlag, host.now());
    this.dialogs = new DialogAnswers({
      wall: () => this.wall(),
      event: (kind, detail) => host.event(kind, detail),
      sendKeys: (keys) => { const session = host.session(); if (session) this.sendKeys(session, keys); },
      setWaiting: (w) => this.setWaiting(w),
    }, Math.max(1, limits.stallThreshold));
    if (approval) {
      this.approvals = new Approvals({
        now: () => host.now(),
        wall: () => this.wall(),
        event: (kind, detail) => host.event(kind, detail),
        sendKeys: (keys) => { const session = host.session(); if (session) this.sendKeys(session, keys); },
        typeLine: (text) => { const session = host.session(); if (session) this.sendKeys(session, [text, '\r']); },
        setWaiting: (w) => this.setWaiting(w),
      }, profile.name, approval.policy, approval.context, Math.max(1, limits.stallThreshold));
    }
  }

  /** Marks what the loop waits on a person for; a change is written at once. */
  private setWaiting(w: WaitingFor | null): void {
    const was = this.host.row().waitingFor ?? null;
    if (was === null && w === null) return;
    if (was && w && was.reason === w.reason && was.text === w.text) return;
    this.host.patch({ waitingFor: w });
  }

  /**
   * Permission prompts and questions before the stall logic (issue 15): true when this
   * beat was a decision (progress, not a stall).
   */
  private decideFirst(look: Look, hash: string, now: number, record?: AgentRecord): boolean {
    const kind = look.classification.kind;
    const dialog = look.classification.dialog;
    if (dialog?.when === 'now' && this.dialogs.onDialog(dialog, hash)) return this.progress(hash, now, kind);
    this.dialogs.onOther();
    if (kind === 'question' && this.host.row().waitingFor?.reason !== 'question') {
      const text = look.question ?? 'a question';
      this.setWaiting({ reason: 'question', text, since: new Date(this.wall()).toISOString() });
      this.host.event('needs_you', { reason: 'question', text });
    } else if (kind !== 'question' && this.host.row().waitingFor?.reason === 'question') {
      this.setWaiting(null);
    }
    const approvals = this.approvals;
    if (!approvals) return false;
    const handled = kind === 'permission_prompt'
      ? approvals.onPrompt({
        hash, screen: look.request, hook: this.host.agentRequest?.() ?? record?.request, yesKeys: look.answer,
        hookPending: this.host.agentRequest !== undefined && this.host.agentState?.() === 'busy',
      })
      : approvals.onOther(kind);
    if (!handled) return false;
    return this.progress(hash, now, kind);
  }

  /** A beat that was a decision: progress, not a stall. */
  private progress(hash: string, now: number, kind: Classification['kind']): true {
    const before = this.state;
    this.state = { ...this.state, stallCount: 0, lastCaptureHash: hash, lastProgressAt: now };
    this.persist(before, { type: 'none' }, kind);
    return true;
  }

  get inQuotaWait(): boolean {
    return this.state.quota !== undefined;
  }

  /** How long the quota wait under way has lasted (monotonic), 0 when none. */
  quotaWaitingMs(): number {
    const wait = this.state.quota;
    return wait ? Math.max(0, this.host.now() - wait.since) : 0;
  }

  private wall(): number {
    return this.host.wall ? this.host.wall() : this.host.now();
  }

  /** A monotonic time as a wall time, read on the wall clock as it stands now. */
  private wallOf(mono: number): number {
    return this.wall() - (this.host.now() - mono);
  }

  /**
   * A wait an earlier owner began (the row's quotaWaitSince): it goes on until the reset
   * time the agent named, kept in the row (quotaResetAt), reckoned on both clocks from
   * now; with none kept (none named, or a row from before it was kept), it probes now.
   */
  private storedWait(sinceWall: number, resetAt: number): QuotaWait {
    const clock = { wall: () => this.wall(), mono: () => this.host.now() };
    const since = Number.isFinite(sinceWall) ? monoOfWall(sinceWall, clock) : this.host.now();
    if (!Number.isFinite(resetAt)) return { since, sinceWall, line: '', nextProbeAt: this.host.now() };
    const resetMono = this.host.now() + Math.max(0, resetAt - this.wall());
    return { since, sinceWall, line: '', resetAt, resetMono, nextProbeAt: resetMono };
  }

  /** A valid signal is progress: the agent is neither stalled nor waiting. */
  onSignal(): void {
    this.sawSignal = true;
    if (this.state.quota) this.resumeQuota('signal', false);
    this.state = { ...this.state, stallCount: 0, recoveryStep: this.host.row().recoveryStep, lastProgressAt: this.host.now() };
    this.baseline = undefined;
  }

  private filesIdentity(): string {
    return `${currentIdentity(this.signalPath)}|${currentIdentity(this.statusPath)}`;
  }

  /**
   * An early look between heartbeats (the loop's tick asks), when the agent's own hook
   * reports a permission request or a refusal waits to be told: a prompt already on screen
   * is decided now, an idle agent told now, not a heartbeat later. Nothing else is looked
   * at, so no stall is counted.
   */
  promptBeat(): void {
    if (!this.approvals) return;
    // a refusal to tell: at the first idle screen, not a heartbeat later
    if (this.approvals.telling) {
      const session = this.host.session();
      const look = session && !session.exited ? this.look(session) : undefined;
      if (look?.classification.kind === 'idle') this.decideFirst(look, look.hash, this.host.now());
      return;
    }
    const request = (this.host.recentAgentRequest ?? this.host.agentRequest)?.();
    if (!request) return;
    const key = JSON.stringify(request);
    if (key === this.hookRequestSeen) return;
    const session = this.host.session();
    if (!session || session.exited) return;
    const look = this.look(session);
    // not drawn yet: the next ticks look again, a few times (a capture each, under tmux), then the heartbeat decides
    if (look.classification.kind !== 'permission_prompt') {
      this.earlyLooks = key === this.earlyKey ? this.earlyLooks + 1 : 1;
      this.earlyKey = key;
      if (this.earlyLooks >= EARLY_LOOKS) this.hookRequestSeen = key;
      return;
    }
    this.hookRequestSeen = key;
    this.decideFirst(look, look.hash, this.host.now());
  }

  /** One heartbeat; returns the hash of the screen for the loop's own use. */
  beat(): void {
    const session = this.host.session();
    if (!session || session.exited) return;
    const now = this.host.now();
    this.noteStatusFile(now);
    if (this.checkTranscript(now)) return;

    const record = this.host.agentRecord?.();
    const look = withRecordQuota(this.look(session), record);
    const hookState = this.host.agentState?.();
    const seen = withHookState(look, hookState ?? record?.state, this.profile, hookState ? 'hook' : 'session');
    const { hash, answer, source } = seen;
    const classification = this.startCommandUnknown(seen.classification) ? seen.classification : orIdle(seen.classification);
    if (this.decideFirst(look, hash, now, record)) return;

    // Compare-and-swap for the silent continue: has anyone acted since the screen froze?
    if (hash !== this.state.lastCaptureHash) this.baseline = this.filesIdentity();
    else if (this.baseline !== undefined && this.baseline !== this.filesIdentity()) {
      this.baseline = this.filesIdentity();
      this.state = { ...this.state, stallCount: 0, lastProgressAt: now };
    }

    const before = this.state;
    const quotaSeenAt = classification.kind === 'quota' ? record?.quota?.atMs ?? this.quotaSightings.seen(classification, this.wall()) : undefined;
    const agentBusy = hookState === undefined && record?.state === 'busy';
    const { state, action } = decideBeat(this.state, { now, wall: this.wall(), hash, classification, answer, blank: this.lastLook?.blank, quotaSeenAt, agentBusy }, this.limits);
    this.state = state;
    this.persist(before, action, classification.kind);
    // A recovery the stall count did not call for: the step timeout decided it.
    const unchanged = hash === before.lastCaptureHash ? before.stallCount + 1 : 0;
    const stepTimeout = 'stepTimeout' in action && action.stepTimeout && unchanged < this.limits.stallThreshold;
    this.act(action, classification.kind, session, stepTimeout ? 'step-timeout' : source, before.quota);
    if (action.type === 'none' && !this.state.quota && !session.exited) {
      if (this.hungWatch.beat(now, classification.kind === 'busy', this.lastLook?.banner) === 'restarted') this.lastLook = undefined;
    }
  }

  /**
   * Whether an unknown-command notice is about the command the agent was started with (it
   * is in the agent's argv; or, when the notice names none, no signal came yet): then the
   * loop cannot run. One a person typed while attached is only an agent idle at its prompt.
   */
  private startCommandUnknown(c: Classification): boolean {
    if (c.kind !== 'unknown_command') return false;
    const argv = this.host.row().agentArgv ?? [];
    if (c.command) return argv.length === 0 ? !this.sawSignal : argv.some((a) => a === c.command || a.startsWith(`${c.command} `));
    return !this.sawSignal;
  }

  /**
   * Captures, hashes and classifies the screen, unless the session says nothing was drawn
   * since the last look: an idle agent then costs no capture at all.
   */
  private look(session: Session): Look {
    const version = session.screenVersion;
    if (version !== undefined && version === this.lastLook?.version) return this.lastLook;
    const lines = session.screen();
    const classification = classifyScreen(this.profile, lines);
    this.lastLook = {
      version, hash: sha1Hex(this.profile.hashedLines(lines).join('\n')), classification,
      answer: answerKeys(this.profile, classification, lines), banner: errorBanner(lines), blank: lines.every((l) => l.trim() === ''),
      request: classification.kind === 'permission_prompt' ? screenRequest(this.profile.name, lines) : undefined,
      question: classification.kind === 'question' ? screenQuestion(lines) : undefined,
    };
    return this.lastLook;
  }

  /** `.working/.status.json` changing is progress too (SPEC 5.3 step timeout). */
  private noteStatusFile(now: number): void {
    const id = currentIdentity(this.statusPath);
    if (id !== this.statusIdentity) {
      this.statusIdentity = id;
      this.state = { ...this.state, lastProgressAt: now };
    }
  }

  private persist(before: BeatState, action: BeatAction, kind: Classification['kind']): void {
    const s = this.state;
    const patch: Partial<LoopRow> = {};
    if (s.stallCount !== before.stallCount) patch.stallCount = s.stallCount;
    if (s.lastCaptureHash !== before.lastCaptureHash) patch.lastCaptureHash = s.lastCaptureHash;
    if (s.recoveryStep !== before.recoveryStep) patch.recoveryStep = s.recoveryStep;
    if (s.recoveryTotal !== before.recoveryTotal) patch.recoveryTotal = s.recoveryTotal;
    const row = this.host.row();
    if (action.type === 'recover' || action.type === 'unrecognized') patch.status = 'stalled';
    // A prompt that sits unanswered is a suspected stall from its first unchanged beat: the
    // row says so while the threshold runs, not only once autodeck answers.
    else if (row.status === 'running' && s.stallCount > 0 && ANSWERABLE.has(kind)) patch.status = 'stalled';
    else if (row.status === 'stalled' && s.stallCount === 0 && !s.quota) patch.status = 'running';
    if (Object.keys(patch).length === 0) return;
    if (patch.status !== undefined || patch.recoveryStep !== undefined || patch.recoveryTotal !== undefined) this.host.patch(patch);
    else this.host.patchLater(patch);
  }

  private act(action: BeatAction, kind: string, session: Session, source: DecisionSource, endedWait?: QuotaWait): void {
    switch (action.type) {
      case 'none':
        return;
      case 'unknown_command':
        this.host.event('stall', { kind, source, command: action.command, unknownCommand: true });
        this.host.fail(unknownCommandMessage(action.command), 'unknown_command');
        return;
      case 'enter_quota':
        this.enterQuota(action.wait, action.keys, session);
        return;
      case 'quota_probe': {
        // a quota dialog of the agent's own is asked to try again (Gemini CLI's "Keep trying"); else the continuation
        const retry = this.quotaRetryKeys();
        this.host.event('quota_wait', { probe: true, nextProbeAt: new Date(this.wallOf(this.state.quota!.nextProbeAt)).toISOString(), ...(retry ? { keys: showKeys(retry.keys), dialog: retry.name } : {}) });
        if (retry) this.sendKeys(session, retry.keys);
        else this.typeContinuation(session);
        return;
      }
      case 'quota_resume': {
        const retry = action.typeContinuation ? this.quotaRetryKeys() : undefined;
        this.finishQuota(action.why, action.typeContinuation && !retry ? session : undefined, endedWait);
        if (retry) this.sendKeys(session, retry.keys);
        return;
      }
      case 'recover': {
        const keys = action.keys === 'continuation' ? ['continuation message', 'Enter'] : action.keys;
        this.host.event('stall', { kind, source, stepTimeout: action.stepTimeout });
        this.host.event('recovery', {
          kind, source, keys: action.keys === 'continuation' ? keys.join(' + ') : showKeys(keys),
          recoveryStep: this.state.recoveryStep, recoveryTotal: this.state.recoveryTotal,
        });
        if (action.keys === 'continuation') this.typeContinuation(session);
        else this.sendKeys(session, action.keys);
        return;
      }
      case 'unrecognized':
        this.host.event('stall_unrecognized', {
          kind, source, stepTimeout: action.stepTimeout, recoveryStep: this.state.recoveryStep, recoveryTotal: this.state.recoveryTotal,
        });
        return;
      case 'stall_limit':
        this.host.event('stall', {
          kind, source, limit: true, recoveryStep: this.state.recoveryStep, recoveryTotal: this.state.recoveryTotal,
        });
        this.host.requestStop('stall_limit');
        return;
    }
  }

  /** The keys of the quota dialog on screen that tries again, when the profile has one. */
  private quotaRetryKeys(): { name: string; keys: string[] } | undefined {
    const dialog = this.lastLook?.classification.dialog;
    return dialog?.when === 'probe' ? { name: dialog.name, keys: dialog.keys } : undefined;
  }

  /** Each key its own write, ENTER_DELAY_MS apart: a composer swallows an Enter inside a paste. */
  private sendKeys(session: Session, keys: readonly string[]): void {
    keys.forEach((key, i) => {
      if (i === 0) session.write(key);
      else this.host.later(ENTER_DELAY_MS * i, () => session.write(key));
    });
  }

  private typeContinuation(session: Session): void {
    this.sendKeys(session, [this.profile.continuationMessage, '\r']);
  }

  private enterQuota(wait: QuotaWait, keys: string[] | undefined, session: Session): void {
    const sinceWall = wait.sinceWall ?? this.wallOf(wait.since);
    this.host.patch({ status: 'quota_wait', quotaWaitSince: new Date(sinceWall).toISOString(), quotaResetAt: wait.resetAt === undefined ? '' : new Date(wait.resetAt).toISOString() });
    // a reset beyond the horizon (or none known): a person may want to know
    if (wait.resetAt === undefined || wait.resetAt - sinceWall > QUOTA_HORIZON_MS) {
      const until = wait.resetAt === undefined ? 'no reset time given' : `until ${new Date(wait.resetAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
      const line = wait.line.replace(/^[^\p{L}\p{N}]+/u, '') || 'a usage limit'; // without the screen's `⎿`
      this.setWaiting({ reason: 'quota', text: `${line} (${until})`.slice(0, 200), since: new Date(sinceWall).toISOString() });
    }
    this.host.event('quota_wait', {
      message: wait.line, resetAt: wait.resetAt ? new Date(wait.resetAt).toISOString() : null,
      nextProbeAt: new Date(this.wallOf(wait.nextProbeAt)).toISOString(), answeredMenu: keys ? showKeys(keys) : null,
    });
    if (keys) this.sendKeys(session, keys);
  }

  /** Ends a quota wait; how long it lasted is measured on the monotonic clock from `wait.since`. */
  private finishQuota(why: string, typeInto: Session | undefined, wait: QuotaWait | undefined): void {
    const row = this.host.row();
    const stored = row.quotaWaitSince ? Date.parse(row.quotaWaitSince) : NaN;
    const waited = wait ? Math.max(0, this.host.now() - wait.since) : Number.isFinite(stored) ? Math.max(0, this.wall() - stored) : 0;
    this.host.patch({ status: 'running', quotaWaitSince: '', quotaResetAt: '', quotaWaitMs: row.quotaWaitMs + waited });
    if (row.waitingFor?.reason === 'quota') this.setWaiting(null);
    this.host.event('quota_resume', { why, waitedMs: waited });
    if (typeInto) this.typeContinuation(typeInto);
  }

  private resumeQuota(why: string, typeContinuation: boolean): void {
    const wait = this.state.quota;
    this.state = { ...this.state, quota: undefined, lastProgressAt: this.host.now() };
    this.finishQuota(why, typeContinuation ? this.host.session() : undefined, wait);
  }

  /**
   * Claude Code's transcript: three identical assistant messages end the loop
   * (reasoning_loop); an API 429 newer than the last wait starts a quota wait.
   * Returns true when it acted.
   */
  private checkTranscript(now: number): boolean {
    if (!this.transcriptDir || this.profile.transcript !== 'claude') return false;
    const startedAt = Date.parse(this.host.row().startedAt);
    const path = findTranscript(this.transcriptDir, startedAt);
    if (!path) return false;
    const id = currentIdentity(path);
    if (id === this.transcriptIdentity) return false;
    this.transcriptIdentity = id;
    const entries = readTranscriptTail(path);
    this.hungWatch.noteTranscript(path, entries);
    if (isReasoningLoop(lastAssistantTexts(entries, 3))) {
      this.host.event('stall', { kind: 'reasoning_loop', source: 'transcript', transcript: path });
      this.host.requestStop('reasoning_loop');
      return true;
    }
    if (!this.state.quota) {
      // The transcript's times are the agent's wall clock: progress is compared as a wall time.
      const quota = lastQuotaError(entries, this.wallOf(this.state.lastProgressAt));
      if (quota) {
        const wall = this.wall();
        // A relative reset ("in 2 hours") counts from when the error was written.
        const reset = parseResetTime(quota.resetText ?? quota.line, new Date(wall), { timeZone: this.limits.timeZone, seenAt: new Date(quota.atMs ?? wall) });
        const wait = quotaWait(now, wall, quota.line, reset?.getTime(), this.limits);
        this.state = { ...this.state, quota: wait, quotaArmed: false, stallCount: 0 };
        const session = this.host.session();
        if (session) this.enterQuota(wait, undefined, session);
        return true;
      }
    }
    return false;
  }
}
