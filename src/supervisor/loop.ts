import { existsSync } from 'node:fs';
import type { Session, SessionExit } from '../sessions/session.js';
import type { LoopRow } from '../store/loops.js';
import type { EventKind } from '../store/events.js';
import type { Outcome } from '../store/runs.js';
import type { StopReason } from '../protocol/stopFile.js';
import type { Watchdog } from './watchdog.js';
import { loopWatchdog } from './loopWatchdog.js';
import { LoopRowWriter } from './loopRowWriter.js';
import { applySignal } from './limits.js';
import type { LoopDeps, LoopSpec } from './loopSpec.js';
import { LoopTimers } from './loopTimers.js';
import { ProgressFiles } from './progressFiles.js';
import { AgentProcess } from './agentProcess.js';
import { LoopGovernor } from './loopGovernor.js';
import { LoopStopping } from './loopStopping.js';
import { LoopEnding } from './loopEnd.js';
import { LoopBoundary, within, type LoopEntry } from './loopBoundary.js';
import { INTERNAL_ERROR, LoopFailure } from './loopFailure.js';
import type { VerifyGate } from './verifyGate.js';
import { loopVerifyGate, verifyAgain } from './verifyWiring.js';
import { LoopRestarts } from './loopRestart.js';
import { closeWorktree } from './loopWorktree.js';

export type { LoopDeps, LoopSettings, LoopSpec } from './loopSpec.js';

/**
 * One supervised loop: its states and the transitions between them. Its parts each do
 * one job: the agent's process (agentProcess.ts), the progress files and their watch
 * (progressFiles.ts), the heartbeat's judgement of the screen (watchdog.ts), the limits
 * of iterations, time, budget and context (loopGovernor.ts), stopping in order
 * (loopStopping.ts), its timers (loopTimers.ts), the row and its writes
 * (loopRowWriter.ts), its restarts (loopRestart.ts), the verify before `complete`
 * (verifyWiring.ts), its end (loopEnd.ts). Everything that comes into the loop from
 * outside comes through one boundary (`enter`, loopBoundary.ts): an exception there fails
 * this loop alone, its agent stopped in order (loopFailure.ts). Time comes from
 * `deps.clock` (durations on its monotonic side); the decisions themselves are the pure
 * functions of limits.ts.
 */
export class Loop {
  /** The loop's row, and its way to the database (nothing lost when a write fails). */
  private readonly rows: LoopRowWriter;
  private readonly timers: LoopTimers;
  private readonly files: ProgressFiles;
  private readonly agent: AgentProcess;
  private readonly governor: LoopGovernor;
  private readonly stopper: LoopStopping;
  private readonly watchdog: Watchdog;
  /** The verify before `complete` (verifyGate.ts). */
  private readonly verify: VerifyGate;
  /** A person has the agent's terminal (attach mode). */
  private attachedNow = false;
  /** Where the world comes in: what is thrown there fails this loop alone (`internal`). */
  private readonly boundary: LoopBoundary;
  private readonly internal: LoopFailure;
  private readonly ending: LoopEnding;
  private readonly restarts: LoopRestarts;

