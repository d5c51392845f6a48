import type { Classification } from '../agents/classify.js';
import { parseResetTime } from '../agents/resetTime.js';
import type { HungLimits } from './hung.js';
import type { LoopRow } from '../store/loops.js';
import { ANSWERABLE } from './screenLook.js';

/** What the heartbeat remembers between captures of one loop. */
export interface BeatState {
  stallCount: number;
  lastCaptureHash: string;
  recoveryStep: number;
  recoveryTotal: number;
  /**
   * Last progress: a signal, a status file change, a recovery, a resume. Drives the step
   * timeout. Like every time here but the quota's wall fields, on the monotonic clock.
   */
  lastProgressAt: number;
  /** Since when the agent has been compacting its conversation. */
  compactingSince?: number | undefined;
  quota?: QuotaWait | undefined;
  /**
   * A quota message seen outside a stall only counts once the screen has been free of
   * one: after a resume the old message may still be on screen.
   */
  quotaArmed: boolean;
}

export interface QuotaWait {
  /** When the wait began (monotonic). */
  since: number;
  /** The same moment on the wall clock (stored as the row's quotaWaitSince). */
  sinceWall?: number | undefined;
  line: string;
  /** The reset time the agent named (wall clock). */
  resetAt?: number | undefined;
  /**
   * The reset time on the monotonic clock, as reckoned when the wait began: a wall clock
   * set back after that does not hold the loop past the true reset.
   */
  resetMono?: number | undefined;
  /** When to look again (monotonic). */
  nextProbeAt: number;
  /** A generic rate limit with no reset: probed after a back-off that doubles each time. */
  transient?: boolean | undefined;
  /** Probes made so far (the back-off of a transient limit grows with them). */
  probes?: number | undefined;
  /**
   * The agent resumes by itself at the reset (Claude Code's "Continuing automatically at …"):
   * nothing is typed at the reset; only if the message is still there a probe later.
   */
  selfResume?: boolean | undefined;
}

/** The first wait of a transient rate limit; it doubles at each probe, up to the quota probe period. */
export const TRANSIENT_FIRST_MS = 60_000;

/** How long a transient limit waits before probe number `probes` (0-based). */
export function transientBackoff(probes: number, limits: Pick<BeatLimits, 'quotaProbeMs'>): number {
  return Math.min(limits.quotaProbeMs, TRANSIENT_FIRST_MS * 2 ** Math.min(probes, 20));
}

export interface BeatLimits {
  stallThreshold: number;
  recoveryPerIteration: number;
  recoveryTotal: number;
  stepTimeoutMs: number;
  quotaProbeMs: number;
  timeZone?: string | undefined;
  /** The hung-agent watchdog's limits (hung.ts); DEFAULT_HUNG_LIMITS when absent. */
  hung?: HungLimits | undefined;
}

/** Compaction is not a stall for this long. */
export const COMPACTION_GRACE_MS = 30 * 60_000;

export type BeatAction =
  | { type: 'none' }
  | { type: 'enter_quota'; wait: QuotaWait; keys?: string[] | undefined }
  | { type: 'quota_probe' }
  | { type: 'quota_resume'; typeContinuation: boolean; why: 'reset time passed' | 'message gone' }
  | { type: 'recover'; kind: Classification['kind']; keys: string[] | 'continuation'; stepTimeout: boolean }
  | { type: 'unrecognized'; kind: Classification['kind']; stepTimeout: boolean }
  | { type: 'stall_limit'; kind: Classification['kind'] }
  /** The agent does not know the command it was started with: the loop cannot run. */
  | { type: 'unknown_command'; command: string };

export interface Observation {
  /** Monotonic time: every duration here is reckoned on it (clock.ts). */
  now: number;
  /** The wall clock, for the reset times agents name; `now` when not given. */
  wall?: number | undefined;
  /** Hash of the profile's hashed region of the screen. */
  hash: string;
  classification: Classification;
  /** The writes that answer the prompt on screen, if it is one. */
  answer?: string[] | undefined;
  /** Nothing is drawn yet (an agent starting up): no stall, though the step timeout still holds. */
  blank?: boolean | undefined;
  /** When the quota message on screen was first seen (wall clock): its clock time is the next one after that. */
  quotaSeenAt?: number | undefined;
  /** The agent's own record (hooks, session files) says it is working: an unchanged screen is no stall. */
  agentBusy?: boolean | undefined;
}

