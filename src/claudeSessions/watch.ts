import { EventEmitter } from 'node:events';
import type { Store } from '../store/index.js';
import type { LoopEvent } from '../store/events.js';
import type { TickSource } from '../supervisor/tick.js';
import type { ClaudeSession } from './listing.js';
import { claudeConfigDir, pidAlive, sessionFolders, watchedFingerprint } from './files.js';
import { listClaudeSessions, type RunProgram } from './reader.js';
import { ClaudeRequestStore, type ClaudeRequestRow } from './requests.js';
import { ClaudeAdoptedStore, type AdoptedRow } from './adopted.js';
import { claudeView, type ClaudeView } from './view.js';
import { phaseKey, transitionEvent } from './transitions.js';

/**
 * Claude Code's own sessions on this machine, kept current for a supervising autodeck
 * (the dashboard, `serve`). At each tick it looks at Claude Code's session files (a few
 * stats); only when they changed does it ask `claude agents --json --all` again, so with
 * no session there is no cost, and a change is listed within a tick plus the call (well
 * inside 3 s). A session that ends without touching its files (killed hard) is noticed by
 * its pid. Requests autodeck's PermissionRequest hook holds, and adoptions, come from the
 * database and are read again when another connection wrote to it.
 */

export interface ClaudeEntry {
  session: ClaudeSession;
  view: ClaudeView;
  /** The open request autodeck's hook holds for it, answerable from here. */
  request?: ClaudeRequestRow | undefined;
  adopted?: AdoptedRow | undefined;
  /** The autodeck loop whose agent this session is (shown as that loop, not again). */
  loop?: string | undefined;
}

/** Whether two entries show the same (Claude Code's words, the view, the request, the adoption). */
function sameEntry(a: ClaudeEntry, b: ClaudeEntry): boolean {
  return a.loop === b.loop && a.request?.id === b.request?.id && a.request?.answeredAt === b.request?.answeredAt
    && JSON.stringify([a.session, a.view, a.adopted]) === JSON.stringify([b.session, b.view, b.adopted]);
}

export interface ClaudeSnapshot {
  entries: readonly ClaudeEntry[];
  /** Why the list may be missing or old (claude not installed, a failed look); '' when fine. */
  note: string;
  /** When Claude Code was last asked (ms); 0 never. */
  listedAt: number;
}

export interface ClaudeWatchOptions {
  store: Store;
  /** The `claude` program. */
  program: string;
  env?: NodeJS.ProcessEnv;
  configDir?: string;
  now?: () => number;
  run?: RunProgram;
  /** The pids of autodeck's own loops' agents, and their task folders. */
  loopPids?: () => ReadonlyMap<number, string>;
  /** Record changes as events (false: a one-shot look by `status`). Default true. */
  record?: boolean;
  /** How long `claude agents` may take; default LIST_TIMEOUT_MS. */
  listTimeoutMs?: number;
}

const isLiveSession = (s: ClaudeSession): boolean => s.pid !== undefined || s.status !== undefined;

/** While a session runs, Claude Code is asked again at least this often, changed files or not. */
export const LIVE_RELIST_MS = 60_000;

export class ClaudeWatch extends EventEmitter<{ change: []; event: [LoopEvent] }> {
  private sessions: ClaudeSession[] = [];
  private snap: ClaudeSnapshot = { entries: [], note: '', listedAt: 0 };
  private lastPrint: string | undefined;
  private inFlight: Promise<void> | undefined;
  private again = false;
  private note = '';
  private seenVersion: number | undefined;
  private open: ClaudeRequestRow[] = [];
  private adopted: AdoptedRow[] = [];
  private closed = false;
  private snapListedAt = 0;
  /** Sessions an action of autodeck's is stopping and starting again: not to be judged meanwhile. */
  private readonly held = new Set<string>();
  private readonly seenGet;
  private readonly seenSet;
  private readonly seenNew;
  private readonly configDir: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly now: () => number;
  private readonly requests: ClaudeRequestStore;
  private readonly adoptedStore: ClaudeAdoptedStore;
  private readonly onTick = (): void => this.look();

