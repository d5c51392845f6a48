import { existsSync } from 'node:fs';
import { sha1Hex } from '../lazy.js';
import { budgetOn, budgetReached, type SpendReading } from '../spend/meter.js';
import { changedFields, LoopSpend, signalWrittenMs, spendFields } from '../spend/loopSpend.js';
import { contextLimitReached } from '../spend/ledger.js';
import type { ModelPrice, Spend } from '../spend/prices.js';
import { join } from 'node:path';
import { currentIdentity, readSignalFile, SIGNAL_FILE, SIGNAL_TMP_FILE, type Signal } from '../protocol/signal.js';
import { readStopFile, STOP_FILE, writeStopFile, type StopReason } from '../protocol/stopFile.js';
import { removeIfPresent } from '../protocol/atomic.js';
import type { Session, SessionExit, SessionFactory } from '../sessions/session.js';
import type { Store } from '../store/index.js';
import { isTransientWriteError } from '../store/db.js';
import type { LoopRow } from '../store/loops.js';
import type { EventKind } from '../store/events.js';
import type { AgentState } from '../store/agentState.js';
import type { Outcome, RunRow } from '../store/runs.js';
import type { AgentProfile } from '../config/schema.js';
import { ENTER_DELAY_MS, EOF_KEY, exitCommand } from '../agents/exit.js';
import type { AgentFiles } from '../agents/agentRecord.js';
import type { Profile } from '../agents/profiles.js';
import { classifyScreen } from '../agents/classify.js';
import { dueOnTick, nextDue, ticksIn, TICK_MS } from './tick.js';
import type { BeatLimits } from './heartbeat.js';
import { Watchdog, type ApprovalSetup } from './watchdog.js';
import { LoopRowWriter } from './loopRowWriter.js';
import { pollModuleFiles, watchModuleFiles, type ModuleWatch, type ModuleWatchHandlers } from './moduleWatch.js';
import { waitingRequest } from './approvals.js';
import type { ApprovalPolicy } from '../policy/rules.js';
import { applySignal, endOutcome, limitAfter, restartBackoffMs, RESTART_LIMIT_MESSAGE } from './limits.js';
import { activeMsNow, anchorActive, type ActiveAnchor, type Clock } from './clock.js';

/** The settings one loop runs with; stored with its row so another owner can take it over. */
export interface LoopSettings {
  agentProfile: AgentProfile;
  heartbeatSeconds: number;
  recoveryPerIteration: number;
  recoveryTotal: number;
  stepTimeoutMinutes: number;
  quotaProbeMinutes: number;
  stallThreshold: number;
  graceSeconds: number;
  restartLimit: number;
  hungMinutes: number;
  hungErrorMinutes: number;
  hungRepeatCalls: number;
  hungLadderMinutes: number;
  /** Spend limits (0 or absent: off) and price overrides (src/spend/). */
  maxTokens?: number;
  maxCostUsd?: number;
  prices?: Record<string, ModelPrice>;
  /** Context window overrides by model id (src/spend/context.ts). */
  contextWindows?: Record<string, number>;
  /** The approval policy (src/policy/); absent in rows stored before it: no rules. */
  approval?: ApprovalPolicy;
}

/** How often a polling watcher looks (after the inotify watches ran out). */
export const WATCH_POLL_MS = 250;

/**
 * A watcher error that means the kernel gave no more watches: inotify's per-user limit
 * (`fs.inotify.max_user_watches` / `max_user_instances`, ENOSPC) or descriptors (EMFILE).
 */
export function outOfWatches(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EMFILE' || code === 'ENFILE';
}

/**
 * The supervisor's ticks between two looks at the loop's files, and at its folder.
 * inotify names every write, so with it the look is a rarer safety net (twenty loops'
 * looks were forty stats a second, issue 12); without it, or while chokidar polls, the
 * look comes every second.
 */
const FILES_LOOK_TICKS = ticksIn(1000);
const FILES_LOOK_TICKS_INOTIFY = ticksIn(5000);
const FOLDER_LOOK_TICKS = ticksIn(2000);
/** Just past chokidar's 50 ms per-path throttle, when it polls (see pollAgainSoon). */
export const TRAILING_POLL_MS = 60;

/** After SIGTERM, how long an agent has before SIGKILL (SPEC 5.2). */
export const KILL_AFTER_TERM_MS = 5000;
/** How often a loop's end is tried again while another process holds the database. */
export const END_RETRY_MS = 1000;