  constructor(row: LoopRow, private readonly spec: LoopSpec, private readonly deps: LoopDeps) {
    this.rows = new LoopRowWriter(row, deps);
    this.boundary = new LoopBoundary(row.taskDir, { internal: (where, err, entry) => this.internal.start(where, err, entry), busy: (err) => deps.busy?.(err) });
    this.internal = new LoopFailure({
      taskDir: row.taskDir, graceMs: spec.settings.graceSeconds * 1000,
      session: () => this.agent.session,
      event: (kind, detail) => this.rows.event(kind, detail),
      quiet: () => {
        this.timers.clear();
        this.files.close();
      },
      markStopping: () => this.rows.patch({ status: 'stopping', stopReason: INTERNAL_ERROR }),
      end: (message) => this.ending.afterFailure(message, INTERNAL_ERROR),
    });
    const enter: LoopEntry = (where, fn) => this.enter(where, fn);
    const event = (kind: EventKind, detail: Record<string, unknown>): void => this.rows.event(kind, detail);
    const patch = (p: Partial<LoopRow>): void => this.rows.patch(p);
    const patchLater = (p: Partial<LoopRow>): void => this.rows.patchLater(p);
    const rowOf = (): LoopRow => this.row;
    this.timers = new LoopTimers(enter);
    this.files = new ProgressFiles(row.taskDir, {
      enter, event, over: () => this.over, signalChanged: () => this.checkSignal(), stopChanged: () => this.checkStopFile(),
    });
    this.agent = new AgentProcess({ argv: spec.argv, cwd: spec.cwd, env: spec.env }, {
      enter, event, patch, row: rowOf, spawn: deps.spawn, store: deps.store, clock: deps.clock, exited: (exit) => this.onAgentExit(exit),
    });
    this.governor = new LoopGovernor({
      event, patch, patchLater, row: rowOf, store: deps.store, clock: deps.clock, settings: spec.settings,
      transcriptDir: spec.transcriptDir, usageSource: spec.agentFiles?.spend, quotaWaitingMs: () => this.watchdog.quotaWaitingMs(),
    });
    this.stopper = new LoopStopping({
      event, patch, patchLater, row: rowOf, taskDir: row.taskDir, clock: deps.clock, settings: spec.settings, profile: spec.profile,
      agent: this.agent, files: this.files, over: () => this.over, tx: (fn) => this.rows.tx(fn),
      later: (ms, fn, where) => this.timers.later(ms, fn, where), finish: () => this.finish(),
    });
    this.restarts = new LoopRestarts({
      row: rowOf, patch, event, tx: (fn) => this.rows.tx(fn), storeTx: (fn) => deps.store.tx(fn), later: (ms, fn) => this.timers.later(ms, fn),
      agent: this.agent, restartLimit: spec.settings.restartLimit, settled: () => this.over || this.stopping, fail: () => this.fail(),
    });
    this.watchdog = loopWatchdog({
      taskDir: row.taskDir, row: rowOf, patch, patchLater, event, session: () => this.agent.session, agent: this.agent,
      requestStop: (reason) => this.requestStop(reason), fail: (message, code) => this.fail(message, code),
      restartHung: (extraArgs, detail) => this.restarts.hung(extraArgs, detail), later: (ms, fn) => this.timers.later(ms, fn),
      continuation: () => this.verify.takeMessage(),
    }, spec, deps);
    this.verify = loopVerifyGate({
      enter, row: rowOf, patch, event, tx: (fn) => this.rows.tx(fn), wall: () => deps.clock.wall(),
      record: (r) => deps.store.verifies.record(r), later: (ms, fn) => this.timers.later(ms, fn, 'verify'),
      profile: spec.profile, agent: this.agent, stopper: this.stopper, attached: () => this.attachedNow,
      progressed: () => this.watchdog.onSignal(), finish: () => this.finish(), restartAfterCrash: (exit, why) => this.restarts.afterCrash(exit, why),
    }, spec.verify);
    this.ending = new LoopEnding({
      deps, rows: this.rows, timers: this.timers, files: this.files, agent: this.agent, governor: this.governor, stopper: this.stopper,
      internal: this.internal, enter, ended: (run) => deps.ended(this, run),
      verify: this.verify,
      closeWorktree: () => closeWorktree(this.row, (kind, detail) => this.rows.event(kind, detail)),
    });
  }

  /**
   * The loop's one boundary: every call into it from outside (its watcher and timers, its
   * agent's exit, the supervisor, the dashboard) runs through here. An exception there
   * ends this loop `failed` (loopFailure.ts); the other loops go on.
   */
  private enter<T>(where: string, fn: () => T): T | undefined {
    return this.boundary.enter(where, fn);
  }

  get row(): LoopRow {
    return this.rows.row;
  }

  /** The agent's session while this loop has one. */
  get session(): Session | undefined {
    return this.agent.session;
  }

  /** Over: ended, suspended or detached; its row is final. */
  private get over(): boolean {
    return this.rows.closed;
  }

  get taskDir(): string {
    return this.row.taskDir;
  }

  get ended(): boolean {
    return this.over;
  }

  /** Whether a person has the agent's terminal now (attach mode). */
  get attached(): boolean {
    return this.attachedNow;
  }

  get stopping(): boolean {
    return this.stopper.stopping;
  }

  /** Starts watching and the agent; or watches an agent already running; `none`: no agent for now (a verify decides). */
  begin(running?: Session | 'none'): void {
    this.enter('begin', () => {
      this.files.watch();
      if (running === 'none') { /* the verify under way decides whether an agent is needed */ }
      else if (running) this.agent.adopt(running);
      else this.agent.spawn();
      this.timers.startBeat(Math.max(50, this.spec.settings.heartbeatSeconds * 1000), this.deps.clock.mono(), () => this.beat());
    });
  }

