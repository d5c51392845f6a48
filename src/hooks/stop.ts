import { lstatSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readTranscriptTail, type TranscriptEntry } from '../agents/transcript.js';
import { gitTopLevel } from '../paths.js';
import { writeStopFile, stopFilePath } from '../protocol/stopFile.js';
import { readSignalFile, SIGNAL_FILE, writeSignalFile } from '../protocol/signal.js';
import type { Store } from '../store/index.js';
import type { HookProgress } from '../store/hookProgress.js';
import type { LoopRow } from '../store/loops.js';
import { decide, type HookDecision } from './decide.js';
import { field } from './input.js';
import { holderGone, lockDecision, lockOwner, makeLock, readLock, releaseLock, writeLock } from './lock.js';
import { sentinelSeen } from './sentinel.js';
import { readTasks } from './tasks.js';

/** Enough of the transcript's end for its last 20 lines, even with large tool results among them. */
const TRANSCRIPT_TAIL_BYTES = 2 * 1024 * 1024;

export interface StopContext {
  env: NodeJS.ProcessEnv;
  now: Date;
  host: string;
  /** The agent process when the loop row does not name it: the hook's parent. */
  fallbackPid: number;
}

export interface StopAnswer {
  /** What to print on stdout: the block, or nothing (allow). */
  output?: string;
  loop?: LoopRow;
  decision?: HookDecision;
}

/**
 * One Stop event: finds the loop, gathers the facts, decides, and writes what the
 * decision says — the hook's counters and its event in one transaction, then the lock, a
 * stop file and the signal. Throws on its own errors; the caller allows the stop then.
 */
export function answerStop(store: Store, event: Record<string, unknown>, ctx: StopContext): StopAnswer {
  const loop = findLoop(store, ctx.env, field(event, 'cwd'));
  // A loop whose agent runs its own loop (signal mode) is none of the Stop hook's business:
  // blocking its idle turns would write signals for work nobody did.
  if (!loop || !isHookMode(loop)) return {};
  const { taskDir } = loop;
  const agentSession = field(event, 'session_id') ?? ctx.env.CLAUDE_CODE_SESSION_ID ?? 'unknown';
  const me = lockOwner(agentSession);
  const existing = readLock(taskDir);
  const lock = lockDecision(existing, me, ctx.now, { holderGone: existing !== undefined && holderGone(existing, ctx.host) });
  const stopFileExists = exists(stopFilePath(taskDir));
  const loopStopping = loop.status === 'stopping' || lastSignalStops(loop);
  // The transcript is read only when its answer can matter.
  const needSentinel = !stopFileExists && !loopStopping && lock !== 'held-by-other';
  const tasks = readTasks(taskDir);
  const decision = decide({
    taskDir, session: loop.session, stopFileExists, loopStopping, tasks, lock, maxIterations: loop.maxIterations,
    sentinelSeen: needSentinel && sentinelSeen(transcriptTail(field(event, 'transcript_path')), event.last_assistant_message),
    progress: progressOfLoop(store.hookProgress.get(taskDir), loop), loopIteration: loop.iteration, now: ctx.now,
  });

  store.tx(() => {
    if (decision.nextProgress) store.hookProgress.set(decision.nextProgress);
    store.events.insert({
      at: ctx.now.toISOString(), session: loop.session, taskDir, kind: decision.decision === 'block' ? 'hook_block' : 'hook_allow',
      detail: eventDetail(decision, tasks, agentSession),
    });
  }, 'immediate'); // a hook answers within the busy timeout, never fails at once on a busy upgrade
  if (decision.lock === 'refresh') writeLock(taskDir, makeLock(me, loop.agentPid ?? ctx.fallbackPid, ctx.host, ctx.now));
  if (decision.stopFile) writeStopFile(taskDir, decision.stopFile, { now: ctx.now });
  if (decision.signal) writeSignalFile(taskDir, decision.signal);
  if (decision.lock === 'release') releaseLock(taskDir, me);
  const output = decision.decision === 'block' ? `${JSON.stringify({ decision: 'block', reason: decision.reason })}\n` : undefined;
  return { output, loop, decision };
}

/**
 * The loop a Stop belongs to: `AUTODECK_TASK_DIR`, else the one loop whose agent runs in
 * the event's `cwd` (the one of `AUTODECK_SESSION` when several do). A failed loop is no
 * active loop.
 */
export function findLoop(store: Store, env: NodeJS.ProcessEnv, cwd: string | undefined): LoopRow | undefined {
  const active = (row: LoopRow | undefined) => (row && row.status !== 'failed' ? row : undefined);
  if (env.AUTODECK_TASK_DIR) {
    const dir = resolve(env.AUTODECK_TASK_DIR);
    return active(store.loops.getByTaskDir(real(dir)) ?? store.loops.getByTaskDir(dir));
  }
  if (!cwd) return undefined;
  const here = real(resolve(cwd));
  const rows = store.loops.list().filter((r) => r.status !== 'failed' && real(agentCwd(r)) === here);
  return rows.find((r) => r.session === env.AUTODECK_SESSION) ?? (rows.length === 1 ? rows[0] : undefined);
}

/** The loop was started in hook mode; the mode is kept with the loop's settings. */
export function isHookMode(row: Pick<LoopRow, 'settings'>): boolean {
  return row.settings.mode === 'hook';
}

/** Where the supervisor started the loop's agent. */
export function agentCwd(row: LoopRow): string {
  const stored = row.settings.cwd;
  return typeof stored === 'string' && stored !== '' ? stored : gitTopLevel(row.taskDir) ?? row.taskDir;
}

/** The stored counters, if they are this loop's: a module's earlier loop left its own. */
export function progressOfLoop(p: HookProgress | undefined, loop: Pick<LoopRow, 'session' | 'startedAt'>): HookProgress | undefined {
  if (!p || p.session !== loop.session) return undefined;
  const at = Date.parse(p.updatedAt);
  const started = Date.parse(loop.startedAt);
  return Number.isNaN(at) || (!Number.isNaN(started) && at < started) ? undefined : p;
}

function eventDetail(d: HookDecision, tasks: { total: number; completed: number }, agentSession: string): Record<string, unknown> {
  const detail: Record<string, unknown> = {
    rule: d.rule,
    // A block's reason is the whole prompt; its first line says it in brief.
    reason: d.decision === 'block' ? d.reason.split('\n')[0] : d.reason,
    completed: tasks.completed, total: tasks.total, agentSession,
  };
  if (d.nextProgress) Object.assign(detail, { iteration: d.nextProgress.iteration, staleIterations: d.nextProgress.staleIterations });
  if (d.outcome) detail.outcome = d.outcome;
  if (d.stopFile) detail.stopFile = d.stopFile;
  return detail;
}

function transcriptTail(path: string | undefined): TranscriptEntry[] {
  if (!path) return [];
  try {
    return readTranscriptTail(path, { maxBytes: TRANSCRIPT_TAIL_BYTES });
  } catch {
    return []; // unreadable: the sentinel is then judged by last_assistant_message alone
  }
}

/** This loop's signal already says `(stop)`: a Stop after the loop's end must not write over it. */
function lastSignalStops(loop: Pick<LoopRow, 'taskDir' | 'startedAt'>): boolean {
  const read = readSignalFile(join(loop.taskDir, SIGNAL_FILE));
  return read.ok && read.signal.next === '(stop)' && !(Date.parse(read.signal.timestamp) < Date.parse(loop.startedAt));
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