export interface LoopDeps {
  store: Store;
  spawn: SessionFactory;
  /** Wall time for what is stored or compared across processes; monotonic time for durations (clock.ts). */
  clock: Clock;
  /** Records an event (database and listeners); called inside the loop's transactions. */
  record: (row: LoopRow, kind: EventKind, detail: Record<string, unknown>, opts?: { again?: boolean }) => void;
  /** Something visible changed. */
  changed: () => void;
  /** The loop is over; its row is gone (or kept as failed). */
  ended: (loop: Loop, run: RunRow) => void;
  /** A write found the database locked by another process; it is retried later. */
  busy?: (err: unknown) => void;
}

export interface LoopSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  settings: LoopSettings;
  /** The agent's profile (with the user's patterns), and the stall limits. */
  profile: Profile;
  limits: BeatLimits;
  /** Where the agent's transcript lives, when its profile has one. */
  transcriptDir?: string | undefined;
  /** The approval policy for its permission prompts (issue 15); absent: answered as before. */
  approval?: ApprovalSetup | undefined;
  /** The files the agent keeps about itself (Codex's rollout, Gemini CLI's session), when its profile has them. */
  agentFiles?: AgentFiles | undefined;
}

/**
 * One supervised loop: its agent session, its file watcher and heartbeat, and the
 * decisions of SPEC 5.2 and 5.5. Time comes from `deps.clock` (durations on its monotonic
 * side); the decisions themselves are the pure functions of limits.ts.
 */
export class Loop {
  session: Session | undefined;
  private watcher: ModuleWatch | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** A heartbeat shorter than a tick has its own timer; longer ones come with the tick. */
  private heartbeat: NodeJS.Timeout | undefined;
  /** With the tick: the heartbeat's period, and when the next one is due (monotonic); 0 when it has its own timer. */
  private beatEveryMs = 0;
  private nextBeatAt = 0;
  private lastSignalIdentity: string | undefined;
  private lastStopIdentity: string | undefined;
  private stopSignal: Signal | undefined;
  private stopReason: StopReason | undefined;
  private forceStop = false;
  private forced = false;
  /** Steps taken to end an idle agent after its loop is over: 0 none, 1 exit command, 2 SIGTERM. */
  private exitStage = 0;
  private trailingPoll: NodeJS.Timeout | undefined;
  private folderPresent = true;
  private ticks = 0;
  /** The loop's signal and stop files, their paths made once: the looks at rest read them every few seconds. */
  private readonly signalPath: string;
  private readonly stopPath: string;
  /** The loop's row, and its way to the database (nothing lost when a write fails). */
  private readonly rows: LoopRowWriter;
  /** When the current agent session was started or re-attached. */
  private sessionSince = 0;
  /** A person has the agent's terminal (attach mode). */
  private attachedNow = false;
  /** Reads the agent's transcript for the tokens spent, per loop and per iteration; made on first use. */
  private spent: LoopSpend | undefined;

  private readonly watchdog: Watchdog;
  /** Where this process began counting the loop's active time (its timeout). */
  private readonly anchor: ActiveAnchor;

  constructor(row: LoopRow, private readonly spec: LoopSpec, private readonly deps: LoopDeps) {
    this.rows = new LoopRowWriter(row, deps);
    this.signalPath = join(row.taskDir, SIGNAL_FILE);
    this.stopPath = join(row.taskDir, STOP_FILE);
    this.anchor = anchorActive(row, deps.clock);
    this.watchdog = new Watchdog({
      taskDir: row.taskDir,
      now: () => deps.clock.mono(),
      wall: () => deps.clock.wall(),
      session: () => this.session,
      row: () => this.row,
      patch: (p) => this.patch(p),
      patchLater: (p) => this.patchLater(p),
      event: (kind, detail) => this.event(kind, detail),
      requestStop: (reason) => this.requestStop(reason),
      fail: (message, code) => this.fail(message, code),
      agentPid: () => (this.session && !this.session.exited ? this.session.pid : undefined),
      restartAgent: (extraArgs, detail) => this.restartHung(extraArgs, detail),
      later: (ms, fn) => this.later(ms, fn),
      agentState: () => this.agentState(),
      agentRequest: () => waitingRequest(this.deps.store.agentState.get(this.row.session), this.sessionSince),
      recentAgentRequest: () => waitingRequest(this.deps.store.agentState.recent(this.row.session), this.sessionSince),
      agentRecord: spec.agentFiles ? () => spec.agentFiles!.record(this.session && !this.session.exited ? this.session.pid : undefined) : undefined,
    }, spec.profile, spec.limits, spec.transcriptDir, spec.approval);
  }

