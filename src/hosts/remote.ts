import type { LoopStatusJson } from '../supervisor/snapshot.js';
import type { LoopEvent } from '../store/events.js';
import type { LoopRow, LoopStatus, WaitingFor } from '../store/loops.js';
import type { LastRun } from '../deck/deck.js';
import type { LifecycleStatus } from '../protocol/modules.js';
import { LOOP_STATUSES } from '../store/loops.js';
import { parseRemoteClaude, type RemoteClaude } from './claudeRemote.js';
import { isJsonObject } from '../format/jsonObject.js';

/**
 * Another host's `status --json --events-since N --modules`, read as untrusted data: what
 * does not have the expected shape is left out (a row, an event) or refused whole (no
 * `loops` list), never passed on as is. Text is made printable where it is shown.
 */
export interface RemoteStatus {
  loops: LoopStatusJson[];
  /** The newest finished runs there, newest first. */
  recent: Record<string, unknown>[];
  version: string;
  /** The host's own name for itself. */
  host: string;
  /** Its clock when it answered (ISO). */
  now: string;
  tmuxSocket: string;
  events: LoopEvent[];
  lastEventId: number;
  modules: { dir: string; name: string; lifecycle: LifecycleStatus; lastRun?: LastRun | undefined }[];
  /** Its home folder ('' when it did not say). */
  home: string;
  /** Claude Code's own sessions there, when asked and its autodeck knows how. */
  claude?: RemoteClaude | undefined;
}

const isObject = isJsonObject;
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const num = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The parsed answer, or why it is not one. */
export function parseRemoteStatus(text: string): { ok: true; value: RemoteStatus } | { ok: false; message: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, message: `its autodeck answered something other than JSON: ${JSON.stringify(text.slice(0, 80))}` };
  }
  if (!isObject(data) || !Array.isArray(data.loops)) return { ok: false, message: 'its autodeck answered without a "loops" list' };
  const loops = data.loops.filter((l): l is LoopStatusJson => isObject(l) && typeof l.taskDir === 'string' && l.taskDir !== '' && typeof l.session === 'string' && typeof l.startedAt === 'string');
  const events = (Array.isArray(data.events) ? data.events : []).filter((e): e is LoopEvent => isObject(e) && typeof e.kind === 'string' && typeof e.at === 'string' && typeof e.taskDir === 'string')
    .map((e) => ({ ...e, detail: isObject(e.detail) ? e.detail : {} }));
  const modules = (Array.isArray(data.modules) ? data.modules : []).filter((m): m is Record<string, unknown> => isObject(m) && typeof m.dir === 'string' && m.dir !== '' && typeof m.name === 'string')
    .map((m) => ({ dir: m.dir as string, name: m.name as string, lifecycle: str(m.lifecycle, 'unknown') as LifecycleStatus, lastRun: lastRunOf(m.lastRun) }));
  return {
    ok: true,
    value: {
      loops, events, modules,
      recent: (Array.isArray(data.recent) ? data.recent : []).filter(isObject),
      version: str(data.version), host: str(data.host), now: str(data.now), tmuxSocket: str(data.tmuxSocket, 'autodeck'),
      lastEventId: num(data.lastEventId), home: str(data.home),
      claude: parseRemoteClaude(data),
    },
  };
}

function lastRunOf(v: unknown): LastRun | undefined {
  if (!isObject(v) || typeof v.outcome !== 'string' || typeof v.endedAt !== 'string') return undefined;
  return {
    id: num(v.id), outcome: v.outcome as LastRun['outcome'], endedAt: v.endedAt, iterations: num(v.iterations), maxIterations: num(v.maxIterations),
    forced: v.forced === true, activeMs: num(v.activeMs), tokens: numOrNull(v.tokens), costUsd: numOrNull(v.costUsd),
  };
}

const WAITING_REASONS: readonly WaitingFor['reason'][] = ['permission', 'question', 'quota', 'answer_not_taken'];

/**
 * A loop of `status --json` as the table's loop row. Fields the JSON does not carry (the
 * screen hash, the agent's argv and pid) are empty: nothing on screen shows them. Times
 * are moved by `skewMs` (how far the host's clock is ahead of this one), so elapsed times
 * and ages read right here.
 */
export function loopRowOf(j: LoopStatusJson, skewMs: number): LoopRow {
  const shift = (iso: string | null | undefined): string | null => {
    if (!iso) return iso ?? null;
    const t = Date.parse(iso);
    return Number.isFinite(t) && skewMs !== 0 ? new Date(t - skewMs).toISOString() : iso;
  };
  const w = isObject(j.needsYou) ? j.needsYou : undefined;
  const waitingFor: WaitingFor | null = w && (WAITING_REASONS as readonly string[]).includes(str(w.reason))
    ? { reason: w.reason as WaitingFor['reason'], text: str(w.text), since: str(w.since) } : null;
  const owner: Record<string, unknown> = isObject(j.owner) ? j.owner : {};
  // its verify (the table's `verify 0:12 (1/3)`) and worktree (the detail pane's branch), when the host has them
  const verify: Record<string, unknown> | undefined = isObject(j.verify) ? j.verify : undefined;
  const worktree: Record<string, unknown> | undefined = isObject(j.worktree) ? j.worktree : undefined;
  return {
    session: str(j.session), taskDir: str(j.taskDir), taskName: str(j.taskName, str(j.taskDir).split('/').pop() ?? ''), root: '',
    status: ((LOOP_STATUSES as readonly string[]).includes(str(j.status)) ? j.status : 'running') as LoopStatus,
    maxIterations: num(j.maxIterations, 1), timeoutMinutes: num(j.timeoutMinutes, 1), iteration: num(j.iteration),
    recoveryStep: num(j.recoveryStep), recoveryTotal: num(j.recoveryTotal), lastCaptureHash: '', stallCount: num(j.stallCount),
    quotaWaitSince: shift(strOrNull(j.quotaWaitSince)) ?? '', startedAt: shift(str(j.startedAt)) ?? '', lastSignalAt: shift(strOrNull(j.lastSignalAt)),
    restartCount: num(j.restartCount), restartsTotal: num(j.restartsTotal), quotaWaitMs: num(j.quotaWaitMs),
    step: str(j.step), result: str(j.result), next: str(j.next), checkpoint: str(j.checkpoint), stopReason: str(j.stopReason), backend: str(j.backend, 'pty'),
    ownerPid: numOrNull(owner.pid), ownerHost: strOrNull(owner.host), ownerHeartbeatAt: strOrNull(owner.heartbeatAt),
    agentArgv: [], settings: verify ? { verifyAttempts: num(verify.attempts, 3) } : {}, agentPid: null, forced: false,
    ...(verify ? { verifyStartedAt: shift(strOrNull(verify.startedAt)) ?? '', verifyFailures: num(verify.failures) } : {}),
    ...(worktree ? { worktreePath: str(worktree.path), worktreeBranch: str(worktree.branch) } : {}),
    tokens: numOrNull(j.tokens), costUsd: numOrNull(j.costUsd), compactions: numOrNull(j.compactions),
    contextTokens: numOrNull(j.contextTokens), contextWindow: numOrNull(j.contextWindow), waitingFor,
  };
}

/** How far the host's clock is ahead (ms), from its `now` and when this side asked and heard; 0 under a second. */
export function clockSkew(remoteNow: string, askedAt: number, answeredAt: number): number {
  const t = Date.parse(remoteNow);
  if (!Number.isFinite(t)) return 0;
  const skew = t - (askedAt + answeredAt) / 2;
  return Math.abs(skew) < 1000 ? 0 : Math.round(skew);
}
