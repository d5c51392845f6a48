import { EventEmitter } from 'node:events';
import { discoverModules, moduleInfoIdentity, readModuleInfo, type LifecycleStatus } from '../protocol/modules.js';
import type { Store } from '../store/index.js';
import { BOOKKEEPING_FIELDS, type LoopRow } from '../store/loops.js';
import type { RunRow } from '../store/runs.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import { ownerAlive } from '../supervisor/owner.js';
import { everyNthTick, ticksIn } from '../supervisor/tick.js';
import type { HostIssue } from '../hosts/issue.js';
import type { ClaudeEntry, ClaudeWatch } from '../claudeSessions/watch.js';

/**
 * One row of the dashboard: a task module under the roots, or a loop running elsewhere
 * on a module outside them. Rows are immutable; a row keeps its identity until something
 * in it changed, so a screen re-renders only the rows that did.
 */
export interface DeckRow {
  /** The task folder's real path. */
  key: string;
  name: string;
  lifecycle: LifecycleStatus;
  /** The active (or failed) loop on this module, if any. Times are derived where shown. */
  loop?: LoopRow | undefined;
  /** The loop is supervised by this process. */
  here: boolean;
  /** For a loop of another process: whether its owner is alive. */
  ownerAlive: boolean;
  /** The module's newest finished run, shown while no loop runs. */
  lastRun?: LastRun | undefined;
  /** In a quota wait: when the loop goes on (the reset, or the next try), ISO, if known. */
  quotaUntil?: string | undefined;
  /** The host the module is on, when the dashboard reads several (src/hosts/); undefined: this machine. */
  host?: string | undefined;
  /** A host's own row: why it cannot be read, or that it has nothing to show. */
  hostIssue?: HostIssue | undefined;
  /** A loop as last seen on a host that no longer answers: how long ago (`3m`). */
  staleFor?: string | undefined;
  /** A Claude Code session of its own (not a loop of autodeck's): its key starts with `claude:` (another host's: its dir does). */
  claude?: ClaudeEntry | undefined;
  /** Another host's home folder, for a Claude Code session's folder there (`~/…`). */
  home?: string | undefined;
}

export type LastRun = Pick<RunRow, 'id' | 'outcome' | 'endedAt' | 'iterations' | 'maxIterations' | 'forced'> & Partial<Pick<RunRow, 'activeMs' | 'tokens' | 'costUsd' | 'worktreeBranch' | 'worktreeState'>>;

export interface DeckSnapshot {
  rows: readonly DeckRow[];
}

function lastRunOf(r: RunRow): LastRun {
  return {
    id: r.id, outcome: r.outcome, endedAt: r.endedAt, iterations: r.iterations, maxIterations: r.maxIterations, forced: r.forced, activeMs: r.activeMs, tokens: r.tokens, costUsd: r.costUsd,
    ...(r.worktreeBranch ? { worktreeBranch: r.worktreeBranch, worktreeState: r.worktreeState ?? '' } : {}),
  };
}

/**
 * How often (in the supervisor's ticks) other processes' loops are looked at again, each
 * second; own loops are live. On the tick, not a timer of its own: one wake-up for both.
 */
const DECK_REFRESH_TICKS = ticksIn(1000);
/** How often the folders under the roots are read again (new modules, lifecycle status). */
export const MODULES_REFRESH_MS = 5000;
/** A module's info files are read again at least this often, changed or not. */
const INFO_REREAD_MS = 60_000;

interface KnownLifecycle {
  identity: string;
  readAt: number;
  lifecycle: LifecycleStatus;
}

/** Whether two loop rows look alike: a row that changed only in bookkeeping must not cost a frame. */
function sameLoop(a: LoopRow | undefined, b: LoopRow | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  for (const k of Object.keys(a) as (keyof LoopRow)[]) {
    if (BOOKKEEPING_FIELDS.has(k) || a[k] === b[k]) continue;
    if (typeof a[k] !== 'object' || JSON.stringify(a[k]) !== JSON.stringify(b[k])) return false;
  }
  return true;
}

/** Every field but the loop alike. */
function sameRowBesidesLoop(a: DeckRow, b: DeckRow): boolean {
  return a.key === b.key && a.name === b.name && a.lifecycle === b.lifecycle && a.here === b.here
    && a.ownerAlive === b.ownerAlive && a.lastRun?.id === b.lastRun?.id && a.quotaUntil === b.quotaUntil && a.claude === b.claude && a.staleFor === b.staleFor;
}