  get row(): LoopRow {
    return this.rows.row;
  }

  /** Over: ended, suspended or detached; its row is final. */
  private get over(): boolean {
    return this.rows.closed;
  }

  private set over(value: boolean) {
    this.rows.closed = value;
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
    return this.stopReason !== undefined || this.stopSignal !== undefined;
  }

  private file(name: string): string {
    return join(this.row.taskDir, name);
  }

  /** Starts watching and the agent (SPEC 5.1 steps 3–5); or watches an agent already running. */
  begin(running?: Session): void {
    this.watch();
    if (running) this.adoptSession(running);
    else this.spawnAgent();
    const every = Math.max(50, this.spec.settings.heartbeatSeconds * 1000);
    // Twenty loops' own timers were twenty wake-ups per period; on the tick they share one.
    if (every >= TICK_MS) {
      this.beatEveryMs = every;
      this.nextBeatAt = this.deps.clock.mono() + every;
    } else {
      this.heartbeat = setInterval(() => this.beat(), every);
    }
  }

  /**
   * Watches the module for our two files: inotify by default; by polling (stat every
   * WATCH_POLL_MS, no inotify) once the kernel gave no more watches, said once in the log.
   */
  private watch(polling = false): void {
    let watcher: ModuleWatch | undefined;
    const handlers: ModuleWatchHandlers = {
      change: (name) => {
        if (this.watcher !== watcher) return;
        // Always re-read the file itself: events of quick writes may come as one.
        if (name === SIGNAL_FILE) {
          this.checkSignal();
          // chokidar (polling) drops a second change of one path within 50 ms of the first
          if (polling) this.pollAgainSoon();
        } else if (name === STOP_FILE) {
          this.checkStopFile();
        } else {
          this.poll();
        }
      },
      error: (err) => {
        if (watcher !== undefined && this.watcher !== watcher) return; // a watcher already replaced
        if (!polling && outOfWatches(err) && !this.over) {
          watcher?.close();
          this.watcher = undefined;
          this.event('error', {
            where: 'watcher', fallback: 'polling', code: (err as NodeJS.ErrnoException).code ?? null,
            message: `no inotify watch left (${String(err.message ?? err)}; see fs.inotify.max_user_watches); watching this module by polling every ${WATCH_POLL_MS} ms`,
          });
          this.watch(true);
          return;
        }
        this.event('error', { where: 'watcher', message: String(err) });
      },
    };
    const names = [SIGNAL_FILE, STOP_FILE];
    try {
      watcher = polling ? pollModuleFiles(this.row.taskDir, names, WATCH_POLL_MS, handlers) : watchModuleFiles(this.row.taskDir, names, handlers);
    } catch (err) {
      handlers.error(err as Error);
      return;
    }
    this.watcher = watcher;
    // what was written before the watch began (after begin() has the agent going, as chokidar's `ready` was)
    setImmediate(() => {
      if (this.watcher === watcher) this.poll();
    });
  }

  private spawnAgent(extraArgs: readonly string[] = []): void {
    const [program] = this.spec.argv;
    let session: Session;
    try {
      session = this.deps.spawn({
        name: this.row.session, argv: [...this.spec.argv, ...extraArgs], cwd: this.spec.cwd, env: this.spec.env,
      });
    } catch (err) {
      this.event('error', { where: 'spawn', program, message: spawnFailure(err) });
      this.onAgentExit({ exitCode: 127 });
      return;
    }
    this.adoptSession(session);
  }

  /** The hook-reported state of the current agent process: older reports are of a previous one. */
  private agentState(): AgentState | undefined {
    const reported = this.deps.store.agentState.get(this.row.session);
    if (!reported || Date.parse(reported.at) < this.sessionSince) return undefined;
    return reported.state;
  }

  private adoptSession(session: Session): void {
    this.session = session;
    this.sessionSince = this.deps.clock.wall(); // compared with the hooks' times, written by another process
    this.patch({ status: this.row.status === 'starting' ? 'running' : this.row.status, agentPid: session.pid });
    session.onExit((exit) => {
      if (this.session === session) this.onAgentExit(exit);
    });
  }

  /**
   * Watches again an agent that outlived its supervisor (tmux): no new agent, no restart
   * counted (SPEC 5.6). A loop that was stopping goes on stopping.
   */
  reattach(session: Session): void {
    if (this.row.status === 'stopping' && this.row.stopReason) this.stopReason = this.row.stopReason as StopReason;
    this.patch({ stallCount: 0, lastCaptureHash: '' });
    this.begin(session);
    if (this.stopReason) this.startGrace();
  }

