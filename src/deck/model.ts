import { EventEmitter } from 'node:events';
import { Deck, type DeckSnapshot } from './deck.js';
import { ScreenFeed, type ScreenSource } from './screenFeed.js';
import { suggestionFor } from '../history/forModule.js';
import type { LimitSuggestion, Limits } from '../history/suggest.js';
import { readSummaryHead } from '../protocol/summary.js';
import { StartRefused, type Supervisor } from '../supervisor/supervisor.js';
import type { Loop } from '../supervisor/loop.js';
import type { Store } from '../store/index.js';
import type { LoopEvent } from '../store/events.js';
import type { RunRow } from '../store/runs.js';
import type { Session } from '../sessions/session.js';
import { isBusyError } from '../store/db.js';
import type { ClaudeService } from '../claudeSessions/service.js';
import { claudeRowActions, isClaudeKey, type ClaudeRowActions } from '../claudeSessions/rowActions.js';

/** What the dashboard needs from the settings. */
export interface ModelSettings {
  maxIterations: number;
  timeoutMinutes: number;
  stallThreshold: number;
  recoveryTotal: number;
  backend: string;
  /** The key that leaves attach mode (`ctrl-q`): the footer, `?` and the attach line name it. */
  detachKey: string;
  /** Whether a new loop gets a git worktree unless the start dialog says otherwise. */
  worktree?: boolean;
}

/** An action's outcome, as the dashboard shows it: nothing (or what it began), or one line. */
export type ActionResult = { ok: true; message?: string } | { ok: false; message: string };

/** How to hand the terminal to a loop on another host (ssh with a terminal), or why not. */
export type RemoteAttach = { argv: string[]; host: string; session: string } | { error: string };

/** A line for the message bar from work done in the background (a start on another host refused). */
export interface Notice {
  text: string;
  tone: 'info' | 'error';
}

/**
 * Everything the dashboard reads and does, as one small surface over the supervisor: the
 * components know this interface, tests give them a fake, and the real one is below.
 * Keys flow back only as these calls.
 */
export interface DashboardModel {
  readonly settings: ModelSettings;
  getSnapshot(): DeckSnapshot;
  subscribe(listener: () => void): () => void;
  /** Grows whenever the event log may have grown. */
  getEventsVersion(): number;
  subscribeEvents(listener: () => void): () => void;
  /** The last `limit` events (of one module, or of all), oldest first. */
  events(limit: number, key?: string): LoopEvent[];
  suggestion(key: string): LimitSuggestion;
  /** A module's newest finished runs, newest first (the history view). */
  runs(key: string, limit: number): RunRow[];
  start(key: string, limits: Partial<Limits>, opts?: { worktree?: boolean }): ActionResult;
  stop(key: string, force: boolean): ActionResult;
  /** Starts a failed loop again with its own limits. */
  restart(key: string): ActionResult;
  /** The live screen of an agent this process runs, or undefined. */
  screen(key: string): ScreenSource | undefined;
  summary(key: string, maxLines: number): string[];
  /** The session to attach to, when this process runs the loop. */
  session(key: string): Session | undefined;
  /**
   * Takes the agent's session for attach mode: its heartbeat rests until `release`, so
   * no recovery types into a screen a person is using. Undefined when it does not run here.
   */
  takeSession(key: string): { session: Session; release: () => void } | undefined;
  /** How many loops this process runs, by backend (for the quit dialog). */
  runningHere(): { pty: number; tmux: number };
  /** The other hosts shown (src/hosts/), when there are any: the table gets a HOST column. */
  readonly hosts?: readonly string[];
  /** For a loop on another host: how to attach to it; undefined for a row of this machine. */
  remoteAttach?(key: string): RemoteAttach | undefined;
  subscribeNotices?(listener: (n: Notice) => void): () => void;
  /** Claude Code's own sessions (rows keyed `claude:…`): what can be done to them; absent when not watched. */
  readonly claude?: ClaudeRowActions | undefined;
}

/**
 * Changes reach the screen at most this often: twenty loops beating in the same tick
 * make one render, not twenty. The first change after a quiet spell goes at once. 100 ms:
 * ten data frames a second at most, while keys render sooner (the dashboard's KEY_FPS).
 */
export const CHANGE_COALESCE_MS = 100;

