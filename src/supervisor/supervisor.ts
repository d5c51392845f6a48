import { EventEmitter } from 'node:events';
import Database from 'better-sqlite3';
import { hostname } from 'node:os';
import { expandAgentArgv, missingProgramMessage, resolveProgram } from '../agent/command.js';
import { gitTopLevel, isSessionId, sessionName } from '../paths.js';
import { removeIfPresent } from '../protocol/atomic.js';
import { resolveModule, startRefusal } from '../protocol/modules.js';
import { SIGNAL_FILE, SIGNAL_TMP_FILE } from '../protocol/signal.js';
import { STOP_FILE, type StopReason } from '../protocol/stopFile.js';
import { pragma } from '../store/statements.js';
import { spawnPtySession } from '../sessions/pty.js';
import { attachTmuxSession, tmuxFactory } from '../sessions/tmux.js';
import { tmuxSessionName } from '../sessions/tmuxCommand.js';
import type { TmuxOptions } from '../sessions/tmuxServer.js';
import type { SessionFactory } from '../sessions/session.js';
import { BUSY_TIMEOUT_MS, isConstraintError, isTransientWriteError, withBusyTimeout } from '../store/db.js';
import { HeldWrites } from './heldWrites.js';
import type { EventKind, LoopEvent } from '../store/events.js';
import type { Store } from '../store/index.js';
import type { LoopRow } from '../store/loops.js';
import type { RunRow } from '../store/runs.js';
import { Loop, type LoopSettings } from './loop.js';
import { planAdoption } from './adoption.js';
import { TICK_MS } from './tick.js';
import { ownerAlive } from './owner.js';
import { stopOthersLoop } from './remoteStop.js';
import { killOrphanAgent } from '../sessions/orphans.js';

/** What a loop's row keeps of its settings, so that a new owner runs it the same way. */
export interface StoredLoopSettings extends LoopSettings {
  cwd: string;
  /** signal: the agent runs its own loop; hook: the Stop hook drives it (SPEC 9). */
  mode?: 'signal' | 'hook';
  /** autodeck's hooks went in with the agent's `--settings` (a Claude Code agent). */
  hooksInjected?: boolean;
}

const LOOP_SETTING_KEYS = ['agentProfile', 'heartbeatSeconds', 'stallThreshold', 'recoveryPerIteration', 'recoveryTotal',
  'stepTimeoutMinutes', 'quotaProbeMinutes', 'graceSeconds', 'restartLimit', 'hungMinutes', 'hungErrorMinutes', 'hungRepeatCalls',
  'hungLadderMinutes', 'maxTokens', 'maxCostUsd', 'prices', 'contextWindows', 'approval'] as const satisfies readonly (keyof LoopSettings)[];

/** The per-loop settings present in `source` (a settings object, or what a row stored). */
function pickLoopSettings(source: Partial<LoopSettings>): LoopSettings {
  const out: Partial<Record<keyof LoopSettings, unknown>> = {};
  for (const k of LOOP_SETTING_KEYS) if (source[k] !== undefined) out[k] = source[k];
  return out as LoopSettings;
}
import { join } from 'node:path';
import { homedir } from 'node:os';
import { resolveProfile } from '../agents/userProfiles.js';
import { claudeProjectDir } from '../agents/transcript.js';
import { agentFilesFor } from '../agents/agentFiles.js';
import type { BeatLimits } from './heartbeat.js';
import { HOOKS_ENV, HOOKS_INJECTED, sessionSettings, withSessionSettings } from '../agents/claudeSettings.js';
import { injectedHookCommands } from '../hooks/commands.js';
import { readUserSettingsArg } from '../agents/userSettingsArg.js';
import { profileForProgram } from '../config/schema.js';

/**
 * A Claude Code agent's argv with autodeck's `--settings` (its hooks, the protocol's
 * permissions), merged into the user's own `--settings` when the command has one.
 */