  /**
   * The hung-agent ladder's restart rung (issue 11 item 4): the agent is ended and started
   * again at once, with the profile's resume flag when there is a session to resume
   * (`--resume <id>` for Claude Code). It counts as a restart.
   */
  private restartHung(extraArgs: readonly string[], detail: Record<string, unknown>): void {
    if (this.over || this.stopping) return;
    const old = this.session;
    this.session = undefined; // its exit is no crash: the exit listener ignores a session no longer ours
    this.deps.store.tx(() => {
      this.patch({ restartCount: this.row.restartCount + 1, restartsTotal: this.row.restartsTotal + 1, status: 'starting', agentPid: null, stallCount: 0, lastCaptureHash: '' });
      this.event('restart', { ...detail, attempt: this.row.restartCount, limit: this.spec.settings.restartLimit, inMs: 0, argv: extraArgs });
    });
    old?.dispose();
    this.spawnAgent(extraArgs);
  }

  /** Runs an adopted loop again in this process: a new agent, counters as planned (SPEC 5.6). */
  resume(opts: { restartCount: number }): void {
    const counted = opts.restartCount > this.row.restartCount ? 1 : 0;
    this.patch({ status: 'starting', restartCount: opts.restartCount, restartsTotal: this.row.restartsTotal + counted, stallCount: 0, lastCaptureHash: '', stopReason: '', agentPid: null });
    this.begin();
  }

  /** An adopted `stopping` loop: the stop was wanted, so it ends with the reason it had. */
  finishOrphan(): void {
    this.stopReason = (this.row.stopReason || undefined) as StopReason | undefined;
    this.forced = this.row.forced;
    this.finish();
  }

  /** An adopted loop over its restart limit. */
  failOrphan(restartCount: number): void {
    this.patch({ restartCount, restartsTotal: this.row.restartsTotal + 1 });
    this.fail();
  }

  /** Cheap checks that do not wait for the watcher: limits, and files it may have missed. */
  tick(): void {
    if (this.over) return;
    // The watcher sees the files first: the look for what it missed is a safety net, made every few ticks.
    const n = this.ticks++;
    if (n % FOLDER_LOOK_TICKS === 0) this.checkFolder();
    if (n % (this.watcher?.polling === false ? FILES_LOOK_TICKS_INOTIFY : FILES_LOOK_TICKS) === 0) this.poll();
    if (this.beatEveryMs > 0) {
      const now = this.deps.clock.mono();
      if (dueOnTick(now, this.nextBeatAt)) {
        this.nextBeatAt = nextDue(now, this.nextBeatAt, this.beatEveryMs);
        this.beat();
        if (this.over) return;
      }
    }
    if (this.stopping) return;
    const reason = limitAfter(this.row, this.activeMs());
    if (reason) this.requestStop(reason);
    else if (!this.attachedNow) this.watchdog.promptBeat();
  }

  /** Time the loop has worked, less quota waits: on the monotonic clock since this process took it. */
  activeMs(): number {
    return activeMsNow(this.anchor, this.row, this.deps.clock.mono(), this.watchdog.quotaWaitingMs());
  }

  /**
   * chokidar drops a second change of one path within 50 ms of the first; one more look
   * just after that window finds such a write without waiting for the next tick.
   */
  private pollAgainSoon(): void {
    if (this.trailingPoll) return;
    this.trailingPoll = setTimeout(() => {
      this.trailingPoll = undefined;
      this.poll();
    }, TRAILING_POLL_MS);
  }

  /** The module folder removed or renamed under the loop (or back again): said once each way. */
  private checkFolder(): void {
    const present = existsSync(this.row.taskDir);
    if (present === this.folderPresent) return;
    this.folderPresent = present;
    // inotify's watch ended with the folder: a new one for the folder that is back
    if (present && this.watcher && !this.over) {
      this.watcher.close();
      this.watch(this.watcher.polling);
    }
    this.event('error', {
      where: 'module folder',
      message: present ? 'the module folder is back; the loop goes on'
        : 'the module folder is gone (removed or renamed); the loop goes on while its agent runs, and ends without a restart when it exits',
    });
  }

  private poll(): void {
    if (this.over) return;
    if (currentIdentity(this.signalPath) !== this.lastSignalIdentity) this.checkSignal();
    if (currentIdentity(this.stopPath) !== this.lastStopIdentity) this.checkStopFile();
  }

