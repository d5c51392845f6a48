import { EventEmitter } from 'node:events';
import type { DashboardModel, ActionResult, ModelSettings, Notice, RemoteAttach } from '../deck/model.js';
import type { DeckRow, DeckSnapshot } from '../deck/deck.js';
import type { ScreenSource } from '../deck/screenFeed.js';
import type { LimitSuggestion, Limits } from '../history/suggest.js';
import type { LoopEvent } from '../store/events.js';
import type { RunRow } from '../store/runs.js';
import type { Session } from '../sessions/session.js';
import { printable } from '../format/event.js';
import { lastLine } from './call.js';
import type { Caller, ConnectionSystem } from './connection.js';
import { isFailure } from './issue.js';
import { HostPoller } from './poller.js';
import { hostRows, parseKey, type RowMemo } from './rows.js';
import type { HostEntry } from './spec.js';
import { remoteCommand, terminalArgv, type SshConfig } from './ssh.js';
import { attachWords, historyWords, parseHistory, startWords, stopWords } from './actions.js';
import type { HostStatus, HostsView } from '../api/hosts.js';
import { CLAUDE_ROW_PREFIX, type ClaudeRowActions } from '../claudeSessions/rowActions.js';
import { hostsClaudeActions } from './claudeActions.js';
import type { ClaudeEntry } from '../claudeSessions/watch.js';
import { remoteClaudeJson } from './claudeRemote.js';

/** An action on another host (start, stop, history): the connection and the remote start included. */
export const ACTION_DEADLINE_MS = 30_000;
/** A host's run history is read again when older than this. */
const HISTORY_FRESH_MS = 10_000;
/** Stale rows say their age; it is brought up to date this often. */
const STALE_REFRESH_MS = 5_000;

export interface HostsModelOptions {
  ssh: SshConfig;
  /** The wait between two looks at a host. */
  baseMs: number;
  /** This machine's rows too (false: `--no-local`). */
  showLocal: boolean;
  localVersion: string;
  /** The detach key as tmux names it (`C-q`). */
  detachKey: string;
  call?: Caller;
  system?: ConnectionSystem;
  now?: () => number;
  /** A look's deadline (tests make it short). */
  deadlineMs?: number;
}

/**
 * The dashboard's model over several hosts: this machine's (the local model, as without
 * hosts) and each host's rows, read by its own poller, in one table. Actions on a row of
 * another host go to that host's autodeck over ssh, in the background: the table, the keys
 * and the other hosts never wait on them; what comes of them is said as a notice.
 */