/**
 * What the dashboard shows, as immutable snapshots with change notifications (the
 * `subscribe` / `getSnapshot` pair of React's useSyncExternalStore). Own loops come
 * from the supervisor as they change; modules and other processes' loops are polled.
 */
export class Deck extends EventEmitter<{ change: []; written: [] }> {
  private snapshot: DeckSnapshot = { rows: [] };
  private modules: { name: string; dir: string; lifecycle: LifecycleStatus }[] = [];
  private others: LoopRow[] = [];
  private lastRuns = new Map<string, LastRun>();
  /** Per module in a quota wait: the wait's start and when it ends (from its quota_wait event). */
  private readonly quotaUntil = new Map<string, { since: string; until: string }>();
  /** The database's data_version at the last read of other processes' rows. */
  private seenVersion: number | undefined;
  private modulesReadAt = 0;
  private ownKeys = '';
  /**
   * Per row key, the newest loop object found to look like the one the snapshot shows:
   * a row whose loop moved only in bookkeeping is compared field by field once, not at
   * every rebuild after.
   */
  private readonly looksShown = new Map<string, LoopRow>();
  /** Per module folder, its lifecycle status and the identity of the files it was read from. */
  private lifecycles = new Map<string, KnownLifecycle>();
  private readonly stopTicks: () => void;
  /** Claude Code's own sessions, shown after the modules and loops. */
  private claude: ClaudeWatch | undefined;
  private readonly onSupervisorChange = (): void => this.rebuild();
  // A run of this process shows its outcome at once, not at the next poll.
  private readonly onEnded = (r: RunRow): void => {
    this.lastRuns.set(r.taskDir, lastRunOf(r));
    this.rebuild();
  };

  constructor(
    private readonly supervisor: Supervisor,
    private readonly store: Store,
    private readonly roots: readonly string[],
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.poll();
    supervisor.on('change', this.onSupervisorChange);
    supervisor.on('ended', this.onEnded);
    this.stopTicks = everyNthTick(supervisor, DECK_REFRESH_TICKS, () => this.refresh());
  }

  getSnapshot = (): DeckSnapshot => this.snapshot;

  /** Shows Claude Code's own sessions too, as they change. */
  showClaude(watch: ClaudeWatch): void {
    this.claude = watch;
    watch.on('change', this.onSupervisorChange);
    this.rebuild();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.on('change', listener);
    return () => this.off('change', listener);
  };

  /** Reads the modules under the roots and the loops of other processes again, now. */
  poll(): void {
    this.readModules();
    this.readStore();
    this.rebuild();
  }

  /**
   * The tick's look: folders every few seconds, the database only when another
   * connection wrote to it. Rows of other processes are rebuilt each time all the same:
   * whether their owner is alive depends on the clock, not on a write.
   */
  private refresh(): void {
    let read = false;
    // abs: a wall clock set back must not stop the folder reads until it catches up.
    if (Math.abs(this.now() - this.modulesReadAt) >= MODULES_REFRESH_MS) {
      this.readModules();
      read = true;
    }
    const version = this.store.dataVersion();
    if (version !== this.seenVersion) {
      this.readStore(version);
      read = true;
      this.emit('written');
    }
    if (read || this.others.length > 0) this.rebuild();
  }

  private readModules(): void {
    this.modulesReadAt = this.now();
    const seen = this.lifecycles;
    this.lifecycles = new Map();
    this.modules = discoverModules(this.roots).map((m) => ({ name: m.name, dir: m.dir, lifecycle: this.lifecycleOf(m.dir, seen.get(m.dir)) }));
  }

  /**
   * A module's lifecycle status, read again only when its files changed (an lstat each
   * instead of three reads every few seconds), and at least every INFO_REREAD_MS: a rewrite
   * of the same size within the file system's clock tick keeps its identity.
   */
  private lifecycleOf(dir: string, known: KnownLifecycle | undefined): LifecycleStatus {
    const identity = moduleInfoIdentity(dir);
    const now = this.now();
    const fresh = known && known.identity === identity && Math.abs(now - known.readAt) < INFO_REREAD_MS ? known : undefined;
    const entry = fresh ?? { identity, readAt: now, lifecycle: readModuleInfo(dir).status };
    this.lifecycles.set(dir, entry);
    return entry.lifecycle;
  }