  /**
   * A person attached to the agent (or left it). Meanwhile the heartbeat rests: a prompt
   * the person is reading must not be answered under their fingers, and their typing is
   * no stall. The loop's own limits (iterations, timeout) still hold. The stall count
   * starts again from nothing afterwards.
   */
  setAttached(on: boolean): void {
    if (this.attachedNow === on) return;
    this.attachedNow = on;
    if (!on && !this.over) this.patchLater({ stallCount: 0, lastCaptureHash: '' });
  }

  /** Heartbeat: stall detection while the loop runs; after it, ending an idle agent. */
  private beat(): void {
    const session = this.session;
    if (this.over || !session || session.exited || this.attachedNow) return;
    if (!this.stopping) {
      this.watchSpend();
      if (this.stopping || this.over) return;
      this.watchdog.beat();
      return;
    }
    const lines = session.screen();
    const hash = sha1Hex(lines.join('\n'));
    const stallCount = hash === this.row.lastCaptureHash ? this.row.stallCount + 1 : 0;
    if (stallCount !== this.row.stallCount || hash !== this.row.lastCaptureHash) {
      this.patchLater({ lastCaptureHash: hash, stallCount });
    }
    // An unchanged screen once the loop is over is an interactive agent waiting at its
    // prompt: over by the agent's own `(stop)`, or at its prompt after a stop file. A quiet
    // agent still in its step is not idle: it finishes the step (the grace time bounds it).
    const done = this.stopSignal !== undefined || classifyScreen(this.spec.profile, lines).kind === 'idle';
    if (stallCount >= 1 && done) this.endIdleAgent(session);
  }

  /** Asks an idle agent to leave, then terminates it if it does not (SPEC 5.2). */
  private endIdleAgent(session: Session): void {
    if (this.exitStage === 0) {
      this.exitStage = 1;
      const exit = exitCommand(this.spec.settings.agentProfile);
      if (exit.kind === 'eof') {
        session.write(EOF_KEY);
      } else {
        session.write(exit.text);
        this.later(ENTER_DELAY_MS, () => session.write('\r'));
      }
      this.event('agent_exit', { action: 'exit command', why: 'the loop is over and the agent is idle', keys: exit.kind === 'eof' ? 'EOF' : exit.text });
    } else if (this.exitStage === 1) {
      this.exitStage = 2;
      this.event('agent_exit', { action: 'SIGTERM', why: 'still idle after the exit command' });
      session.kill('SIGTERM');
    }
  }

  /** The signal file was last written before the row's last applied signal (this loop's earlier owner applied it). */
  private appliedByEarlierOwner(): boolean {
    const applied = this.row.lastSignalAt ? Date.parse(this.row.lastSignalAt) : NaN;
    const written = signalWrittenMs(this.signalPath);
    return Number.isFinite(applied) && written !== undefined && written <= applied;
  }

  /** Reads the newest signal; a file already applied is not applied twice. */
  checkSignal(): void {
    if (this.over) return;
    const read = readSignalFile(this.signalPath);
    if (read.identity === this.lastSignalIdentity) return;
    const firstLook = this.lastSignalIdentity === undefined;
    this.lastSignalIdentity = read.identity;
    if (!read.ok) {
      if (read.reason !== 'absent') this.event('signal_invalid', { reason: read.reason });
      return;
    }
    // An adopted loop's first look finds the signal its earlier owner applied: not progress
    // again (it would end a quota wait, and a signal without an iteration would count one).
    if (firstLook && this.appliedByEarlierOwner()) return;
    const signal = read.signal;
    const { patch } = applySignal(this.row, signal, new Date(this.deps.clock.wall()));
    if (this.row.status !== 'stopping' && this.row.status !== 'failed') Object.assign(patch, { status: 'running' });
    this.tx(() => {
      this.patch({ ...patch, stallCount: 0 });
      this.event('signal', { ...signal, iteration: this.row.iteration });
      this.watchdog.onSignal();
    });
    const closed = this.recordSpend(signalWrittenMs(this.signalPath));
    if (this.stopping) return;
    if (signal.next === '(stop)') {
      this.stopSignal = signal;
      this.patch({ status: 'stopping' });
      this.startGrace();
      return;
    }
    const reason = limitAfter(this.row, this.activeMs()) ?? this.budgetCheck() ?? this.contextCheck(closed?.compactions ?? 0, this.row.iteration);
    if (reason) this.requestStop(reason);
  }