  /**
   * Watches again an agent that outlived its supervisor (tmux): no new agent, no restart
   * counted. A loop that was stopping goes on stopping.
   */
  reattach(session: Session): void {
    this.enter('reattach', () => {
      if (this.row.status === 'stopping' && this.row.stopReason) this.stopper.reason = this.row.stopReason as StopReason;
      this.rows.patch({ stallCount: 0, lastCaptureHash: '' });
      this.begin(session);
      if (this.stopper.reason) this.stopper.startGrace();
      else if (this.row.status === 'verifying' && this.verify.enabled) verifyAgain(this.verify, this.row);
    });
  }

  /** Runs an adopted loop again in this process: a new agent, counters as planned. */
  resume(opts: { restartCount: number }): void {
    this.enter('resume', () => {
      const counted = opts.restartCount > this.row.restartCount ? 1 : 0;
      // A loop whose verify was under way: the verify runs again first, the agent only if it fails.
      const verifying = this.row.status === 'verifying' && this.verify.enabled;
      this.rows.patch({ status: verifying ? 'verifying' : 'starting', restartCount: opts.restartCount, restartsTotal: this.row.restartsTotal + counted, stallCount: 0, lastCaptureHash: '', stopReason: '', agentPid: null });
      this.begin(verifying ? 'none' : undefined);
      if (verifying) verifyAgain(this.verify, this.row);
    });
  }

  /** An adopted `stopping` loop: the stop was wanted, so it ends with the reason it had. */
  finishOrphan(): void {
    this.enter('adopt', () => {
      // its earlier owner failed it inside and was stopping its agent: it fails now
      if (this.row.stopReason === INTERNAL_ERROR) return this.fail('an internal error ended this loop (see its internal_error event)', INTERNAL_ERROR);
      this.stopper.restore(this.row);
      this.finish();
    });
  }

  /** An adopted loop over its restart limit. */
  failOrphan(restartCount: number): void {
    this.enter('adopt', () => {
      this.rows.patch({ restartCount, restartsTotal: this.row.restartsTotal + 1 });
      this.fail();
    });
  }

  /** Cheap checks that do not wait for the watcher: limits, and files it may have missed. */
  tick(): void {
    this.enter('tick', () => {
      if (this.over) return;
      // The watcher sees the files first: the look for what it missed is a safety net, made every few ticks.
      this.files.tick();
      if (this.timers.beatDue(() => this.deps.clock.mono())) {
        this.beat();
        if (this.over) return;
      }
      if (this.stopping) return;
      const reason = this.governor.limit();
      if (reason) this.requestStop(reason);
      else if (!this.attachedNow && !this.verify.busy) {
        this.watchdog.promptBeat();
        this.verify.tell();
      }
    });
  }

  /**
   * A person attached to the agent (or left it). Meanwhile the heartbeat rests: a prompt
   * the person is reading must not be answered under their fingers, and their typing is
   * no stall. The loop's own limits (iterations, timeout) still hold. The stall count
   * starts again from nothing afterwards.
   */
  setAttached(on: boolean): void {
    this.enter('attach', () => {
      if (this.attachedNow === on) return;
      this.attachedNow = on;
      if (!on && !this.over) this.rows.patchLater({ stallCount: 0, lastCaptureHash: '' });
    });
  }

  /** Heartbeat: stall detection while the loop runs; after it, ending an idle agent. */
  private beat(): void {
    within('heartbeat', () => this.beatNow());
  }

  private beatNow(): void {
    const session = this.agent.session;
    if (this.over || !session || session.exited || this.attachedNow) return;
    if (this.stopping) {
      if (!this.watchdog.stoppingBeat()) this.stopper.beat(session);
      return;
    }
    // At each heartbeat the row's spend is kept current between signals (the dashboard's tokens and ctx %).
    const reason = this.governor.watchSpend();
    if (reason) this.requestStop(reason);
    if (this.stopping || this.over) return;
    this.agent.noteProcesses();
    if (this.verify.busy) return; // an agent idle while its work is verified is no stall
    this.watchdog.beat();
  }