function claudeArgv(argv: string[], taskDir: string, mode: 'signal' | 'hook', cwd: string): string[] {
  const ours = sessionSettings({ taskDir, mode, hooks: injectedHookCommands() });
  try {
    return withSessionSettings(argv, ours, (value) => readUserSettingsArg(value, cwd));
  } catch (err) {
    throw new StartRefused('usage', `the agent command's --settings: ${(err as Error).message}`);
  }
}
import { DEFAULT_HUNG_LIMITS } from './hung.js';
import { systemClock, type Clock } from './clock.js';
import { approvalSetup } from './approvals.js';
import { EMPTY_POLICY } from '../policy/rules.js';

/** What a new start says of the failed loop it replaces (in its `started` event). */
export interface ReplacedFailed {
  why: string;
  iteration: number;
  restartCount: number;
  startedAt: string | undefined;
}

function failedSummary(row: LoopRow, lastEvents: readonly LoopEvent[]): ReplacedFailed {
  const failed = [...lastEvents].reverse().find((e) => e.kind === 'failed');
  const message = typeof failed?.detail.message === 'string' ? failed.detail.message : undefined;
  const why = message ?? (row.stopReason ? `stop reason ${row.stopReason}` : `after ${row.restartCount} restarts`);
  return { why, iteration: row.iteration, restartCount: row.restartCount, startedAt: row.startedAt ?? undefined };
}

/** What the supervisor needs of the settings (SPEC 3). */
export interface SupervisorSettings extends LoopSettings {
  /** The user's additions to the agent profiles (settings file `profiles`). */
  profiles?: unknown;
  agent: string[];
  agentCwd?: string | undefined;
  backend: 'pty' | 'tmux';
  db: string;
  roots: string[];
  maxIterations: number;
  timeoutMinutes: number;
  mode?: 'signal' | 'hook';
}

/** Why a loop was not started; `kind` picks the exit code (usage 2, conflict 3). */
export class StartRefused extends Error {
  constructor(readonly kind: 'usage' | 'conflict' | 'failed', message: string) {
    super(message);
    this.name = 'StartRefused';
  }
}

export interface StartOptions {
  maxIterations?: number;
  timeoutMinutes?: number;
  /** The session id a caller chose (SPEC 8); the derived name when left out. */
  session?: string;
  /** Refuse (StartRefused 'failed') instead of replacing a loop that failed and needs a person. */
  refuseFailed?: boolean;
}

export interface SupervisorOptions {
  store: Store;
  settings: SupervisorSettings;
  /** The wall clock alone (tests); `clock` gives both. */
  now?: () => number;
  /** Wall and monotonic time (clock.ts); the system's by default. */
  clock?: Clock;
  /** Session factories per backend; tests pass their own (a private tmux socket, say). */
  spawn?: SessionFactory;
  tmux?: TmuxOptions;
  host?: string;
  pid?: number;
  env?: NodeJS.ProcessEnv;
}

export { TICK_MS } from './tick.js';
/** How often the owner heartbeat is written; well inside the 5-minute lease. */
export const LEASE_REFRESH_MS = 15_000;
/**
 * How long the supervisor's own writes wait for a lock held by another process. Short:
 * the connection is synchronous, and a wait is a frozen dashboard. A write that finds
 * the database locked is kept and tried again at the next tick (no lost update).
 */
export const SUPERVISOR_BUSY_MS = 20;


interface SupervisorEvents {
  event: [LoopEvent];
  change: [];
  ended: [RunRow];
  /** Every TICK_MS, after the loops' checks: the process's one pulse (the deck's and the clocks' looks come with it). */
  tick: [];
}

/**
 * Owns the loops of this process: starts them, routes stop requests, keeps the owner
 * lease fresh, and reports every event. Screens and CLIs listen; they never reach in.
 */