  private get spendReader(): LoopSpend {
    this.spent ??= new LoopSpend({
      transcriptDir: this.spec.transcriptDir, usageSource: this.spec.agentFiles?.spend, sinceMs: Date.parse(this.row.startedAt), prices: this.spec.settings.prices,
      contextWindows: this.spec.settings.contextWindows, store: this.deps.store.iterations,
      key: { taskDir: this.row.taskDir, loopStartedAt: this.row.startedAt, session: this.row.session },
    });
    return this.spent;
  }

  /** What the agent's transcript says it spent; undefined when there is none. */
  spend(): Spend | undefined {
    return this.spendReader.read()?.spend;
  }

  /** At a signal: the row's spend, compactions and ctx brought up to date, the iteration's share recorded (src/spend/). */
  private recordSpend(signalWrittenMs: number | undefined): { compactions: number | null } | undefined {
    const writtenAt = signalWrittenMs === undefined ? undefined : new Date(signalWrittenMs).toISOString();
    const { reading, closed } = this.spendReader.atSignal(this.row.iteration, new Date(this.deps.clock.wall()).toISOString(), writtenAt);
    const changed = changedFields(this.row, spendFields(reading));
    if (changed) this.patch(changed);
    return closed;
  }

  /**
   * At each heartbeat while the loop runs: the row's figures kept current between signals
   * (the dashboard's tokens and ctx %), and three compactions in the iteration under way
   * stop the loop (`context_limit`).
   */
  private watchSpend(): void {
    const reading = this.spendReader.read();
    const changed = changedFields(this.row, spendFields(reading));
    if (changed) this.patchLater(changed);
    const reason = this.contextCheck(this.spendReader.compactionsNow(reading), this.row.iteration + 1);
    if (reason) this.requestStop(reason);
  }

  /** `context_limit` when one iteration was compacted too often. */
  private contextCheck(compactions: number, iteration: number): StopReason | undefined {
    if (!contextLimitReached(compactions)) return undefined;
    this.event('context_limit', { compactions, iteration, contextTokens: this.row.contextTokens ?? null });
    return 'context_limit';
  }

  /** The run's spend at its end (the unfinished iteration's share recorded); the row's last figures, or nulls, without a transcript. */
  private finalSpend(): { tokens: number | null; costUsd: number | null; compactions: number | null } {
    let reading: SpendReading | undefined;
    try {
      reading = this.spendReader.atEnd(this.row.iteration + 1, new Date(this.deps.clock.wall()).toISOString());
    } catch {
      reading = undefined; // the run is recorded all the same, with the row's last figures
    }
    if (!reading) return { tokens: this.row.tokens ?? null, costUsd: this.row.costUsd ?? null, compactions: this.row.compactions ?? null };
    return { tokens: reading.spend.tokens, costUsd: reading.spend.costUsd ?? null, compactions: reading.compactions };
  }

  /** `budget` when the loop has spent its maxTokens / maxCostUsd (checked at each signal, like maxIterations). */
  private budgetCheck(): StopReason | undefined {
    const { maxTokens, maxCostUsd } = this.spec.settings;
    if (!budgetOn({ maxTokens, maxCostUsd })) return undefined;
    const spend = this.spend();
    if (!budgetReached(spend, { maxTokens, maxCostUsd })) return undefined;
    this.event('budget', { tokens: spend!.tokens, costUsd: spend!.costUsd ?? null, maxTokens: maxTokens ?? 0, maxCostUsd: maxCostUsd ?? 0 });
    return 'budget';
  }

  /** A stop file appeared: ours, or another process asking (SPEC 2.2). */
  checkStopFile(): void {
    if (this.over) return;
    const path = this.stopPath;
    this.lastStopIdentity = currentIdentity(path);
    if (this.lastStopIdentity === undefined) return;
    const request = readStopFile(this.row.taskDir);
    if (!request) return;
    if (request.force && !this.forceStop) {
      this.forceKill(request.reason, 'stop file');
      return;
    }
    if (this.stopping) return;
    this.stopReason = request.reason;
    this.noteStopRequested(request.reason, false, 'stop file');
  }

  /** Asks the agent to stop by writing the stop file (SPEC 2.2); `force` kills at once. */
  requestStop(reason: StopReason, opts: { force?: boolean } = {}): void {
    if (this.over) return;
    if (opts.force) {
      if (this.forceStop) return;
      this.writeStop(reason, true);
      this.forceKill(reason, 'supervisor');
      return;
    }
    if (this.stopping) return;
    this.stopReason = reason;
    this.writeStop(reason, false);
    this.noteStopRequested(reason, false, 'supervisor');
  }

