import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { removeIfPresent } from '../protocol/atomic.js';
import { SIGNAL_FILE, SIGNAL_TMP_FILE } from '../protocol/signal.js';
import { STOP_FILE, type StopReason } from '../protocol/stopFile.js';
import { pragma } from '../store/statements.js';
import { spawnPtySession } from '../sessions/pty.js';
import { tmuxFactory } from '../sessions/tmux.js';
import type { TmuxOptions } from '../sessions/tmuxServer.js';
import type { SessionFactory } from '../sessions/session.js';
import { BUSY_TIMEOUT_MS, isTransientWriteError, withBusyTimeout } from '../store/db.js';
import type { EventKind } from '../store/events.js';
import type { Store } from '../store/index.js';
import type { LoopRow } from '../store/loops.js';
import type { RunRow } from '../store/runs.js';
import { Loop } from './loop.js';
import type { SupervisorEvents, SupervisorOptions, SupervisorSettings } from './supervisorOptions.js';
import { adoptOrphan } from './adoption.js';
import { TICK_MS } from './tick.js';
import { ownerAlive } from './owner.js';
import { stopOthersLoop } from './remoteStop.js';
import { systemClock, type Clock } from './clock.js';
import { EventRecorder } from './eventRecorder.js';
import { failRowInside } from './loopFailure.js';
import { watchLastResort } from './lastResort.js';
import { pickLoopSettings, specOfRow, type StoredLoopSettings } from './rowSpec.js';
import { agentLaunch, conflictRefusal, failedSummary, insertLoopRow, startTarget, StartRefused, type StartOptions } from './loopStart.js';
import { loopVerify } from './loopVerify.js';
import { loopWorktree } from './loopWorktree.js';
import { describeVerify, type VerifySetting } from '../verify/command.js';

export { StartRefused, type StartOptions, type ReplacedFailed } from './loopStart.js';
export type { StoredLoopSettings } from './rowSpec.js';

export type { SupervisorEvents, SupervisorOptions, SupervisorSettings } from './supervisorOptions.js';

export { TICK_MS } from './tick.js';
/** How often the owner heartbeat is written; well inside the 5-minute lease. */
export const LEASE_REFRESH_MS = 15_000;
/**
 * How long the supervisor's own writes wait for a lock held by another process. Short:
 * the connection is synchronous, and a wait is a frozen dashboard. A write that finds
 * the database locked is kept and tried again at the next tick (no lost update).
 */