function enterQuota(state: BeatState, obs: Observation, limits: BeatLimits): { state: BeatState; action: BeatAction } {
  const line = obs.classification.quotaLine ?? '';
  const wall = obs.wall ?? obs.now;
  const reset = parseResetTime(obs.classification.quotaReset ?? line, new Date(wall), {
    timeZone: limits.timeZone, seenAt: obs.quotaSeenAt === undefined ? undefined : new Date(obs.quotaSeenAt),
  });
  const wait = quotaWait(obs.now, wall, line, reset?.getTime(), limits, { transient: obs.classification.quotaTransient, selfResume: obs.classification.quotaSelfResume });
  return {
    state: { ...state, quota: wait, quotaArmed: false, stallCount: 0, lastCaptureHash: obs.hash },
    action: { type: 'enter_quota', wait, keys: obs.answer },
  };
}

/** A quota wait begun at `now` (monotonic) / `wall`, until `resetAt` (wall) when the agent named one. */
export function quotaWait(
  now: number, wall: number, line: string, resetAt: number | undefined, limits: Pick<BeatLimits, 'quotaProbeMs'>,
  kind: { transient?: boolean | undefined; selfResume?: boolean | undefined } = {},
): QuotaWait {
  const resetMono = resetAt === undefined ? undefined : now + Math.max(0, resetAt - wall);
  const transient = kind.transient === true && resetMono === undefined;
  const nextProbeAt = resetMono ?? now + (transient ? transientBackoff(0, limits) : limits.quotaProbeMs);
  return {
    since: now, sinceWall: wall, line, resetAt, resetMono, nextProbeAt,
    ...(transient ? { transient: true, probes: 0 } : {}), ...(kind.selfResume ? { selfResume: true } : {}),
  };
}

/**
 * Whether a named reset time has come: on the wall clock, as the agent named it (a wall
 * clock set forward brings it sooner), or once as much real time went by as was left
 * when the wait began (a wall clock set back does not delay it).
 */
export function resetPassed(wait: QuotaWait, now: number, wall: number): boolean {
  if (wait.resetAt === undefined) return false;
  return wall >= wait.resetAt || (wait.resetMono !== undefined && now >= wait.resetMono);
}

/** While waiting on a quota: stall counting is paused; the wait ends at the reset or when the message is gone. */
function duringQuota(state: BeatState, current: QuotaWait, obs: Observation, limits: BeatLimits): { state: BeatState; action: BeatAction } {
  // the screen may tell what a transcript's error did not: the agent has scheduled its own resume
  const wait = obs.classification.quotaSelfResume && !current.selfResume ? { ...current, selfResume: true } : current;
  const base = { ...state, stallCount: 0, lastCaptureHash: obs.hash, quota: wait };
  if (obs.classification.kind !== 'quota') {
    return { state: { ...base, quota: undefined, quotaArmed: true, lastProgressAt: obs.now }, action: { type: 'quota_resume', typeContinuation: false, why: 'message gone' } };
  }
  if (resetPassed(wait, obs.now, obs.wall ?? obs.now)) {
    // its own resume is due: give it a probe period before typing anything
    if (wait.selfResume && obs.now < (wait.resetMono ?? wait.since) + limits.quotaProbeMs) return { state: base, action: { type: 'none' } };
    return { state: { ...base, quota: undefined, lastProgressAt: obs.now }, action: { type: 'quota_resume', typeContinuation: true, why: 'reset time passed' } };
  }
  if (wait.resetAt === undefined && obs.now >= wait.nextProbeAt) {
    const probes = (wait.probes ?? 0) + 1;
    const next = wait.transient ? transientBackoff(probes, limits) : limits.quotaProbeMs;
    return { state: { ...base, quota: { ...wait, probes, nextProbeAt: obs.now + next } }, action: { type: 'quota_probe' } };
  }
  return { state: base, action: { type: 'none' } };
}