  private writeStop(reason: StopReason, force: boolean): void {
    try {
      writeStopFile(this.row.taskDir, reason, { force, now: new Date(this.deps.clock.wall()) });
      this.lastStopIdentity = currentIdentity(this.stopPath);
    } catch (err) {
      this.event('error', { where: 'stop file', message: (err as Error).message });
    }
  }

  private noteStopRequested(reason: StopReason, force: boolean, by: string): void {
    this.tx(() => {
      this.patch({ status: 'stopping', stopReason: reason });
      this.event('stop_requested', { reason, force, by });
    });
    if (!this.agentAlive()) this.finish();
    else this.startGrace();
  }

  private forceKill(reason: StopReason, by: string): void {
    this.forceStop = true;
    this.stopReason ??= reason;
    if (this.agentAlive()) this.forced = true;
    this.tx(() => {
      this.patch({ status: 'stopping', stopReason: this.stopReason ?? reason, forced: this.forced });
      this.event('stop_requested', { reason, force: true, by });
    });
    if (this.agentAlive()) this.session!.kill('SIGKILL');
    else this.finish();
  }

  /** The grace time bounds an agent that stays busy after a stop (SPEC 5.2). */
  private startGrace(): void {
    this.later(this.spec.settings.graceSeconds * 1000, () => {
      if (!this.agentAlive()) return;
      this.forced = true;
      this.patch({ forced: true });
      this.event('agent_exit', { action: 'SIGTERM', why: `still running ${this.spec.settings.graceSeconds}s after the stop` });
      this.session!.kill('SIGTERM');
      this.later(KILL_AFTER_TERM_MS, () => {
        if (this.agentAlive()) this.session!.kill('SIGKILL');
      });
    });
  }

  private agentAlive(): boolean {
    return this.session !== undefined && !this.session.exited;
  }

  private onAgentExit(exit: SessionExit): void {
    if (this.over) return;
    // The final signal or a stop file may have landed just before the exit, ahead of the watcher.
    this.checkSignal();
    this.checkStopFile();
    if (this.over) return;
    this.event('agent_exit', { exitCode: exit.exitCode, signal: exit.signal ?? null });
    this.session?.dispose();
    this.session = undefined;
    if (this.stopping) {
      this.finish();
      return;
    }
    // No folder, nothing to restart on: the loop ends (the log said why).
    if (!existsSync(this.row.taskDir)) {
      this.end('stopped', false);
      return;
    }
    // A crash (SPEC 5.5): restart with backoff unless the limit is reached.
    if (this.row.restartCount >= this.spec.settings.restartLimit) {
      this.fail();
      return;
    }
    const attempt = this.row.restartCount + 1;
    const delay = restartBackoffMs(attempt);
    this.tx(() => {
      this.patch({ restartCount: attempt, restartsTotal: this.row.restartsTotal + 1, status: 'starting', agentPid: null });
      this.event('restart', { attempt, limit: this.spec.settings.restartLimit, inMs: delay, exitCode: exit.exitCode });
    });
    this.later(delay, () => {
      if (!this.over && !this.stopping) this.spawnAgent();
    });
  }

  /** The loop is over: clean up and record the run (SPEC 5.5). */
  finish(): void {
    const outcome = endOutcome({ stopSignal: this.stopSignal, stopReason: this.stopReason, forceStop: this.forceStop });
    this.end(outcome, false);
  }

  /**
   * Ends the loop as `failed`, keeping its row: the message is the `failed` event and the
   * row's stop reason (what its dashboard row shows); `code` is the run's stop reason.
   */
  private fail(message = RESTART_LIMIT_MESSAGE, code = ''): void {
    this.failure = { message, code };
    this.end('failed', true);
  }

  private failure: { message: string; code: string } | undefined;

  private end(outcome: Outcome, keepRow: boolean): void {
    if (this.over) return;
    this.over = true;
    this.stopTimers();
    this.watcher?.close();
    this.session?.dispose();
    for (const name of [SIGNAL_FILE, SIGNAL_TMP_FILE, STOP_FILE]) {
      try {
        removeIfPresent(this.file(name));
      } catch { /* a folder gone or read-only: nothing more to clean */ }
    }
    const now = this.deps.clock.wall();
    const active = this.activeMs();
    const row = this.row;
    const run: Omit<RunRow, 'id'> = {
      session: row.session, taskDir: row.taskDir, taskName: row.taskName, startedAt: row.startedAt,
      endedAt: new Date(now).toISOString(), iterations: row.iteration, maxIterations: row.maxIterations,
      timeoutMinutes: row.timeoutMinutes, outcome, stopReason: this.stopReason ?? this.failure?.code ?? '', forced: this.forced,
      recoveries: row.recoveryTotal, restarts: row.restartsTotal, quotaWaitMs: row.quotaWaitMs, activeMs: active,
      ...this.finalSpend(),
    };
    this.saveEnd(run, outcome, keepRow);
  }

