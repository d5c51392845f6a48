import { join } from 'node:path';
import type { Classification } from '../agents/classify.js';
import { ENTER_DELAY_MS } from '../agents/exit.js';
import type { AgentRecord } from '../agents/agentRecord.js';
import type { Profile } from '../agents/profiles.js';
import { isReasoningLoop, lastAssistantTexts } from '../agents/transcript.js';
import { currentIdentity, SIGNAL_FILE } from '../protocol/signal.js';
import type { StopReason } from '../protocol/stopFile.js';
import type { Session } from '../sessions/session.js';
import type { EventKind } from '../store/events.js';
import type { LoopRow, WaitingFor } from '../store/loops.js';
import type { AgentState } from '../store/agentState.js';
import { beatRowPatch, decideBeat, type BeatAction, type BeatLimits, type BeatState } from './heartbeat.js';
import { ticksIn } from './tick.js';
import { DEFAULT_HUNG_LIMITS } from './hung.js';
import { HungWatch } from './hungWatch.js';
import { lookAtScreen, orIdle, withHookState, withRecordQuota, type Look } from './screenLook.js';
import { AgentRecordLook } from './agentRecordLook.js';
import { carryOut, type BeatActor } from './beatActions.js';
import { QuotaWaits, storedWait } from './quotaWaits.js';
import { TranscriptWatch, transcriptQuotaWait } from './transcriptWatch.js';
import { atWork, hasStartPrompt } from './starting.js';
import { PromptDecisions, type ApprovalSetup } from './promptDecisions.js';
import type { ApprovalRequest } from '../policy/rules.js';

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
  /** The state the agent's own hooks last reported for this run of it, if any. */
  agentState?(): AgentState | undefined;
  /** What Claude Code's PermissionRequest hook said the agent asks for, while it waits. */
  agentRequest?(): ApprovalRequest | undefined;
  /** The same as of the supervisor's tick (one look at the database per tick for all loops). */
  recentAgentRequest?(): ApprovalRequest | undefined;
  /** A message to type instead of the profile's continuation, once (a failed verify's report). */
  continuation?(): string | undefined;
  /** What the agent's own files say (Codex's rollout, Gemini CLI's session file), when it keeps any. */
  agentRecord?(): AgentRecord | undefined;
}

export type { ApprovalSetup } from './promptDecisions.js';
export { withHookState, unknownCommandMessage, type Look } from './screenLook.js';
export type { DecisionSource } from './hung.js';

const STATUS_FILE = join('.working', '.status.json');

/** Early looks (one per loop tick, for five seconds) for a prompt the agent's hook reported but the screen does not show yet. */
const EARLY_LOOKS = ticksIn(5000);