  constructor(private readonly opts: ClaudeWatchOptions, private readonly ticks?: TickSource) {
    super();
    this.env = opts.env ?? process.env;
    this.configDir = opts.configDir ?? claudeConfigDir(this.env);
    this.now = opts.now ?? Date.now;
    this.requests = new ClaudeRequestStore(opts.store.db);
    this.adoptedStore = new ClaudeAdoptedStore(opts.store.db);
    const db = opts.store.db;
    this.seenGet = db.prepare('SELECT phase_key FROM claude_seen WHERE session_id = ?');
    this.seenSet = db.prepare('UPDATE claude_seen SET phase_key = ?, at = ? WHERE session_id = ? AND phase_key = ?');
    this.seenNew = db.prepare('INSERT OR IGNORE INTO claude_seen (session_id, phase_key, at) VALUES (?, ?, ?)');
    ticks?.on('tick', this.onTick);
  }

  snapshot(): ClaudeSnapshot {
    return this.snap;
  }

  /** The adopted sessions as last read (read again when the database changed). */
  adoptions(): readonly AdoptedRow[] {
    return this.adopted;
  }

  /** The entry of a session by its key, full id or short id. */
  find(id: string): ClaudeEntry | undefined {
    return this.snap.entries.find((e) => e.session.key === id || e.session.sessionId === id || (e.session.id !== '' && e.session.id === id));
  }

  /** One look: the database, then the files; Claude Code is asked only when they changed. */
  look(): void {
    if (this.closed) return;
    const dbChanged = this.readDb();
    const folders = sessionFolders(this.configDir);
    if (folders === '' && this.sessions.length === 0) {
      this.lastPrint = '';
      if (dbChanged) this.rebuild();
      return;
    }
    const print = `${folders}\n${this.watched()}`;
    const stale = this.sessions.some(isLiveSession) && this.now() - this.snap.listedAt >= LIVE_RELIST_MS;
    if (print !== this.lastPrint || stale) void this.refresh();
    else if (dbChanged) this.rebuild();
  }

  /** What changes when a listed session's state file changes or its process dies. */
  private watched(): string {
    const live = this.sessions.filter(isLiveSession);
    return watchedFingerprint(this.configDir, live.map((s) => s.id).filter(Boolean), live.flatMap((s) => (s.pid !== undefined ? [s.pid] : [])));
  }

  /** Resolves once no look at Claude Code is under way. */
  async settled(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  /** One look for a caller that does not keep watching: the database, and Claude Code when it has session files. */
  async lookOnce(): Promise<void> {
    this.readDb();
    if (sessionFolders(this.configDir) === '') this.rebuild();
    else await this.refresh();
  }

  /**
   * Runs an action that stops and starts a session again (a sent prompt): meanwhile the
   * session is held (the governor leaves it alone), and the list is read again before it
   * is let go, so no one judges it by the stop.
   */
  async during<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    this.held.add(sessionId);
    try {
      return await fn();
    } finally {
      await this.refresh().catch(() => undefined);
      this.held.delete(sessionId);
    }
  }

  isHeld(sessionId: string): boolean {
    return this.held.has(sessionId);
  }