  /**
   * Records the run and removes (or fails) the row, in one transaction. While another
   * process holds the database it tries again every second: the outcome is never lost,
   * and the row stays until it is written.
   */
  private saveEnd(run: Omit<RunRow, 'id'>, outcome: Outcome, keepRow: boolean): void {
    const row = this.row;
    let id = 0;
    try {
      this.deps.store.tx(() => {
        id = this.deps.store.runs.insert(run);
        if (keepRow) {
          const failure = this.failure ?? { message: RESTART_LIMIT_MESSAGE, code: '' };
          this.patch({ status: 'failed', agentPid: null, stopReason: failure.message });
          this.event('failed', { message: failure.message, restarts: row.restartCount, ...(failure.code ? { code: failure.code } : {}) });
        } else {
          this.deps.store.loops.delete(row.session);
        }
        this.event('ended', { outcome, forced: this.forced, iterations: row.iteration, activeMs: run.activeMs, tokens: run.tokens, costUsd: run.costUsd, compactions: run.compactions });
      });
    } catch (err) {
      if (!isTransientWriteError(err)) throw err;
      this.deps.busy?.(err);
      setTimeout(() => this.saveEnd(run, outcome, keepRow), END_RETRY_MS);
      return;
    }
    this.deps.ended(this, { id, ...run });
  }

  /**
   * Stops the loop's timers and watcher without ending it (the process is going away).
   * An agent that can outlive us (tmux) is let go, to be re-attached by the next owner.
   */
  detach(): void {
    this.stopTimers();
    this.watcher?.close();
    this.session?.detach?.();
  }

  /**
   * Leaves the loop for the next launch (SPEC 5.7): timers and watcher stop, the agent is
   * ended (a pty agent cannot outlive its owner), and the row stays — `suspended`, which
   * the next owner resumes without counting a restart (5.6), or still `stopping`, which
   * it finishes. Nothing of this loop runs here afterwards.
   */
  suspend(): void {
    if (this.over) return;
    this.stopTimers();
    this.watcher?.close();
    const session = this.session;
    this.session = undefined; // its exit is no crash: the exit listener ignores a session no longer ours
    const running = session !== undefined && !session.exited;
    this.tx(() => {
      this.patch({ status: this.row.status === 'stopping' ? 'stopping' : 'suspended', agentPid: null, stallCount: 0, lastCaptureHash: '' });
      if (running) this.event('agent_exit', { action: 'SIGKILL', why: 'autodeck is shutting down; the loop is suspended until the next launch' });
    });
    this.over = true;
    session?.dispose();
  }

  private stopTimers(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.beatEveryMs = 0;
    if (this.trailingPoll) clearTimeout(this.trailingPoll);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  private patch(patch: Partial<LoopRow>): void {
    this.rows.patch(patch);
  }

  private patchLater(patch: Partial<LoopRow>): void {
    this.rows.patchLater(patch);
  }

  private tx(fn: () => void): void {
    this.rows.tx(fn);
  }

  private event(kind: EventKind, detail: Record<string, unknown>): void {
    this.rows.event(kind, detail);
  }

  /** Fields whose write failed: written again at the next flush. */
  requeue(write: Partial<LoopRow>): void {
    this.rows.requeue(write);
  }

  get dirty(): boolean {
    return this.rows.dirty;
  }

  /** The counters patched for later, written; see LoopRowWriter.flush. */
  flush(): Partial<LoopRow> | undefined {
    return this.rows.flush();
  }
}

/** Why an agent could not be started, in words a person can act on. */
export function spawnFailure(err: unknown): string {
  const message = (err as Error)?.message ?? String(err);
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'EMFILE' || code === 'ENFILE' || /forkpty|EMFILE|ENFILE|too many open files/i.test(message)) {
    return `${message} (out of file descriptors or pseudo-terminals: too many loops for this process's limit, see ulimit -n; the start counts as a crash and is retried)`;
  }
  return message;
}