export class Supervisor extends EventEmitter<SupervisorEvents> {
  readonly store: Store;
  readonly settings: SupervisorSettings;
  readonly host: string;
  readonly pid: number;
  private readonly now: () => number;
  private readonly clock: Clock;
  private readonly spawnPty: SessionFactory;
  private readonly tmux: TmuxOptions;
  private readonly env: NodeJS.ProcessEnv;
  private readonly loops = new Map<string, Loop>();
  private readonly ticker: NodeJS.Timeout;
  private lastLeaseAt = -Infinity;
  /** Set by keepAdopting: how often to look for orphaned loops, and when it last looked. */
  private adoptEveryMs = 0;
  private lastAdoptAt = 0;
  /** What a locked database or a full disk held back. */
  private readonly held: HeldWrites;

  constructor(opts: SupervisorOptions) {
    super();
    this.store = opts.store;
    this.settings = opts.settings;
    this.clock = opts.clock ?? (opts.now ? { wall: opts.now, mono: systemClock.mono } : systemClock);
    this.now = () => this.clock.wall();
    this.spawnPty = opts.spawn ?? spawnPtySession;
    this.tmux = opts.tmux ?? { socket: (opts.env ?? process.env).AUTODECK_TMUX_SOCKET || undefined };
    this.host = opts.host ?? hostname();
    this.pid = opts.pid ?? process.pid;
    this.env = opts.env ?? process.env;
    this.held = new HeldWrites(this.store, this.clock);
    pragma(this.store.db, `busy_timeout = ${SUPERVISOR_BUSY_MS}`);
    this.ticker = setInterval(() => this.tick(), TICK_MS);
  }

  /** Loops owned by this process, by task folder. */
  active(): Loop[] {
    return [...this.loops.values()];
  }

  /** The loop of a task folder this process runs, if any. */
  loopOf(taskDir: string): Loop | undefined {
    return this.loops.get(taskDir);
  }

  /**
   * Starts a loop on a task module (SPEC 5.1). A loop left there by an autodeck that
   * died is adopted instead (SPEC 5.6); undefined when adopting ended it at once.
   * Throws StartRefused.
   */
  start(path: string, opts: StartOptions = {}): Loop | undefined {
    // A start is asked for and answered: it may wait the full busy timeout, then says so.
    return withBusyTimeout(this.store.db, BUSY_TIMEOUT_MS, () => this.startNow(path, opts));
  }

