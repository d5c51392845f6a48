import { join } from 'node:path';
import { removeIfPresent, writeFileAtomic } from '../protocol/atomic.js';
import { agentFileText } from '../protocol/safeRead.js';
import { jsonObjectOrUndefined } from '../format/jsonObject.js';
import { pidAlive } from '../pidAlive.js';

/**
 * `TASK_DIR/.autodeck.lock`: which agent session drives a loop through its Stop
 * hook, so a second session in the same module (a person's second pane in the tmux
 * session inherits AUTODECK_*) never advances or ends a loop it does not own.
 */
export const LOCK_FILE = '.autodeck.lock';

/** A lock not refreshed for this long may be taken over: its session stopped answering. */
export const LOCK_STALE_MS = 5 * 60_000;

export interface HookLock {
  /** `session:<session_id>` of the agent session holding it. */
  owner: string;
  /** The agent process of that session (the loop's agent pid when known). */
  pid: number;
  host: string;
  heartbeat_at: string;
}

export type LockDecision = 'mine' | 'take' | 'held-by-other';

export function lockOwner(sessionId: string): string {
  return `session:${sessionId}`;
}

export function lockPath(taskDir: string): string {
  return join(taskDir, LOCK_FILE);
}

/** A lock file's content; undefined when it is not a lock (then anyone may take it). */
export function parseLock(text: string): HookLock | undefined {
  const o = jsonObjectOrUndefined(text);
  if (!o) return undefined;
  if (typeof o.owner !== 'string' || o.owner === '') return undefined;
  return {
    owner: o.owner,
    pid: typeof o.pid === 'number' && Number.isSafeInteger(o.pid) ? o.pid : 0,
    host: typeof o.host === 'string' ? o.host : '',
    heartbeat_at: typeof o.heartbeat_at === 'string' ? o.heartbeat_at : '',
  };
}

/**
 * Whether session `me` may drive the loop. Pure. A lock is stale (and taken) when its
 * heartbeat is 5 minutes old, unreadable, or as far in the future (a clock set wrong
 * must not hold a loop forever), or when its holder is known to be gone (`holderGone`:
 * the agent process that wrote it has exited, e.g. the supervisor restarted the agent).
 */
export function lockDecision(existing: HookLock | undefined, me: string, now: Date | number, opts: { holderGone?: boolean } = {}): LockDecision {
  if (!existing) return 'take';
  if (existing.owner === me) return 'mine';
  if (opts.holderGone) return 'take';
  const beat = Date.parse(existing.heartbeat_at);
  if (Number.isNaN(beat)) return 'take';
  const age = (typeof now === 'number' ? now : now.getTime()) - beat;
  return age >= LOCK_STALE_MS || age <= -LOCK_STALE_MS ? 'take' : 'held-by-other';
}

export function makeLock(owner: string, pid: number, host: string, now: Date): HookLock {
  return { owner, pid, host, heartbeat_at: now.toISOString() };
}

export function readLock(taskDir: string): HookLock | undefined {
  try {
    const text = agentFileText(lockPath(taskDir), 4096);
    return text === undefined ? undefined : parseLock(text);
  } catch {
    return undefined;
  }
}

/** Writes (or refreshes) the lock atomically. */
export function writeLock(taskDir: string, lock: HookLock): void {
  writeFileAtomic(lockPath(taskDir), `${JSON.stringify(lock)}\n`);
}

/** Removes the lock when `owner` holds it, so the module's next loop starts free. */
export function releaseLock(taskDir: string, owner: string): void {
  if (readLock(taskDir)?.owner === owner) removeIfPresent(lockPath(taskDir));
}

/**
 * Whether the lock's agent process is known to be gone: only a process on this host can
 * be checked; anything else is not known to be gone.
 */
export function holderGone(lock: HookLock, host: string, alive: (pid: number) => boolean = pidAlive): boolean {
  return lock.host === host && lock.pid > 0 && !alive(lock.pid);
}