export class HostsModel implements DashboardModel, HostsView {
  readonly settings: ModelSettings;
  readonly hosts: readonly string[];
  private readonly pollers: HostPoller[];
  private readonly rowsOf = new Map<string, DeckRow[]>();
  private readonly memos = new Map<string, RowMemo>();
  private snapshot: DeckSnapshot = { rows: [] };
  private readonly changes = new EventEmitter<{ change: [] }>();
  private readonly eventChanges = new EventEmitter<{ change: [] }>();
  private readonly notices = new EventEmitter<{ notice: [Notice] }>();
  /** Each event read from another host, as it comes (the REST API's event stream). */
  readonly remoteEvents = new EventEmitter<{ event: [LoopEvent] }>();
  private remoteEventsVersion = 0;
  /** Each remote module's history as last read; `lastRunId`: the module's last run when it was asked. */
  private readonly histories = new Map<string, { at: number; runs: RunRow[]; suggestion?: LimitSuggestion | undefined; pending: boolean; lastRunId?: number | undefined }>();
  private readonly stopLocal: () => void;
  private readonly stopLocalEvents: () => void;
  private staleTimer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly local: DashboardModel, entries: readonly HostEntry[], private readonly opts: HostsModelOptions) {
    this.settings = local.settings;
    this.now = opts.now ?? Date.now;
    this.hosts = entries.map((e) => e.label);
    this.claude = hostsClaudeActions(() => this.local.claude, {
      find: (key) => {
        const k = parseKey(key);
        const poller = k && k.dir.startsWith(CLAUDE_ROW_PREFIX) ? this.pollers.find((p) => p.entry.label === k.host) : undefined;
        const entry = poller ? (this.rowsOf.get(poller.entry.label) ?? []).find((r) => r.key === key)?.claude : undefined;
        return poller && entry ? { poller, entry, label: poller.entry.label } : undefined;
      },
      unreachable: (poller) => {
        const issue = poller.snapshot.issue;
        return issue && issue.kind !== 'connecting' ? `${poller.entry.label}: ${issue.message}` : undefined;
      },
      notice: (text, tone) => this.notices.emit('notice', { text: printable(text), tone }),
      ssh: this.opts.ssh,
    });
    this.pollers = entries.map((entry) => {
      const p = new HostPoller(entry, { ssh: opts.ssh, baseMs: opts.baseMs, localVersion: opts.localVersion, call: opts.call, now: opts.now, system: opts.system, deadlineMs: opts.deadlineMs });
      p.on('change', () => this.hostChanged(p));
      p.on('events', (list) => {
        this.bumpEvents();
        for (const e of list) this.remoteEvents.emit('event', e);
      });
      p.on('note', (text) => this.notices.emit('notice', { text: printable(text), tone: 'info' }));
      return p;
    });
    for (const p of this.pollers) this.rebuildHost(p);
    this.stopLocal = local.subscribe(() => this.rebuild());
    this.stopLocalEvents = local.subscribeEvents(() => this.eventChanges.emit('change'));
    this.rebuild();
    for (const p of this.pollers) p.start();
  }

  getSnapshot = (): DeckSnapshot => this.snapshot;
  subscribe = (listener: () => void): (() => void) => {
    this.changes.on('change', listener);
    return () => this.changes.off('change', listener);
  };
  getEventsVersion = (): number => this.local.getEventsVersion() + this.remoteEventsVersion;
  subscribeEvents = (listener: () => void): (() => void) => {
    this.eventChanges.on('change', listener);
    return () => this.eventChanges.off('change', listener);
  };
  subscribeNotices = (listener: (n: Notice) => void): (() => void) => {
    this.notices.on('notice', listener);
    return () => this.notices.off('notice', listener);
  };

  private bumpEvents(): void {
    this.remoteEventsVersion++;
    this.eventChanges.emit('change');
  }

  private hostChanged(p: HostPoller): void {
    this.rebuildHost(p);
    this.rebuild();
    this.armStaleTimer();
  }

  private rebuildHost(p: HostPoller): void {
    const label = p.entry.label;
    const { rows, memo } = hostRows(p.snapshot, this.now(), this.memos.get(label) ?? new Map());
    this.memos.set(label, memo);
    this.rowsOf.set(label, rows);
  }

  private rebuild(): void {
    const rows = [...(this.opts.showLocal ? this.local.getSnapshot().rows : []), ...this.pollers.flatMap((p) => this.rowsOf.get(p.entry.label) ?? [])];
    const old = this.snapshot.rows;
    if (rows.length === old.length && rows.every((r, i) => r === old[i])) return;
    this.snapshot = { rows };
    this.changes.emit('change');
  }

  /** While a host's loops are stale, their age moves: looked at now and then. */
  private armStaleTimer(): void {
    const stale = this.pollers.some((p) => p.snapshot.issue && isFailure(p.snapshot.issue.kind) && p.snapshot.status);
    if (stale && !this.staleTimer) {
      this.staleTimer = setInterval(() => {
        for (const p of this.pollers) this.rebuildHost(p);
        this.rebuild();
        this.armStaleTimer();
      }, STALE_REFRESH_MS);
      this.staleTimer.unref();
    } else if (!stale && this.staleTimer) {
      clearInterval(this.staleTimer);
      this.staleTimer = undefined;
    }
  }

  /** The host and path of a row of another host, with its poller and row; undefined for this machine's. */
  private remote(key: string): { poller: HostPoller; dir: string; row: DeckRow | undefined } | undefined {
    const k = parseKey(key);
    if (!k) return undefined;
    const poller = this.pollers.find((p) => p.entry.label === k.host);
    if (!poller) return undefined;
    return { poller, dir: k.dir, row: (this.rowsOf.get(k.host) ?? []).find((r) => r.key === key) };
  }

  /** Whether the key is a Claude Code session's row on another host. */
  private isRemoteClaude(key: string): boolean {
    return parseKey(key)?.dir.startsWith(CLAUDE_ROW_PREFIX) ?? false;
  }

  /** Why an action cannot go to this row's host now, or undefined when it can. */
  private unreachable(r: { poller: HostPoller; dir: string; row: DeckRow | undefined }): string | undefined {
    if (r.dir === '' || r.row?.hostIssue) return 'this row is a host, not a task module';
    const issue = r.poller.snapshot.issue;
    if (issue && issue.kind !== 'connecting') return `${r.poller.entry.label}: ${issue.message}`;
    return undefined;
  }

  events(limit: number, key?: string): LoopEvent[] {
    const r = key === undefined ? undefined : parseKey(key);
    if (key !== undefined && !r) return this.local.events(limit, key);
    if (r) return this.pollers.find((p) => p.entry.label === r.host)?.recentEvents().filter((e) => e.taskDir === r.dir).slice(-limit) ?? [];
    const all = [...(this.opts.showLocal ? this.local.events(limit) : []), ...this.pollers.flatMap((p) => p.recentEvents().slice(-limit))];
    all.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    return all.slice(-limit);
  }

  suggestion(key: string): LimitSuggestion {
    const r = this.remote(key);
    if (!r) return this.local.suggestion(key);
    if (this.isRemoteClaude(key)) return { maxIterations: this.settings.maxIterations, timeoutMinutes: this.settings.timeoutMinutes, basis: 'defaults', fromRuns: 0 };
    this.fetchHistory(key, r);
    const { maxIterations, timeoutMinutes } = this.settings;
    return this.histories.get(key)?.suggestion ?? { maxIterations, timeoutMinutes, basis: 'defaults', fromRuns: 0 };
  }

  runs(key: string, limit: number): RunRow[] {
    const r = this.remote(key);
    if (!r) return this.local.runs(key, limit);
    this.fetchHistory(key, r);
    return (this.histories.get(key)?.runs ?? []).slice(0, limit);
  }

  /**
   * Reads the module's run history on its host in the background; the event version moves
   * when it is in. Read again once it is a while old, or as soon as a run ended there since
   * (the start dialog read it while the loop ran; the history view opened after the stop).
   */
  private fetchHistory(key: string, r: { poller: HostPoller; dir: string; row: DeckRow | undefined }): void {
    const known = this.histories.get(key);
    const lastRunId = r.row?.lastRun?.id;
    if (known && (known.pending || (known.lastRunId === lastRunId && this.now() - known.at < HISTORY_FRESH_MS))) return;
    if (r.dir === '' || r.poller.snapshot.issue) return;
    this.histories.set(key, { at: this.now(), runs: known?.runs ?? [], suggestion: known?.suggestion, pending: true, lastRunId: known?.lastRunId });
    void r.poller.run(historyWords(r.dir, 50), ACTION_DEADLINE_MS).then((res) => {
      const parsed = res.code === 0 ? parseHistory(res.stdout) : undefined;
      this.histories.set(key, { at: this.now(), runs: parsed?.runs ?? known?.runs ?? [], suggestion: parsed?.suggestion ?? known?.suggestion, pending: false, lastRunId });
      this.bumpEvents();
    });
  }

  start(key: string, limits: Partial<Limits>, opts: { worktree?: boolean } = {}): ActionResult {
    const r = this.remote(key);
    if (!r) return this.local.start(key, limits, opts);
    // on a Claude Code session's row: adopt it there with these limits
    if (this.isRemoteClaude(key)) return this.claude.adopt(key, limits);
    const why = this.unreachable(r);
    if (why) return { ok: false, message: why };
    if (r.row?.loop && r.row.loop.status !== 'failed') return { ok: false, message: 'a loop already runs there' };
    const host = r.poller.entry.label;
    const name = r.row?.name ?? r.dir;
    this.act(r.poller, startWords(r.poller.entry, r.dir, limits, opts), `started ${name} on ${host}`, `not started on ${host}`);
    return { ok: true, message: `starting ${name} on ${host}: at most ${limits.maxIterations ?? this.settings.maxIterations} iterations, ${limits.timeoutMinutes ?? this.settings.timeoutMinutes} min${opts.worktree ? ', in a worktree' : ''}` };
  }

  stop(key: string, force: boolean): ActionResult {
    const r = this.remote(key);
    if (!r) return this.local.stop(key, force);
    const why = this.unreachable(r);
    if (why) return { ok: false, message: why };
    if (r.row?.staleFor) return { ok: false, message: `${r.poller.entry.label} does not answer` };
    const host = r.poller.entry.label;
    this.act(r.poller, stopWords(r.dir, force), `${force ? 'force stop' : 'stop'} asked of ${r.row?.name ?? r.dir} on ${host}`, `not stopped on ${host}`);
    return { ok: true, message: `${force ? 'killing' : 'stopping'} ${r.row?.name ?? r.dir} on ${host}` };
  }

  restart(key: string): ActionResult {
    const r = this.remote(key);
    if (!r) return this.local.restart(key);
    const loop = r.row?.loop;
    if (!loop || loop.status !== 'failed') return { ok: false, message: 'only a failed loop restarts' };
    return this.start(key, { maxIterations: loop.maxIterations, timeoutMinutes: loop.timeoutMinutes });
  }

  /** Runs an action on the host in the background; its outcome as a notice, then a look soon. */
  private act(poller: HostPoller, words: string[], done: string, refused: string): void {
    void poller.run(words, ACTION_DEADLINE_MS).then((res) => {
      const said = lastLine(res.stderr);
      if (res.code === 0) this.notices.emit('notice', { text: printable(done), tone: 'info' });
      else this.notices.emit('notice', { text: printable(`${refused}: ${said.replace(/^autodeck: /, '') || (res.timedOut ? 'no answer in time' : `exit ${res.code ?? 'unknown'}`)}`), tone: 'error' });
      poller.lookSoon();
    });
  }

  remoteAttach(key: string): RemoteAttach | undefined {
    const r = this.remote(key);
    // a Claude Code session's row: attached through `claude attach` in a terminal of autodeck's (the claude actions)
    if (!r || this.isRemoteClaude(key)) return undefined;
    const why = this.unreachable(r);
    if (why) return { error: why };
    const loop = r.row?.loop;
    const snap = r.poller.snapshot;
    if (!loop || loop.status === 'failed' || r.row?.staleFor) return { error: 'no loop runs there' };
    if (loop.backend !== 'tmux') return { error: `the agent runs in a pseudo-terminal of the autodeck there (backend pty): attach from ${r.poller.entry.label} itself` };
    if (!snap.status || !snap.program) return { error: `${r.poller.entry.label} has not been read yet` };
    const remote = remoteCommand({ path: 'tmux', pathDir: snap.program.pathDir }, attachWords(snap.status.tmuxSocket, loop.session, this.opts.detachKey).slice(1));
    return { argv: terminalArgv(this.opts.ssh, r.poller.entry, remote), host: r.poller.entry.label, session: loop.session };
  }

  screen(key: string): ScreenSource | undefined {
    return parseKey(key) ? undefined : this.local.screen(key);
  }

  summary(key: string, maxLines: number): string[] {
    return parseKey(key) ? [] : this.local.summary(key, maxLines);
  }

  session(key: string): Session | undefined {
    return parseKey(key) ? undefined : this.local.session(key);
  }

  takeSession(key: string): { session: Session; release: () => void } | undefined {
    return parseKey(key) ? undefined : this.local.takeSession(key);
  }

  /** Each host as last read, for the REST API: its loops and runs, or why there are none. */
  hostStatus(): HostStatus[] {
    return this.pollers.map((p) => {
      const s = p.snapshot;
      const read = s.status !== undefined && s.issue === undefined;
      return {
        host: p.entry.label, state: s.issue?.kind ?? 'ok', ...(s.issue ? { message: s.issue.message } : {}), ...(s.version ? { version: s.version } : {}),
        loops: read ? (s.status!.loops as unknown as Record<string, unknown>[]) : [], recent: read ? s.status!.recent : [],
        claudeSessions: remoteClaudeJson(s, this.now()),
      };
    });
  }

  remoteClaudeSessions(): { key: string; host: string; entry: ClaudeEntry }[] {
    return this.pollers.flatMap((p) => (this.rowsOf.get(p.entry.label) ?? []).flatMap((r) => (r.claude ? [{ key: r.key, host: p.entry.label, entry: r.claude }] : [])));
  }

  runningHere(): { pty: number; tmux: number } {
    return this.local.runningHere();
  }

  /** Claude Code's own sessions: this machine's through the local model, another host's through its autodeck. */
  readonly claude: ClaudeRowActions;

  close(): void {
    if (this.staleTimer) clearInterval(this.staleTimer);
    for (const p of this.pollers) p.close();
    this.stopLocal();
    this.stopLocalEvents();
    (this.local as { close?: () => void }).close?.();
  }
}
