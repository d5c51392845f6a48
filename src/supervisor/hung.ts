import { boundedCopy } from '../format/bounded.js';
/**
 * Agents that are hung but still drawing: the screen hash misses an agent
 * whose spinner ticks while nothing happens. Four signs, each with its own clock:
 *
 * - `transcript`: the agent's transcript has not grown for T while it shows busy, and no tool
 *   call is waiting for its result (a long test run is a pending tool call, not a hang);
 * - `process`: the agent's process tree has used ~no CPU for T while it shows busy;
 * - `api-error`: an API error banner (`API Error: 5xx`, `overloaded`) has stayed on screen for T;
 * - `repeated-tool-calls`: the transcript ends with N identical tool calls in a row.
 *
 * A sign climbs a ladder, one rung per `ladderMs` while it lasts, each rung an event:
 * Esc (interrupt the turn) -> the continuation message -> restart with the resume flag ->
 * `failed`. Progress (the transcript grows, the sign goes away) puts the ladder back at the
 * bottom. Pure: time and observations are passed in.
 */

/**
 * What decided a stall or a recovery, recorded as `detail.source` of its events: the agent's
 * own hook-reported state, the screen, the transcript, the process tree, the step timeout.
 */
/** What decided: the agent's hooks, its screen, its transcript or session file (`session`), its process, or the step timeout. */
export type DecisionSource = 'hook' | 'screen' | 'transcript' | 'session' | 'process' | 'step-timeout';

export type HungSign = 'transcript' | 'process' | 'api-error' | 'repeated-tool-calls';
export type Rung = 'interrupt' | 'continue' | 'restart' | 'fail';
export const RUNGS: readonly Rung[] = ['interrupt', 'continue', 'restart', 'fail'];

export interface HungLimits {
  /** Transcript not growing while busy; 0: off. */
  transcriptMs: number;
  /** Process tree under `cpuPercent` while busy; 0: off. */
  cpuIdleMs: number;
  cpuPercent: number;
  /** An API error banner staying on screen; 0: off. */
  errorBannerMs: number;
  /** Identical tool calls in a row; 0: off. */
  repeatedToolCalls: number;
  /** Time between two rungs of the ladder. */
  ladderMs: number;
}

/**
 * Defaults that never fire on a healthy long step: 30 minutes without a transcript line and
 * no tool running, 30 minutes of an idle process tree (a test run or a build uses CPU), an
 * API error banner for 10 minutes (Claude Code retries 10 times within about 5), the same
 * tool call 6 times in a row; 3 minutes between rungs.
 */
export const DEFAULT_HUNG_LIMITS: Readonly<HungLimits> = Object.freeze({
  transcriptMs: 30 * 60_000, cpuIdleMs: 30 * 60_000, cpuPercent: 1, errorBannerMs: 10 * 60_000, repeatedToolCalls: 6, ladderMs: 3 * 60_000,
});

export interface HungObservation {
  now: number;
  /** The screen shows the agent working (busy or compacting), not idle or asking. */
  busy: boolean;
  /** Transcript size in bytes; undefined when the profile has none or it is not found. */
  transcriptBytes?: number | undefined;
  /** The transcript's last tool call is still waiting for its result. */
  toolPending?: boolean | undefined;
  /** The process tree's CPU use since the last sample, in percent of one core; undefined: not sampled this beat. */
  cpuPercent?: number | undefined;
  /** The API error banner on screen, if any. */
  errorBanner?: string | undefined;
  /** How many identical tool calls end the transcript. */
  repeatedToolCalls?: number | undefined;
}

export interface HungState {
  transcriptBytes?: number | undefined;
  /** Last time the transcript grew (or was first seen), or the agent was not busy. */
  transcriptAt: number;
  /** Last time the process tree used CPU, or the agent was not busy. */
  cpuAt: number;
  /** A CPU sample exists: without one the process sign never fires. */
  cpuKnown?: boolean | undefined;
  banner?: string | undefined;
  bannerSince?: number | undefined;
  /** Rungs climbed so far (0: none) and when the last one was. */
  rung: number;
  rungAt: number;
}

export type HungAction =
  | { type: 'none' }
  | { type: 'rung'; rung: Rung; sign: HungSign; detail: string };

export function initialHungState(now: number): HungState {
  return { transcriptAt: now, cpuAt: now, rung: 0, rungAt: now };
}