  /** Reads the newest signal; a file already applied is not applied twice. */
  private checkSignal(): void {
    if (this.over) return;
    const news = this.files.newSignal();
    if (!news) return;
    const { read, firstLook } = news;
    if (!read.ok) {
      if (read.reason !== 'absent') this.rows.event('signal_invalid', { reason: read.reason });
      return;
    }
    // An adopted loop's first look finds the signal its earlier owner applied: not progress
    // again (it would end a quota wait, and a signal without an iteration would count one).
    if (firstLook && this.files.appliedBefore(this.row.lastSignalAt)) return;
    const signal = read.signal;
    // the agent went on while its work was being verified: that verify is moot
    if (this.verify.busy) this.verify.cancel('a new signal');
    const { patch } = applySignal(this.row, signal, new Date(this.deps.clock.wall()));
    if (this.row.status !== 'stopping' && this.row.status !== 'failed') Object.assign(patch, { status: 'running' });
    this.rows.tx(() => {
      this.rows.patch({ ...patch, stallCount: 0 });
      this.rows.event('signal', { ...signal, iteration: this.row.iteration });
      this.watchdog.onSignal();
    });
    const closed = this.governor.recordSpend(this.files.signalWrittenMs());
    if (this.stopping) return;
    if (signal.next === '(stop)') {
      // an end that would be complete must pass the verify first
      if (this.verify.wants(signal)) this.verify.start(signal);
      else this.stopper.stopSignalled(signal);
      return;
    }
    const reason = this.governor.limitAfterSignal(closed);
    if (reason) this.requestStop(reason);
  }

  /** A stop file appeared: ours, or another process asking. */
  private checkStopFile(): void {
    if (this.over) return;
    const request = this.files.stopRequest();
    if (!request) return;
    this.verify.cancel('the loop is stopping');
    this.verify.dropMessage();
    this.stopper.fromStopFile(request);
  }

  /** Asks the agent to stop by writing the stop file; `force` kills at once. */
  requestStop(reason: StopReason, opts: { force?: boolean } = {}): void {
    if (this.boundary.failed && opts.force) this.internal.killNow();
    this.enter('stop request', () => {
      if (!this.over) {
        this.verify.cancel('the loop is stopping');
        this.verify.dropMessage();
      }
      this.stopper.request(reason, opts);
    });
  }

  private onAgentExit(exit: SessionExit): void {
    if (this.over) return;
    // The final signal or a stop file may have landed just before the exit, ahead of the watcher.
    this.checkSignal();
    this.checkStopFile();
    if (this.over) return;
    this.rows.event('agent_exit', { exitCode: exit.exitCode, signal: exit.signal ?? null });
    this.agent.release()?.dispose();
    if (this.stopping) {
      this.finish();
      return;
    }
    // An agent that ends with its loop: the verify decides what comes next.
    if (this.verify.busy) return;
    // No folder, nothing to restart on: the loop ends (the log said why).
    if (!existsSync(this.row.taskDir)) {
      this.end('stopped');
      return;
    }
    this.restarts.afterCrash(exit);
  }

  private finish(): void {
    this.ending.finish();
  }

  private fail(message?: string, code?: string): void {
    this.ending.fail(message, code);
  }

  private end(outcome: Outcome): void {
    this.ending.end(outcome);
  }

  /** Stops the loop's timers and watcher without ending it (the process is going away); see LoopEnding.detach. */
  detach(): void {
    if (this.boundary.failed) return this.ending.leaveFailed(true);
    this.enter('detach', () => {
      this.verify.cancel('autodeck is going away; the next owner verifies again');
      this.ending.detach();
    });
  }

  /** Leaves the loop for the next launch; see LoopEnding.suspend. */
  suspend(): void {
    if (this.boundary.failed) return this.ending.leaveFailed(false);
    this.enter('suspend', () => {
      if (!this.over) this.verify.cancel('autodeck is shutting down; the next launch verifies again');
      this.ending.suspend();
    });
  }

  /** Fields whose write failed: written again at the next flush. */
  requeue(write: Partial<LoopRow>): void {
    this.rows.requeue(write);
  }

  get dirty(): boolean {
    return this.rows.dirty;
  }

  /**
   * The counters patched for later, written (LoopRowWriter.flush), inside the supervisor's
   * one transaction for all loops. A locked database is the caller's to retry; any other
   * error is this loop's own and fails it alone, through its boundary.
   */
  flush(): Partial<LoopRow> | undefined {
    return this.boundary.enter('flush', () => this.rows.flush(), { transientToCaller: true });
  }
}