  private startNow(path: string, opts: StartOptions): Loop | undefined {
    const resolved = resolveModule(path, this.settings.roots);
    if (!resolved.ok) throw new StartRefused('usage', resolved.error);
    const { module } = resolved;
    const refusal = startRefusal(module.dir);
    if (refusal) throw new StartRefused('usage', `${module.name}: ${refusal}`);
    if (opts.session !== undefined && !isSessionId(opts.session)) {
      throw new StartRefused('usage', `a session id is 1 to 64 of A-Z a-z 0-9 . _ - (got ${JSON.stringify(opts.session.slice(0, 80))})`);
    }
    const session = opts.session ?? sessionName(module.name, module.dir);
    // One loop per module and one per session (SPEC 8); failed rows are replaced.
    const existing = [this.store.loops.getByTaskDir(module.dir), this.store.loops.get(session)]
      .find((r) => r !== undefined && r.status !== 'failed');
    if (existing) {
      // An orphan of this module is adopted in its own session, unless the caller asked for another.
      const mine = existing.taskDir === module.dir && (opts.session === undefined || opts.session === existing.session);
      if (mine && this.isOrphan(existing)) return this.adopt(existing);
      throw this.conflict(existing, existing.taskDir === module.dir ? undefined : module.name);
    }
    // A failed loop asked for manual intervention: starting again clears that, so say so.
    const failedRow = this.store.loops.getByTaskDir(module.dir);
    const replacedFailed = failedRow?.status === 'failed' ? failedSummary(failedRow, this.store.events.list(20, failedRow.taskDir)) : undefined;
    if (replacedFailed && opts.refuseFailed) {
      throw new StartRefused('failed', `${module.name}: the last loop on this module failed (${replacedFailed.why}) and needs manual intervention; not started (--refuse-failed)`);
    }

    const argv = expandAgentArgv(this.settings.agent, { taskDir: module.dir, taskName: module.name, session, root: module.root });
    const cwd = this.settings.agentCwd ?? gitTopLevel(module.dir) ?? module.dir;
    const program = argv[0] ? resolveProgram(argv[0], this.env, cwd) : undefined;
    if (!program) throw new StartRefused('usage', missingProgramMessage(argv[0] ?? ''));
    argv[0] = program;
    const mode = this.settings.mode ?? 'signal';
    // Only Claude Code itself takes --settings: a wrapper or the simulator read as the claude profile must not get it.
    const hooksInjected = this.settings.agentProfile === 'claude' && profileForProgram(program) === 'claude';
    const agentArgv = hooksInjected ? claudeArgv(argv, module.dir, mode, cwd) : argv;

    const maxIterations = opts.maxIterations ?? this.settings.maxIterations;
    const timeoutMinutes = opts.timeoutMinutes ?? this.settings.timeoutMinutes;
    const loopSettings: StoredLoopSettings = {
      ...pickLoopSettings(this.settings), cwd, mode, hooksInjected,
    };
    const nowIso = new Date(this.now()).toISOString();
    let row: LoopRow;
    try {
      row = this.store.loops.insert({
        session, taskDir: module.dir, taskName: module.name, root: module.root, maxIterations, timeoutMinutes,
        startedAt: nowIso, backend: this.settings.backend, ownerPid: this.pid, ownerHost: this.host,
        ownerHeartbeatAt: nowIso, agentArgv, settings: loopSettings as unknown as Record<string, unknown>,
      });
    } catch (err) {
      // The database is the final guard against two processes starting one loop at once.
      if (isConstraintError(err)) {
        const winner = this.store.loops.getByTaskDir(module.dir) ?? this.store.loops.get(session);
        throw winner ? this.conflict(winner, winner.taskDir === module.dir ? undefined : module.name) : new StartRefused('conflict', `${module.name}: a loop is already running`);
      }
      throw err;
    }
    // A stop file left by an earlier loop would end this one at once; an old signal would skew its counters.
    for (const name of [STOP_FILE, SIGNAL_FILE, SIGNAL_TMP_FILE]) removeIfPresent(join(module.dir, name));

    const loop = this.makeLoop(row);
    this.record(row, 'started', {
      maxIterations, timeoutMinutes, argv, cwd, backend: this.settings.backend, owner: this.pid, mode, hooksInjected, ...(replacedFailed ? { replacedFailed } : {}),
    });
    loop.begin();
    this.emit('change');
    return loop;
  }