export const SUPERVISOR_BUSY_MS = 20;



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
  /** The event log (what a locked database or a full disk held back, kept). */
  private readonly events: EventRecorder;
  private unwatch: (() => void) | undefined;

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
    this.events = new EventRecorder(this.store, this.clock, (e) => this.emit('event', e));
    pragma(this.store.db, `busy_timeout = ${SUPERVISOR_BUSY_MS}`);
    this.ticker = setInterval(() => this.tick(), TICK_MS);
    if (opts.lastResort) this.unwatch = watchLastResort(this);
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
   * Starts a loop on a task module. A loop left there by an autodeck that
   * died is adopted instead; undefined when adopting ended it at once.
   * Throws StartRefused.
   */
  start(path: string, opts: StartOptions = {}): Loop | undefined {
    // A start is asked for and answered: it may wait the full busy timeout, then says so.
    return withBusyTimeout(this.store.db, BUSY_TIMEOUT_MS, () => this.startNow(path, opts));
  }

  private startNow(path: string, opts: StartOptions): Loop | undefined {
    const { module, session } = startTarget(path, opts, this.settings.roots);
    // One loop per module and one per session; failed rows are replaced.
    const existing = [this.store.loops.getByTaskDir(module.dir), this.store.loops.get(session)]
      .find((r) => r !== undefined && r.status !== 'failed');
    if (existing) {
      // An orphan of this module is adopted in its own session, unless the caller asked for another.
      const mine = existing.taskDir === module.dir && (opts.session === undefined || opts.session === existing.session);
      if (mine && this.isOrphan(existing)) return this.adopt(existing);
      throw conflictRefusal(existing, existing.taskDir === module.dir ? undefined : module.name);
    }
    // A failed loop asked for manual intervention: starting again clears that, so say so.
    const failedRow = this.store.loops.getByTaskDir(module.dir);
    const replacedFailed = failedRow?.status === 'failed' ? failedSummary(failedRow, this.store.events.list(20, failedRow.taskDir)) : undefined;
    if (replacedFailed && opts.refuseFailed) {
      throw new StartRefused('failed', `${module.name}: the last loop on this module failed (${replacedFailed.why}) and needs manual intervention; not started (--refuse-failed)`);
    }

    const verify = loopVerify(this.settings.verify, module, this.env);
    if ('error' in verify) throw new StartRefused('usage', verify.error);
    const wantsWorktree = opts.worktree ?? this.settings.worktree ?? false;
    const { argv, agentArgv, cwd, mode, hooksInjected, worktree } = agentLaunch(this.settings, module, session, this.env,
      wantsWorktree ? (checkoutCwd) => {
        const made = loopWorktree(module, this.settings.worktreeBase, checkoutCwd);
        if ('error' in made) throw new StartRefused('usage', made.error);
        return made;
      } : undefined);

    const maxIterations = opts.maxIterations ?? this.settings.maxIterations;
    const timeoutMinutes = opts.timeoutMinutes ?? this.settings.timeoutMinutes;
    const loopSettings: StoredLoopSettings = {
      ...pickLoopSettings(this.settings), cwd, mode, hooksInjected, ...(verify.command ? { verifyCommand: verify.command } : {}),
    };
    const nowIso = new Date(this.now()).toISOString();
    const row = insertLoopRow(this.store.loops, {
      session, taskDir: module.dir, taskName: module.name, root: module.root, maxIterations, timeoutMinutes,
      startedAt: nowIso, backend: this.settings.backend, ownerPid: this.pid, ownerHost: this.host,
      ownerHeartbeatAt: nowIso, agentArgv, settings: loopSettings as unknown as Record<string, unknown>,
      ...(worktree ? { worktreePath: worktree.path, worktreeBranch: worktree.branch } : {}),
    }, module.name, worktree);
    // A stop file left by an earlier loop would end this one at once; an old signal would skew its counters.
    for (const name of [STOP_FILE, SIGNAL_FILE, SIGNAL_TMP_FILE]) removeIfPresent(join(module.dir, name));

    const loop = this.makeLoop(row, 'start');
    this.record(row, 'started', {
      maxIterations, timeoutMinutes, argv, cwd, backend: this.settings.backend, owner: this.pid, mode, hooksInjected, ...(replacedFailed ? { replacedFailed } : {}),
      ...(verify.command ? { verify: describeVerify(verify.command) } : {}),
    });
    if (worktree) {
      this.record(row, 'worktree', {
        action: 'created', path: worktree.path, branch: worktree.branch, base: worktree.base, baseCommit: worktree.baseCommit,
        ...(worktree.sourceDirty ? { note: 'the checkout has uncommitted changes; the worktree starts from the commit, without them' } : {}),
      });
    }
    loop.begin();
    this.emit('change');
    return loop;
  }

  /**
   * A Loop object for a row, its spec rebuilt from what the row stored. A row this cannot
   * be made from (a bug, or settings nothing foresaw) fails on its own: StartRefused 'failed'.
   */
  private makeLoop(row: LoopRow, where: string): Loop {
    let loop: Loop;
    try {
      const spec = specOfRow(row, { settings: this.settings, db: this.settings.db, env: this.env });
      loop = new Loop(row, spec, {
        store: this.store,
        spawn: row.backend === 'tmux' ? tmuxFactory(this.tmux) : this.spawnPty,
        clock: this.clock,
        record: (r, kind, detail, opts) => this.record(r, kind, detail, opts),
        changed: () => this.events.listen(() => this.emit('change')),
        ended: (l, run) => this.events.listen(() => this.onEnded(l, run)),
        busy: (err) => this.noteBusy(err),
      });
    } catch (err) {
      if (isTransientWriteError(err)) throw err;
      throw this.failRow(row, where, err);
    }
    this.loops.set(row.taskDir, loop);
    return loop;
  }

  /** A row of this process no Loop could be made for: failed at once, never left running. */
  private failRow(row: LoopRow, where: string, err: unknown): StartRefused {
    const text = failRowInside({ store: this.store, record: (r, kind, detail) => this.record(r, kind, detail) }, row, where, err);
    this.emit('change');
    return new StartRefused('failed', `${row.taskName || row.taskDir}: ${text}; the loop is failed`);
  }

  /** A row whose owner is gone: a dead pid here, or a stale lease from another host. */
  isOrphan(row: LoopRow): boolean {
    return row.status !== 'failed' && !ownerAlive(row, { host: this.host, now: this.now() });
  }

  /**
   * Adopts every orphaned loop that `accept` lets through. Loops of live
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
   * taken over, so that the limits of a dead `run`'s tmux loops keep holding
   * while a dashboard or `serve` is alive. The pid check is local and cheap; another
   * host's owner counts as gone only after its lease expires.
   */
  keepAdopting(everyMs = Math.max(TICK_MS, this.settings.heartbeatSeconds * 1000)): void {
    this.adoptEveryMs = everyMs;
    this.lastAdoptAt = this.clock.mono();
  }

  /** Takes one orphaned loop over; undefined when it ended (or failed) at once, or another process won it. */
  private adopt(orphan: LoopRow): Loop | undefined {
    return adoptOrphan(orphan, {
      store: this.store, host: this.host, pid: this.pid, tmux: this.tmux, now: this.now(), restartLimit: this.settings.restartLimit,
      makeLoop: (row) => this.makeLoop(row, 'adopt'),
      record: (row, kind, detail) => this.record(row, kind, detail),
      changed: () => this.emit('change'),
      failRow: (row, err) => this.failRow(row, 'adopt', err),
    });
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
   * Leaves every loop of this process for the next launch, as a process that
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

  private record(row: Pick<LoopRow, 'session' | 'taskDir' | 'taskName'>, kind: EventKind, detail: Record<string, unknown>, opts: { again?: boolean } = {}): void {
    this.events.record(row, kind, detail, opts);
  }

  private noteBusy(err: unknown): void {
    this.events.noteBusy(err);
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
    const recovered = this.events.held.recovered();
    if (recovered) this.record({ session: '', taskDir: '', taskName: '' }, 'error', recovered);
  }

  private tickNow(): void {
    this.events.held.save();
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
      // A suspended loop was left on purpose for the next launch, not orphaned by a crash.
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

  /**
   * The process's last resort (lastResort.ts): the error in the log, every loop let go (its
   * timers and watcher stopped, a tmux agent left running) and its row released at once,
   * for the next supervisor to adopt.
   */
  abandon(error: { message: string; stack: string }): void {
    clearInterval(this.ticker);
    this.record({ session: '', taskDir: '', taskName: '' }, 'internal_error', { where: 'process', ...error });
    for (const loop of this.active()) {
      try {
        loop.detach();
        this.store.loops.update(loop.row.session, { ownerPid: null });
      } catch { /* the next loop all the same; a row left under this pid is adoptable once the process is gone */ }
    }
    try {
      this.events.held.save();
    } catch { /* locked: those events are lost, the rows are not */ }
  }

  /** Stops timers and watchers; loops' rows stay for the next owner. */
  close(): void {
    this.unwatch?.();
    clearInterval(this.ticker);
    try {
      withBusyTimeout(this.store.db, BUSY_TIMEOUT_MS, () => this.events.held.save());
    } catch { /* still locked after the full wait: those events are lost, the rows are not */ }
    for (const loop of this.active()) loop.detach();
  }
}