/**
 * The heartbeat of one loop: captures the agent's screen, lets the pure
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
  private readonly transcript: TranscriptWatch;
  private readonly quotaWaits: QuotaWaits;
  private lastLook: Look | undefined;
  private readonly hungWatch: HungWatch;
  /** A valid signal came in this loop: the agent knew its start command. */
  private sawSignal = false;
  /** The hook-reported request an early look last acted on (or gave up on), and the looks taken for it. */
  private hookRequestSeen: string | undefined;
  private earlyKey: string | undefined;
  private earlyLooks = 0;
  /** The agent's dialogs, questions and permission prompts as decisions. */
  private readonly prompts: PromptDecisions;
  /** The session last seen at work: it took the prompt of its command line. */
  private startedFor: Session | undefined;
  /** What the agent says of itself (its record, its hooks) and the quota messages seen. */
  private readonly records: AgentRecordLook;
  private readonly actor: BeatActor;

  constructor(
    private readonly host: WatchdogHost,
    private readonly profile: Profile,
    private readonly limits: BeatLimits,
    transcriptDir: string | undefined,
    approval?: ApprovalSetup,
  ) {
    const row = host.row();
    this.records = new AgentRecordLook(host);
    this.state = {
      stallCount: row.stallCount, lastCaptureHash: row.lastCaptureHash, recoveryStep: row.recoveryStep,
      recoveryTotal: row.recoveryTotal, lastProgressAt: host.now(), quotaArmed: true,
      quota: row.quotaWaitSince ? storedWait(Date.parse(row.quotaWaitSince), row.quotaResetAt ? Date.parse(row.quotaResetAt) : NaN, { wall: () => this.wall(), mono: () => host.now() }) : undefined,
    };
    this.transcript = new TranscriptWatch(profile.transcript === 'claude' ? transcriptDir : undefined);
    this.quotaWaits = new QuotaWaits({
      now: () => host.now(),
      wall: () => this.wall(),
      wallOf: (mono) => this.wallOf(mono),
      row: () => host.row(),
      patch: (p) => host.patch(p),
      event: (kind, detail) => host.event(kind, detail),
      setWaiting: (w) => this.setWaiting(w),
      sendKeys: (session, keys) => this.sendKeys(session, keys),
      typeContinuation: (session) => this.typeContinuation(session),
    });
    this.actor = {
      event: (kind, detail) => host.event(kind, detail),
      fail: (message, code) => host.fail(message, code),
      requestStop: (reason) => host.requestStop(reason),
      state: () => this.state,
      lastLook: () => this.lastLook,
      wallOf: (mono) => this.wallOf(mono),
      quotaWaits: this.quotaWaits,
      sendKeys: (session, keys) => this.sendKeys(session, keys),
      typeContinuation: (session) => this.typeContinuation(session),
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
    this.prompts = new PromptDecisions({
      now: () => host.now(),
      wall: () => this.wall(),
      event: (kind, detail) => host.event(kind, detail),
      waitingFor: () => host.row().waitingFor,
      setWaiting: (w) => this.setWaiting(w),
      sendKeys: (keys) => { const session = host.session(); if (session) this.sendKeys(session, keys); },
    }, profile, limits.stallThreshold, approval);
  }

  /** Marks what the loop waits on a person for; a change is written at once. */
  private setWaiting(w: WaitingFor | null): void {
    const was = this.host.row().waitingFor ?? null;
    if (was === null && w === null) return;
    if (was && w && was.reason === w.reason && was.text === w.text) return;
    this.host.patch({ waitingFor: w });
  }

  /**
   * Permission prompts and questions before the stall logic: true when this
   * beat was a decision (progress, not a stall).
   */
  private decideFirst(look: Look, hash: string, now: number, record?: AgentRecord): boolean {
    const handled = this.prompts.decide(look, hash, () => ({
      hook: this.host.agentRequest?.() ?? record?.request, hookPending: this.records.hookPending(),
    }));
    return this.progressed(handled, look.classification.kind, hash, now);
  }

  /** A beat that was a decision is progress, not a stall. */
  private progressed(handled: boolean, kind: Classification['kind'], hash: string, now: number): boolean {
    if (!handled) return false;
    return this.progress(hash, now, kind);
  }

  /**
   * A heartbeat while the loop stops: the agent finishing its step (reading the stop file,
   * writing its last signal) may still ask permission, and the policy still answers; an
   * agent whose own record says it is busy is still in its step, whatever its screen shows.
   * True when the agent is not to be taken as idle at this beat (the stopping looks again
   * at the next).
   */
  stoppingBeat(): boolean {
    const session = this.host.session();
    if (!session || session.exited) return false;
    const record = this.records.fresh();
    if (record?.state === 'busy') return true;
    if (!this.prompts.deciding) return false;
    const look = this.look(session);
    if (look.classification.kind !== 'permission_prompt') return false;
    return this.decideFirst(look, look.hash, this.host.now(), record);
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

  /** A valid signal is progress: the agent is neither stalled nor waiting. */
  onSignal(): void {
    this.sawSignal = true;
    this.startedFor = this.host.session();
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
    if (!this.prompts.deciding) return;
    // a refusal to tell: at the first idle screen, not a heartbeat later
    if (this.prompts.telling) {
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

    const record = this.records.fresh();
    const look = withRecordQuota(this.look(session), record);
    const hookState = this.records.hookState();
    const reported = hookState ?? record?.state;
    if (this.startedFor !== session && atWork(look.classification.kind, reported)) this.startedFor = session;
    const seen = withHookState(look, reported, this.profile, hookState ? 'hook' : 'session');
    const { hash, answer, source } = seen;
    // a limit already waited out, still on screen until the agent takes the continuation: history
    const current = seen.classification.kind === 'quota' && this.records.wasWaitedOut(seen.classification) ? { kind: 'idle' as const } : seen.classification;
    const classification = this.startCommandUnknown(current) ? current : orIdle(current);
    if (this.decideFirst(look, hash, now, record)) return;

    // Compare-and-swap for the silent continue: has anyone acted since the screen froze?
    if (hash !== this.state.lastCaptureHash) this.baseline = this.filesIdentity();
    else if (this.baseline !== undefined && this.baseline !== this.filesIdentity()) {
      this.baseline = this.filesIdentity();
      this.state = { ...this.state, stallCount: 0, lastProgressAt: now };
    }

    const before = this.state;
    // an agent that has not yet taken the prompt of its command line is still starting, like a blank screen
    const starting = classification.kind === 'idle' && this.startedFor !== session && hasStartPrompt(this.host.row().agentArgv ?? []);
    const quotaSeenAt = classification.kind === 'quota' ? this.records.quotaSeenAt(classification, record, this.wall()) : undefined;
    const agentBusy = this.records.recordBusy(hookState, record);
    const { state, action } = decideBeat(this.state, {
      now, wall: this.wall(), hash, classification, answer, blank: this.lastLook?.blank || starting, quotaSeenAt, agentBusy,
    }, this.limits);
    this.state = state;
    this.persist(before, action, classification.kind);
    // A recovery the stall count did not call for: the step timeout decided it.
    const unchanged = hash === before.lastCaptureHash ? before.stallCount + 1 : 0;
    const stepTimeout = 'stepTimeout' in action && action.stepTimeout && unchanged < this.limits.stallThreshold;
    if (action.type === 'enter_quota') this.records.waitBegan(classification);
    if (action.type === 'quota_resume' && action.why === 'reset time passed') this.records.waitRanOut();
    carryOut(this.actor, action, classification.kind, session, stepTimeout ? 'step-timeout' : source, before.quota);
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

  private look(session: Session): Look {
    this.lastLook = lookAtScreen(this.profile, session, this.lastLook, this.prompts.consent);
    return this.lastLook;
  }

  /** `.working/.status.json` changing is progress too (it holds off the step timeout). */
  private noteStatusFile(now: number): void {
    const id = currentIdentity(this.statusPath);
    if (id !== this.statusIdentity) {
      this.statusIdentity = id;
      this.state = { ...this.state, lastProgressAt: now };
    }
  }

  private persist(before: BeatState, action: BeatAction, kind: Classification['kind']): void {
    const patch = beatRowPatch(before, this.state, action, kind, this.host.row().status);
    if (Object.keys(patch).length === 0) return;
    if (patch.status !== undefined || patch.recoveryStep !== undefined || patch.recoveryTotal !== undefined) this.host.patch(patch);
    else this.host.patchLater(patch);
  }

  /** Each key its own write, ENTER_DELAY_MS apart: a composer swallows an Enter inside a paste. */
  private sendKeys(session: Session, keys: readonly string[]): void {
    keys.forEach((key, i) => {
      if (i === 0) session.write(key);
      else this.host.later(ENTER_DELAY_MS * i, () => session.write(key));
    });
  }

  private typeContinuation(session: Session): void {
    this.records.typed(this.wall());
    // typed before and still on the input line (its Enter lost, or not taken yet): Enter alone
    const message = this.host.continuation?.() ?? this.profile.continuationMessage;
    const typed = this.lastLook?.classification.typed;
    this.sendKeys(session, typed?.endsWith(message) ? ['\r'] : [message, '\r']);
  }

  private resumeQuota(why: string, typeContinuation: boolean): void {
    const wait = this.state.quota;
    this.state = { ...this.state, quota: undefined, lastProgressAt: this.host.now() };
    this.quotaWaits.finish(why, typeContinuation ? this.host.session() : undefined, wait);
  }

  /**
   * Claude Code's transcript: three identical assistant messages end the loop
   * (reasoning_loop); an API 429 newer than the last wait starts a quota wait.
   * Returns true when it acted.
   */
  private checkTranscript(now: number): boolean {
    const read = this.transcript.changed(Date.parse(this.host.row().startedAt));
    if (!read) return false;
    const { path, entries } = read;
    this.hungWatch.noteTranscript(path, entries);
    if (isReasoningLoop(lastAssistantTexts(entries, 3))) {
      this.host.event('stall', { kind: 'reasoning_loop', source: 'transcript', transcript: path });
      this.host.requestStop('reasoning_loop');
      return true;
    }
    if (this.state.quota) return false;
    const wait = transcriptQuotaWait(entries, this.wallOf(this.state.lastProgressAt), now, this.wall(), this.limits);
    if (!wait) return false;
    this.state = { ...this.state, quota: wait, quotaArmed: false, stallCount: 0 };
    const session = this.host.session();
    if (session) this.quotaWaits.enter(wait, undefined, session);
    return true;
  }
}