  /** A Loop object for a row, its spec rebuilt from what the row stored. */
  private makeLoop(row: LoopRow): Loop {
    const stored = row.settings as Partial<StoredLoopSettings>;
    // What the row kept wins: an adopted loop runs as it was started.
    const settings: LoopSettings = { ...pickLoopSettings(this.settings), ...pickLoopSettings(stored) };
    const cwd = stored.cwd ?? gitTopLevel(row.taskDir) ?? row.taskDir;
    const { profile } = resolveProfile(settings.agentProfile, this.settings.profiles);
    const limits: BeatLimits = {
      stallThreshold: settings.stallThreshold, recoveryPerIteration: settings.recoveryPerIteration,
      recoveryTotal: settings.recoveryTotal, stepTimeoutMs: settings.stepTimeoutMinutes * 60_000,
      quotaProbeMs: settings.quotaProbeMinutes * 60_000,
      // rows stored before these settings existed get the defaults
      hung: {
        ...DEFAULT_HUNG_LIMITS,
        transcriptMs: (settings.hungMinutes ?? 30) * 60_000, cpuIdleMs: (settings.hungMinutes ?? 30) * 60_000,
        errorBannerMs: (settings.hungErrorMinutes ?? 10) * 60_000, repeatedToolCalls: settings.hungRepeatCalls ?? 6,
        ladderMs: (settings.hungLadderMinutes ?? 3) * 60_000,
      },
    };
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.env)) if (v !== undefined) env[k] = v;
    Object.assign(env, { AUTODECK_TASK_DIR: row.taskDir, AUTODECK_SESSION: row.session, AUTODECK_DB: this.settings.db });
    if (stored.hooksInjected) env[HOOKS_ENV] = HOOKS_INJECTED;
    else delete env[HOOKS_ENV];
    const transcriptDir = profile.transcript === 'claude' ? claudeProjectDir(env.HOME ?? homedir(), cwd) : undefined;
    const agentFiles = agentFilesFor(profile.name, { env, home: env.HOME ?? homedir(), cwd, sinceMs: Date.parse(row.startedAt) });
    const approval = approvalSetup(settings.approval ?? EMPTY_POLICY, gitTopLevel(row.taskDir) ?? cwd, cwd, env.HOME ?? homedir());
    const loop = new Loop(row, { argv: row.agentArgv, cwd, env, settings, profile, limits, transcriptDir, approval, agentFiles }, {
      store: this.store,
      spawn: row.backend === 'tmux' ? tmuxFactory(this.tmux) : this.spawnPty,
      clock: this.clock,
      record: (r, kind, detail, opts) => this.record(r, kind, detail, opts),
      changed: () => this.emit('change'),
      ended: (l, run) => this.onEnded(l, run),
      busy: (err) => this.noteBusy(err),
    });
    this.loops.set(row.taskDir, loop);
    return loop;
  }

  /** A row whose owner is gone: a dead pid here, or a stale lease from another host. */
  isOrphan(row: LoopRow): boolean {
    return row.status !== 'failed' && !ownerAlive(row, { host: this.host, now: this.now() });
  }

  /**
   * Adopts every orphaned loop that `accept` lets through (SPEC 5.6). Loops of live
   * owners are never touched. Returns the loops now running here.
   */
  adoptOrphans(accept: (row: LoopRow) => boolean = () => true): Loop[] {
    const adopted: Loop[] = [];
    for (const row of this.store.loops.list()) {
      if (this.loops.has(row.taskDir) || !this.isOrphan(row) || !accept(row)) continue;
      try {
        const loop = this.adopt(row);
        if (loop) adopted.push(loop);
      } catch (err) {
        if (!(err instanceof StartRefused)) throw err; // another process adopted it first: theirs now
      }
    }
    return adopted;
  }

  /**
   * Keeps adopting: every heartbeat (at least every TICK_MS), loops whose owner died are
   * taken over (SPEC 5.6), so that the limits of a dead `run`'s tmux loops keep holding
   * while a dashboard or `serve` is alive. The pid check is local and cheap; another
   * host's owner counts as gone only after its lease expires.
   */
  keepAdopting(everyMs = Math.max(TICK_MS, this.settings.heartbeatSeconds * 1000)): void {
    this.adoptEveryMs = everyMs;
    this.lastAdoptAt = this.clock.mono();
  }

  /** Takes one orphaned loop over; undefined when it ended (or failed) at once, or another process won it. */
  private adopt(orphan: LoopRow): Loop | undefined {
    const at = new Date(this.now()).toISOString();
    // Compare-and-swap on the old owner: of two adopters, exactly one wins.
    if (!this.store.loops.claim(orphan, { ownerPid: this.pid, ownerHost: this.host, ownerHeartbeatAt: at })) {
      throw new StartRefused('conflict', `${orphan.taskName}: another autodeck is taking this loop over`);
    }
    const from = { pid: orphan.ownerPid, host: orphan.ownerHost };
    const row = this.store.loops.get(orphan.session)!;
    // A tmux agent outlives its supervisor: watch it again rather than start a second one.
    const survivor = orphan.backend === 'tmux' ? attachTmuxSession(tmuxSessionName(orphan.session), this.tmux) : undefined;
    if (survivor && !survivor.exited) {
      const loop = this.makeLoop(row);
      this.record(row, 'recovered', { from, status: orphan.status, action: 'reattach', agentPid: survivor.pid });
      if (row.status !== 'stopping') removeIfPresent(join(row.taskDir, STOP_FILE));
      loop.reattach(survivor);
      this.emit('change');
      return loop;
    }
    survivor?.dispose(); // its agent has exited: the pane goes, the loop is adopted as below
    // A pty agent dies with its owner; one that survived (ignoring SIGHUP) cannot be watched again.
    const killed = orphan.ownerHost === this.host && orphan.backend !== 'tmux' && killOrphanAgent(orphan.agentPid, orphan.session);
    const plan = planAdoption(orphan, (orphan.settings as Partial<StoredLoopSettings>).restartLimit ?? this.settings.restartLimit);
    const loop = this.makeLoop(row);
    this.record(row, 'recovered', { from, status: orphan.status, action: plan.action, killedOrphanAgent: killed });
    if (plan.action === 'finish') {
      loop.finishOrphan();
      return undefined;
    }
    if (plan.action === 'fail') {
      loop.failOrphan(plan.restartCount);
      return undefined;
    }
    removeIfPresent(join(row.taskDir, STOP_FILE)); // stale: nobody is stopping this loop now
    loop.resume({ restartCount: plan.restartCount });
    this.emit('change');
    return loop;
  }

  /** `asked`: the module that wanted a session another module's loop holds. */
  private conflict(existing: LoopRow, asked?: string): StartRefused {
    const owner = existing.ownerPid ? ` by autodeck pid ${existing.ownerPid} on ${existing.ownerHost}` : '';
    const name = existing.taskName || existing.taskDir;
    if (asked !== undefined) {
      return new StartRefused('conflict', `${asked}: session ${existing.session} is taken: a loop on ${name} is already ${existing.status} in it${owner}`);
    }
    return new StartRefused('conflict', `${name}: a loop is already ${existing.status} in session ${existing.session}${owner}`);
  }

  /**
   * Asks a loop to stop. Loops of this process stop directly; any other loop through
   * its stop file (stopOthersLoop). Returns false when no loop runs on that module.
   */
  stop(taskDir: string, opts: { force?: boolean; reason?: StopReason } = {}): boolean {
    const reason = opts.reason ?? 'user_stop';
    const mine = this.loops.get(taskDir);
    if (mine) {
      mine.requestStop(reason, { force: opts.force ?? false });
      return true;
    }
    const row = this.store.loops.getByTaskDir(taskDir);
    if (!row || row.status === 'failed') return false;
    stopOthersLoop(this.store, row, { reason, force: opts.force ?? false, host: this.host, now: this.now() });
    return true;
  }

  /** Stops every loop of this process. */
  stopAll(opts: { force?: boolean } = {}): void {
    for (const loop of this.active()) loop.requestStop('user_stop', opts);
  }

  /**
   * Leaves every loop of this process for the next launch (SPEC 5.7), as a process that
   * quits on purpose does: pty loops are suspended (their agents end, their rows stay
   * `suspended` and resume at the next launch without counting a restart); tmux agents
   * are let go and keep running, to be re-attached. Returns how many loops it left.
   */
  suspendAll(): number {
    const loops = this.active();
    for (const loop of loops) {
      if (loop.row.backend === 'tmux') loop.detach();
      else loop.suspend();
      this.loops.delete(loop.taskDir);
    }
    if (loops.length > 0) this.emit('change');
    return loops.length;
  }

  /** Resolves once this process owns no running loop. */
  whenIdle(): Promise<void> {
    if (this.loops.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.loops.size > 0) return;
        this.off('ended', check);
        resolve();
      };
      this.on('ended', check);
    });
  }

  private onEnded(loop: Loop, run: RunRow): void {
    this.loops.delete(loop.taskDir);
    this.emit('ended', run);
    this.emit('change');
  }

  /** Writes an event and tells the listeners; `again`: a rolled-back one, written again, already told. */
  private record(row: LoopRow, kind: EventKind, detail: Record<string, unknown>, opts: { again?: boolean } = {}): void {
    const event: LoopEvent = { at: new Date(this.now()).toISOString(), session: row.session, taskDir: row.taskDir, taskName: row.taskName, kind, detail };
    try {
      // Behind events a lock held back, an event waits its turn: the log keeps its order.
      if (this.held.waiting) throw new Database.SqliteError('events are waiting to be written', 'SQLITE_BUSY');
      const { id, repeats } = this.store.events.record(event);
      event.id = id;
      if (repeats > 1) event.repeats = repeats;
    } catch (err) {
      if (isTransientWriteError(err)) {
        // Kept, and written at the first tick the database takes writes again.
        this.held.hold(event);
        this.noteBusy(err);
      } else {
        // The log must never take a loop down; the listeners still hear of it.
        event.detail = { ...detail, logError: (err as Error).message };
      }
    }
    if (!opts.again) this.emit('event', event);
  }

  /** A write failed for now (locked, or the disk full): said once, kept for later. */
  private noteBusy(err: unknown): void {
    const message = this.held.failed(err);
    if (message) this.emit('event', message);
  }

  private tick(): void {
    this.checkLoops();
    this.emit('tick');
  }

  private checkLoops(): void {
    try {
      this.tickNow();
    } catch (err) {
      if (!isTransientWriteError(err)) throw err;
      this.noteBusy(err);
      return;
    }
    const recovered = this.held.recovered();
    if (recovered) this.record({ session: '', taskDir: '', taskName: '' } as LoopRow, 'error', recovered);
  }

  private tickNow(): void {
    this.held.save();
    if (this.loops.size > 0) this.store.agentState.sync(this.store.dataVersion());
    for (const loop of this.active()) loop.tick();
    const dirty = this.active().filter((loop) => loop.dirty);
    if (dirty.length > 0) {
      const written: [Loop, Partial<LoopRow>][] = [];
      try {
        this.store.tx(() => {
          for (const loop of dirty) {
            const write = loop.flush();
            if (write) written.push([loop, write]);
          }
        });
      } catch (err) {
        // Not committed: every loop's counters go back for the next tick.
        for (const [loop, write] of written) loop.requeue(write);
        throw err;
      }
    }
    // Intervals on the monotonic clock: a wall clock set back must not pause the lease for an hour.
    const now = this.clock.mono();
    if (this.adoptEveryMs > 0 && now - this.lastAdoptAt >= this.adoptEveryMs) {
      this.lastAdoptAt = now;
      // A suspended loop was left on purpose for the next launch (SPEC 5.7), not orphaned by a crash.
      this.adoptOrphans((row) => row.status !== 'suspended');
    }
    if (now - this.lastLeaseAt >= LEASE_REFRESH_MS && this.loops.size > 0) {
      this.lastLeaseAt = now;
      const at = new Date(this.clock.wall()).toISOString();
      this.store.tx(() => {
        for (const loop of this.active()) this.store.loops.update(loop.row.session, { ownerHeartbeatAt: at });
      });
    }
  }

  /** Stops timers and watchers; loops' rows stay for the next owner (SPEC 5.6). */
  close(): void {
    clearInterval(this.ticker);
    try {
      withBusyTimeout(this.store.db, BUSY_TIMEOUT_MS, () => this.held.save());
    } catch { /* still locked after the full wait: those events are lost, the rows are not */ }
    for (const loop of this.active()) loop.detach();
  }
}