function failure(err: unknown): ActionResult {
  if (err instanceof StartRefused) return { ok: false, message: err.message };
  if (isBusyError(err)) return { ok: false, message: 'the state database is locked by another process; try again' };
  return { ok: false, message: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
}

/** The DashboardModel of a real supervisor and its store. */
export class LiveModel implements DashboardModel {
  readonly settings: ModelSettings;
  private readonly deck: Deck;
  private readonly events$ = new EventEmitter<{ change: [] }>();
  private eventsVersion = 0;
  private lastEventId = 0;
  private readonly feeds = new Map<string, { session: Session; feed: ScreenFeed }>();
  // An event of this process: shown now, and its id noted so the poll does not show it again.
  private readonly onEvent = (e: LoopEvent): void => {
    if (e.id !== undefined) this.lastEventId = Math.max(this.lastEventId, e.id);
    this.bumpEvents();
  };
  private readonly changes = new EventEmitter<{ change: [] }>();
  private pending: NodeJS.Timeout | undefined;
  private lastShownAt = 0;
  private rowsChanged = false;
  private eventsChanged = false;
  claude: ClaudeRowActions | undefined;

  constructor(private readonly supervisor: Supervisor, private readonly store: Store, roots: readonly string[], detachKey = 'ctrl-q') {
    const s = supervisor.settings;
    this.settings = { maxIterations: s.maxIterations, timeoutMinutes: s.timeoutMinutes, stallThreshold: s.stallThreshold, recoveryTotal: s.recoveryTotal, backend: s.backend, detachKey, worktree: s.worktree ?? false };
    this.deck = new Deck(supervisor, store, roots);
    this.deck.on('change', this.onDeckChange);
    supervisor.on('event', this.onEvent);
    this.lastEventId = store.events.list(1).at(-1)?.id ?? 0;
    // Other processes write events too: looked for when the deck sees another connection's write.
    this.deck.on('written', this.pollEvents);
  }

  // Always the newest (a stable reference until the deck changes); only notifications are coalesced.
  getSnapshot = (): DeckSnapshot => this.deck.getSnapshot();
  subscribe = (listener: () => void): (() => void) => {
    this.changes.on('change', listener);
    return () => this.changes.off('change', listener);
  };

  /** The deck changed: pass it on now, or at the end of the current window. */
  private readonly onDeckChange = (): void => this.notify('rows');

  /**
   * Rows and events change together (a signal is both): one window for both, and rows
   * told first, so the render that goes out at once already shows the new row instead of
   * leaving it to the screen's next frame.
   */
  private notify(what: 'rows' | 'events'): void {
    if (what === 'rows') this.rowsChanged = true;
    else this.eventsChanged = true;
    if (this.pending) return;
    // Monotonic: a wall clock set back an hour must not hold the next frame for an hour.
    const wait = Math.max(0, this.lastShownAt + CHANGE_COALESCE_MS - performance.now());
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.lastShownAt = performance.now();
      const rows = this.rowsChanged;
      const events = this.eventsChanged;
      this.rowsChanged = this.eventsChanged = false;
      if (rows) this.changes.emit('change');
      if (events) this.events$.emit('change');
    }, wait);
  }

  getEventsVersion = (): number => this.eventsVersion;
  subscribeEvents = (listener: () => void): (() => void) => {
    this.events$.on('change', listener);
    return () => this.events$.off('change', listener);
  };

  private bumpEvents(): void {
    this.eventsVersion++;
    this.notify('events');
  }

  // Own events arrive through onEvent; only another connection's write can add one unseen.
  private readonly pollEvents = (): void => {
    try {
      const newest = this.store.events.list(1).at(-1)?.id ?? 0;
      if (newest <= this.lastEventId) return;
      this.lastEventId = newest;
      this.bumpEvents();
    } catch { /* a locked database: the next write looks again */ }
  };

  events(limit: number, key?: string): LoopEvent[] {
    try {
      return this.store.events.list(limit, key);
    } catch {
      return [];
    }
  }

  suggestion(key: string): LimitSuggestion {
    return suggestionFor(this.store, key, this.settings);
  }

  runs(key: string, limit: number): RunRow[] {
    try {
      return this.store.runs.list(limit, key);
    } catch {
      return [];
    }
  }

  /** Shows Claude Code's own sessions in the table, and acts on them. */
  showClaude(service: ClaudeService): void {
    this.claude = claudeRowActions(service);
    this.deck.showClaude(service.watch);
  }

  start(key: string, limits: Partial<Limits>, opts: { worktree?: boolean } = {}): ActionResult {
    // on a Claude Code session's row: adopt it as a loop with these limits
    if (isClaudeKey(key)) return this.claude ? this.claude.adopt(key, limits) : { ok: false, message: 'Claude Code sessions are not watched here' };
    try {
      this.supervisor.start(key, { ...limits, ...opts });
      this.deck.poll();
      return { ok: true };
    } catch (err) {
      return failure(err);
    }
  }

  stop(key: string, force: boolean): ActionResult {
    try {
      return this.supervisor.stop(key, { force }) ? { ok: true } : { ok: false, message: 'no loop runs on this module' };
    } catch (err) {
      return failure(err);
    }
  }

  restart(key: string): ActionResult {
    const row = this.deck.getSnapshot().rows.find((r) => r.key === key)?.loop;
    if (!row || row.status !== 'failed') return { ok: false, message: 'only a failed loop restarts' };
    return this.start(key, { maxIterations: row.maxIterations, timeoutMinutes: row.timeoutMinutes });
  }

  /** This process's loop on `key` with a live agent session, if any. */
  private liveLoop(key: string): { loop: Loop; session: Session } | undefined {
    const loop = this.supervisor.active().find((l) => l.taskDir === key);
    const session = loop?.session;
    return loop && session && !session.exited ? { loop, session } : undefined;
  }

  session(key: string): Session | undefined {
    return this.liveLoop(key)?.session;
  }

  takeSession(key: string): { session: Session; release: () => void } | undefined {
    const live = this.liveLoop(key);
    if (!live) return undefined;
    live.loop.setAttached(true);
    return { session: live.session, release: () => live.loop.setAttached(false) };
  }

  screen(key: string): ScreenSource | undefined {
    const session = this.session(key);
    const known = this.feeds.get(key);
    if (known && known.session === session) return known.feed;
    known?.feed.close();
    this.feeds.delete(key);
    if (!session) return undefined;
    const feed = new ScreenFeed(session);
    this.feeds.set(key, { session, feed });
    return feed;
  }

  summary(key: string, maxLines: number): string[] {
    return readSummaryHead(key, maxLines);
  }

  runningHere(): { pty: number; tmux: number } {
    const out = { pty: 0, tmux: 0 };
    for (const l of this.supervisor.active()) out[l.row.backend === 'tmux' ? 'tmux' : 'pty']++;
    return out;
  }

  close(): void {
    this.deck.off('written', this.pollEvents);
    if (this.pending) clearTimeout(this.pending);
    this.deck.off('change', this.onDeckChange);
    this.supervisor.off('event', this.onEvent);
    for (const { feed } of this.feeds.values()) feed.close();
    this.feeds.clear();
    this.deck.close();
  }
}