  /** Asks Claude Code now (once at a time; a change meanwhile asks again after). */
  refresh(): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    // the folders as they were before asking (a change during the call is looked at again);
    // the watched part as it is for the sessions this look lists
    const folders = sessionFolders(this.configDir);
    this.inFlight = (async () => {
      try {
        const listed = await listClaudeSessions({
          program: this.opts.program, configDir: this.configDir, env: this.env, ...(this.opts.run ? { run: this.opts.run } : {}),
          ...(this.opts.listTimeoutMs !== undefined ? { timeoutMs: this.opts.listTimeoutMs } : {}),
        });
        this.sessions = listed.sessions;
        this.note = '';
      } catch (err) {
        // keep what was listed: a failed look must not drop rows Claude Code still lists
        this.note = (err as Error).message;
      }
      this.lastPrint = `${folders}\n${this.watched()}`;
      this.snapListedAt = this.now();
      if (!this.closed) {
        this.readDb();
        this.rebuild();
      }
    })().finally(() => {
      this.inFlight = undefined;
      if (this.again && !this.closed) {
        this.again = false;
        void this.refresh();
      }
    });
    return this.inFlight;
  }

  /** Reads requests and adoptions when another connection wrote; true when they changed. */
  private readDb(): boolean {
    let version: number;
    try {
      version = this.opts.store.dataVersion();
    } catch {
      return false;
    }
    if (version === this.seenVersion) return false;
    this.seenVersion = version;
    try {
      this.open = this.requests.open().filter((r) => r.hookPid === null || pidAlive(r.hookPid));
      this.adopted = this.adoptedStore.list();
    } catch {
      return false; // a locked database: the next look reads it
    }
    return true;
  }

  /** This process wrote requests or adoptions: read them at the next look. */
  invalidate(): void {
    this.seenVersion = undefined;
  }

  private rebuild(): void {
    const now = this.now();
    const loops = this.opts.loopPids?.() ?? new Map<number, string>();
    const entries: ClaudeEntry[] = this.sessions.map((session) => {
      const request = session.sessionId ? this.open.filter((r) => r.sessionId === session.sessionId).at(-1) : undefined;
      const view = claudeView(session, now, request ? { id: request.id, kind: request.kind, text: request.text } : undefined);
      const adopted = session.sessionId ? this.adopted.find((a) => a.sessionId === session.sessionId) : undefined;
      const loop = session.pid !== undefined ? loops.get(session.pid) : undefined;
      return { session, view, ...(request ? { request } : {}), ...(adopted ? { adopted } : {}), ...(loop ? { loop } : {}) };
    });
    // an entry that reads the same as before stays the same object: the table redraws only what changed
    const before = new Map(this.snap.entries.map((e) => [e.session.key, e]));
    const stable = entries.map((e) => {
      const old = before.get(e.session.key);
      return old && sameEntry(old, e) ? old : e;
    });
    const changed = stable.length !== this.snap.entries.length || stable.some((e, i) => e !== this.snap.entries[i]) || this.note !== this.snap.note;
    this.snap = { entries: changed ? stable : this.snap.entries, note: this.note, listedAt: this.snapListedAt };
    if (!changed) return;
    if (this.opts.record !== false) this.record(stable);
    this.emit('change');
  }

  /** Changes worth an event (needs you, a limit, an end), recorded once across autodeck processes. */
  private record(entries: readonly ClaudeEntry[]): void {
    const at = new Date(this.now()).toISOString();
    for (const e of entries) {
      // a session autodeck itself is stopping and starting again (a sent prompt) has not ended
      if (!e.session.sessionId || e.loop || this.held.has(e.session.sessionId)) continue;
      const key = phaseKey(e.view);
      let previous: string | undefined;
      try {
        previous = this.swapSeen(e.session.sessionId, key, at);
      } catch {
        continue;
      }
      if (previous === key) continue;
      const event = transitionEvent(e, previous, at);
      if (!event) continue;
      try {
        event.id = this.opts.store.events.insert(event);
      } catch { /* the log is best effort; the listeners still hear it */ }
      this.emit('event', event);
    }
  }

  /**
   * Sets the session's seen state to `key`; returns the state it had, or `key` itself when
   * another autodeck recorded this very change first (then this one stays quiet).
   */
  private swapSeen(sessionId: string, key: string, at: string): string | undefined {
    const row = this.seenGet.get(sessionId) as { phase_key: string } | undefined;
    if (row?.phase_key === key) return key;
    const changed = row ? this.seenSet.run(key, at, sessionId, row.phase_key).changes : this.seenNew.run(sessionId, key, at).changes;
    return changed === 1 ? row?.phase_key : key;
  }

  close(): void {
    this.closed = true;
    this.ticks?.off('tick', this.onTick);
  }
}