  private readStore(version = this.store.dataVersion()): void {
    this.seenVersion = version;
    const mine = new Set(this.supervisor.active().map((l) => l.taskDir));
    this.others = this.store.loops.list().filter((row) => !mine.has(row.taskDir));
    this.lastRuns = new Map([...this.store.runs.latestByTaskDir()].map(([dir, r]) => [dir, lastRunOf(r)]));
  }

  private rebuild(): void {
    const own = new Map(this.supervisor.active().map((l) => [l.taskDir, l.row]));
    // Loops this process took up or let go change what "other processes' loops" means
    // without another connection writing: read those again at the next look.
    const ownKeys = [...own.keys()].join('\n');
    if (ownKeys !== this.ownKeys) {
      this.ownKeys = ownKeys;
      this.seenVersion = undefined;
    }
    const others = new Map(this.others.filter((r) => !own.has(r.taskDir)).map((r) => [r.taskDir, r]));
    const here = { host: this.supervisor.host, now: this.now() };
    const rows: DeckRow[] = this.modules.map((m) => {
      const mineRow = own.get(m.dir);
      const other = others.get(m.dir);
      others.delete(m.dir);
      const loop = mineRow ?? other;
      const row: DeckRow = {
        key: m.dir, name: m.name, lifecycle: m.lifecycle, loop, here: mineRow !== undefined,
        ownerAlive: loop ? mineRow !== undefined || ownerAlive(loop, here) : false, lastRun: this.lastRuns.get(m.dir),
      };
      const until = loop ? this.quotaUntilOf(loop) : undefined;
      if (until) row.quotaUntil = until;
      return row;
    });
    // Loops on modules outside the roots: shown too, after the modules, by name.
    for (const loop of [...own.values(), ...others.values()]) {
      if (rows.some((r) => r.key === loop.taskDir)) continue;
      const isMine = own.has(loop.taskDir);
      rows.push({ key: loop.taskDir, name: loop.taskName, lifecycle: 'unknown', loop, here: isMine, ownerAlive: isMine || ownerAlive(loop, here) });
    }
    // Claude Code's own sessions, but not those that are a loop's agent (that loop's row shows it)
    for (const e of this.claude?.snapshot().entries ?? []) {
      if (e.loop) continue;
      rows.push({ key: `claude:${e.session.key}`, name: e.session.name || e.session.id || e.session.key, lifecycle: 'unknown', here: true, ownerAlive: true, claude: e });
    }
    const previous = new Map(this.snapshot.rows.map((r) => [r.key, r]));
    const stable = rows.map((r) => {
      const old = previous.get(r.key);
      const same = old !== undefined && sameRowBesidesLoop(old, r)
        && (r.loop === old.loop || (r.loop !== undefined && this.looksShown.get(r.key) === r.loop) || sameLoop(old.loop, r.loop));
      if (!same || !r.loop || r.loop === old.loop) this.looksShown.delete(r.key);
      else this.looksShown.set(r.key, r.loop);
      return same ? old : r;
    });
    if (this.looksShown.size > stable.length) {
      const keys = new Set(stable.map((r) => r.key));
      for (const key of this.looksShown.keys()) if (!keys.has(key)) this.looksShown.delete(key);
    }
    const changed = stable.length !== this.snapshot.rows.length || stable.some((r, i) => r !== this.snapshot.rows[i]);
    if (!changed) return;
    this.snapshot = { rows: stable };
    this.emit('change');
  }

  /**
   * When a loop in a quota wait goes on: the `nextProbeAt` of the wait's event, read once
   * per wait (the status may be seen before its event is written: then looked for again).
   */
  private quotaUntilOf(loop: LoopRow): string | undefined {
    if (loop.status !== 'quota_wait' || !loop.quotaWaitSince) return undefined;
    const known = this.quotaUntil.get(loop.taskDir);
    if (known?.since === loop.quotaWaitSince) return known.until;
    try {
      const event = this.store.events.list(20, loop.taskDir).reverse().find((e) => e.kind === 'quota_wait' && e.at >= loop.quotaWaitSince);
      const until = event?.detail.nextProbeAt;
      if (typeof until !== 'string') return undefined;
      this.quotaUntil.set(loop.taskDir, { since: loop.quotaWaitSince, until });
      return until;
    } catch {
      return undefined; // a locked database: the next look tries again
    }
  }

  close(): void {
    this.stopTicks();
    this.claude?.off('change', this.onSupervisorChange);
    this.supervisor.off('change', this.onSupervisorChange);
    this.supervisor.off('ended', this.onEnded);
  }
}