/**
 * One heartbeat's decision: count unchanged captures, and once the agent
 * looks stuck, say how to recover it. Pure: the caller captures, classifies and acts.
 */
export function decideBeat(state: BeatState, obs: Observation, limits: BeatLimits): { state: BeatState; action: BeatAction } {
  if (state.quota) return duringQuota(state, state.quota, obs, limits);
  const kind = obs.classification.kind;
  // Decided at the first look, no stall threshold: nudging such an agent only repeats the error.
  if (kind === 'unknown_command') {
    return { state: { ...state, lastCaptureHash: obs.hash }, action: { type: 'unknown_command', command: obs.classification.command ?? '' } };
  }
  const stallCount = obs.hash === state.lastCaptureHash ? state.stallCount + 1 : 0;
  let next: BeatState = { ...state, stallCount, lastCaptureHash: obs.hash, quotaArmed: state.quotaArmed || kind !== 'quota' };

  if (kind === 'quota' && state.quotaArmed) return enterQuota(next, obs, limits);

  if (kind === 'compacting') {
    const since = state.compactingSince ?? obs.now;
    next = { ...next, compactingSince: since };
    if (obs.now - since < COMPACTION_GRACE_MS) return { state: { ...next, stallCount: 0, lastProgressAt: obs.now }, action: { type: 'none' } };
  } else {
    next = { ...next, compactingSince: undefined };
  }

  const stepTimeout = obs.now - state.lastProgressAt >= limits.stepTimeoutMs;
  if (obs.blank && !stepTimeout) return { state: { ...next, stallCount: 0 }, action: { type: 'none' } };
  // busy by the agent's own record (a model that pauses mid-answer leaves the screen still): no stall
  if (kind === 'busy' && obs.agentBusy && !stepTimeout) return { state: { ...next, stallCount: 0 }, action: { type: 'none' } };
  if (stallCount < limits.stallThreshold && !stepTimeout) return { state: next, action: { type: 'none' } };

  if (kind === 'quota') return enterQuota(next, obs, limits);

  // Every recovery, recognised or not, counts; over either limit the loop is stopped.
  const counted: BeatState = { ...next, stallCount: 0, recoveryStep: state.recoveryStep + 1, recoveryTotal: state.recoveryTotal + 1, lastProgressAt: obs.now };
  if (counted.recoveryStep > limits.recoveryPerIteration || counted.recoveryTotal > limits.recoveryTotal) {
    return { state: counted, action: { type: 'stall_limit', kind } };
  }
  if (kind === 'idle') return { state: counted, action: { type: 'recover', kind, keys: 'continuation', stepTimeout } };
  if (obs.answer && (kind === 'permission_prompt' || kind === 'yes_no_prompt' || kind === 'continue_prompt')) {
    return { state: counted, action: { type: 'recover', kind, keys: obs.answer, stepTimeout } };
  }
  return { state: counted, action: { type: 'unrecognized', kind, stepTimeout } };
}

/** What a beat's new state changes in the loop's row (its counters and its status). */
export function beatRowPatch(before: BeatState, s: BeatState, action: BeatAction, kind: Classification['kind'], status: LoopRow['status']): Partial<LoopRow> {
  const patch: Partial<LoopRow> = {};
  if (s.stallCount !== before.stallCount) patch.stallCount = s.stallCount;
  if (s.lastCaptureHash !== before.lastCaptureHash) patch.lastCaptureHash = s.lastCaptureHash;
  if (s.recoveryStep !== before.recoveryStep) patch.recoveryStep = s.recoveryStep;
  if (s.recoveryTotal !== before.recoveryTotal) patch.recoveryTotal = s.recoveryTotal;
  if (action.type === 'recover' || action.type === 'unrecognized') patch.status = 'stalled';
  // A prompt that sits unanswered is a suspected stall from its first unchanged beat: the
  // row says so while the threshold runs, not only once autodeck answers.
  else if (status === 'running' && s.stallCount > 0 && ANSWERABLE.has(kind)) patch.status = 'stalled';
  else if (status === 'stalled' && s.stallCount === 0 && !s.quota) patch.status = 'running';
  return patch;
}