/** One heartbeat's decision about a hung agent. */
export function decideHung(state: HungState, obs: HungObservation, limits: HungLimits): { state: HungState; action: HungAction } {
  const now = obs.now;
  let next: HungState = { ...state };
  let progress = false;

  if (obs.transcriptBytes !== undefined) {
    if (state.transcriptBytes === undefined || obs.transcriptBytes !== state.transcriptBytes) {
      progress = state.transcriptBytes !== undefined && obs.transcriptBytes > state.transcriptBytes;
      next = { ...next, transcriptBytes: obs.transcriptBytes, transcriptAt: now };
    }
  }
  // Not working: no clock of a working agent runs (an idle agent is the stall detector's business).
  if (!obs.busy || obs.toolPending) next = { ...next, transcriptAt: now };
  if (obs.cpuPercent !== undefined) next = { ...next, cpuKnown: true };
  if (!obs.busy || (obs.cpuPercent !== undefined && obs.cpuPercent >= limits.cpuPercent)) next = { ...next, cpuAt: now };
  if (obs.errorBanner !== state.banner) next = { ...next, banner: obs.errorBanner, bannerSince: obs.errorBanner ? now : undefined };

  const sign = signOf(next, obs, limits);
  if (progress || !sign) return { state: { ...next, rung: 0, rungAt: now }, action: { type: 'none' } };
  if (next.rung > 0 && now - next.rungAt < limits.ladderMs) return { state: next, action: { type: 'none' } };
  if (next.rung >= RUNGS.length) return { state: next, action: { type: 'none' } };
  const rung = RUNGS[next.rung]!;
  return { state: { ...next, rung: next.rung + 1, rungAt: now }, action: { type: 'rung', rung, sign: sign.sign, detail: sign.detail } };
}

function signOf(s: HungState, obs: HungObservation, limits: HungLimits): { sign: HungSign; detail: string } | undefined {
  const now = obs.now;
  if (limits.errorBannerMs > 0 && s.banner && s.bannerSince !== undefined && now - s.bannerSince >= limits.errorBannerMs) {
    return { sign: 'api-error', detail: s.banner };
  }
  if (limits.repeatedToolCalls > 0 && (obs.repeatedToolCalls ?? 0) >= limits.repeatedToolCalls) {
    return { sign: 'repeated-tool-calls', detail: `${obs.repeatedToolCalls} identical tool calls in a row` };
  }
  if (limits.transcriptMs > 0 && s.transcriptBytes !== undefined && now - s.transcriptAt >= limits.transcriptMs) {
    return { sign: 'transcript', detail: `no transcript line for ${Math.round((now - s.transcriptAt) / 60_000)} min while busy` };
  }
  if (limits.cpuIdleMs > 0 && s.cpuKnown && now - s.cpuAt >= limits.cpuIdleMs) {
    return { sign: 'process', detail: `process tree under ${limits.cpuPercent}% CPU for ${Math.round((now - s.cpuAt) / 60_000)} min while busy` };
  }
  return undefined;
}

/**
 * An API error banner on a screen: `API Error: 500 …`, `API Error: 529 … overloaded_error`,
 * `Overloaded`. A 429 is a quota matter (quota.ts), never a banner here.
 */
export function errorBanner(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!.trim();
    if (/\bAPI Error\b[^\n]*\b5\d\d\b|\bAPI Error\b[^\n]*\boverloaded|^\W*Overloaded\b|\boverloaded_error\b/i.test(l) && !/\b429\b/.test(l)) return l.slice(0, 200);
  }
  return undefined;
}

/** How many identical tool calls (name and input) end a list of transcript entries. */
export function repeatedToolCalls(entries: readonly unknown[]): number {
  const calls: string[] = [];
  for (const e of entries) {
    const content = (e as { type?: unknown; message?: { content?: unknown } })?.message?.content;
    if ((e as { type?: unknown })?.type !== 'assistant' || !Array.isArray(content)) continue;
    for (const b of content) {
      if (b && typeof b === 'object' && (b as { type?: unknown }).type === 'tool_use') {
        calls.push(JSON.stringify(boundedCopy([(b as { name?: unknown }).name, (b as { input?: unknown }).input])));
      }
    }
  }
  let n = 0;
  for (let i = calls.length - 1; i >= 0 && calls[i] === calls[calls.length - 1]; i--) n++;
  return n;
}

/** The last tool call has no result yet: the transcript's last tool_use id has no tool_result. */
export function toolPending(entries: readonly unknown[]): boolean {
  let pending: string | undefined;
  for (const e of entries) {
    const content = (e as { message?: { content?: unknown } })?.message?.content;
    if (!Array.isArray(content)) continue;
    for (const b of content) {
      if (!b || typeof b !== 'object') continue;
      const block = b as { type?: unknown; id?: unknown; tool_use_id?: unknown };
      if (block.type === 'tool_use' && typeof block.id === 'string') pending = block.id;
      if (block.type === 'tool_result' && block.tool_use_id === pending) pending = undefined;
    }
  }
  return pending !== undefined;
}

/** The session id of a Claude Code transcript (for `--resume <id>`), from its last entry that has one. */
export function transcriptSessionId(entries: readonly unknown[]): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const id = (entries[i] as { sessionId?: unknown })?.sessionId;
    if (typeof id === 'string' && /^[\w-]{8,64}$/.test(id)) return id;
  }
  return undefined;
}
