import { EventEmitter } from 'node:events';
import type { ActionResult, DashboardModel, ModelSettings } from '../../src/deck/model.js';
import type { DeckRow, DeckSnapshot } from '../../src/deck/deck.js';
import type { LoopRow } from '../../src/store/loops.js';
import type { LoopEvent } from '../../src/store/events.js';
import type { Limits, LimitSuggestion } from '../../src/history/suggest.js';
import type { ScreenSource } from '../../src/deck/screenFeed.js';
import type { Outcome, RunRow } from '../../src/store/runs.js';

/** A loop row with sensible values; tests override what they look at. */
export function loopRow(taskDir: string, patch: Partial<LoopRow> = {}): LoopRow {
  const name = taskDir.split('/').pop()!;
  return {
    session: `auto-${name}-000001`, taskDir, taskName: name, root: '/ws/AiTasks', status: 'running', maxIterations: 20, timeoutMinutes: 30,
    iteration: 3, recoveryStep: 0, recoveryTotal: 0, lastCaptureHash: '', stallCount: 0, quotaWaitSince: '', startedAt: new Date(Date.now() - 65_000).toISOString(),
    lastSignalAt: new Date(Date.now() - 4000).toISOString(), restartCount: 0, restartsTotal: 0, quotaWaitMs: 0, step: 'check', result: 'PASS', next: 'exec',
    checkpoint: '', stopReason: '', backend: 'pty', ownerPid: 1, ownerHost: 'here', ownerHeartbeatAt: null, agentArgv: [], settings: {}, agentPid: 2, forced: false, tokens: null, costUsd: null, waitingFor: null,
    ...patch,
  };
}

let nextRunId = 1;
/** A finished run of `taskDir` (ended a minute ago), as the runs table holds it. */
export function finishedRun(taskDir: string, outcome: Outcome, iterations: number, activeMinutes: number, patch: Partial<RunRow> = {}): RunRow {
  const ended = Date.now() - 60_000;
  return {
    id: nextRunId++, session: 's', taskDir, taskName: taskDir.split('/').pop()!, startedAt: new Date(ended - activeMinutes * 60_000).toISOString(),
    endedAt: new Date(ended).toISOString(), iterations, maxIterations: 20, timeoutMinutes: 30, outcome, stopReason: '', forced: false,
    recoveries: 0, restarts: 0, quotaWaitMs: 0, activeMs: activeMinutes * 60_000, tokens: null, costUsd: null, ...patch,
  };
}

export function moduleRow(name: string, patch: Partial<DeckRow> = {}): DeckRow {
  const key = `/ws/AiTasks/${name}`;
  return { key, name, lifecycle: 'planning', here: true, ownerAlive: true, ...patch };
}

/** A settable screen, as the ScreenFeed would give it. */
export class FakeScreen implements ScreenSource {
  private lines: readonly string[] = [];
  private readonly e = new EventEmitter();
  set(lines: string[]): void {
    this.lines = lines;
    this.e.emit('change');
  }
  getSnapshot = (): readonly string[] => this.lines;
  /** How many watch this screen now (the detail pane, while it is shown). */
  get watchers(): number {
    return this.e.listenerCount('change');
  }
  subscribe = (l: () => void): (() => void) => {
    this.e.on('change', l);
    return () => this.e.off('change', l);
  };
}

/**
 * The dashboard's model without a supervisor: rows are set by the test, and every call
 * the dashboard makes is recorded, so a test sees exactly what a key press asked for.
 */
export class FakeModel implements DashboardModel {
  settings: ModelSettings = { maxIterations: 20, timeoutMinutes: 30, stallThreshold: 3, recoveryTotal: 10, backend: 'pty', detachKey: 'ctrl-q' };
  private snapshot: DeckSnapshot = { rows: [] };
  private readonly e = new EventEmitter();
  private version = 0;
  eventLog: LoopEvent[] = [];
  calls: { action: string; key: string; arg?: unknown }[] = [];
  suggestions = new Map<string, LimitSuggestion>();
  /** Finished runs by module, newest first. */
  pastRuns = new Map<string, RunRow[]>();
  screens = new Map<string, FakeScreen>();
  summaries = new Map<string, string[]>();
  here = { pty: 0, tmux: 0 };
  startResult: ActionResult = { ok: true };

  constructor(rows: DeckRow[] = []) {
    this.setRows(rows);
  }

  setRows(rows: DeckRow[]): void {
    this.snapshot = { rows };
    this.e.emit('rows');
  }

  /** Replaces one row (a new object, as the Deck does when something in it changed). */
  patchRow(key: string, patch: Partial<DeckRow>): void {
    this.setRows(this.snapshot.rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  }

  addEvent(e: LoopEvent): void {
    this.eventLog.push({ id: this.eventLog.length + 1, ...e });
    this.version++;
    this.e.emit('events');
  }

  getSnapshot = (): DeckSnapshot => this.snapshot;
  subscribe = (l: () => void): (() => void) => {
    this.e.on('rows', l);
    return () => this.e.off('rows', l);
  };
  getEventsVersion = (): number => this.version;
  subscribeEvents = (l: () => void): (() => void) => {
    this.e.on('events', l);
    return () => this.e.off('events', l);
  };
  events(limit: number, key?: string): LoopEvent[] {
    return this.eventLog.filter((e) => key === undefined || e.taskDir === key).slice(-limit);
  }
  suggestion(key: string): LimitSuggestion {
    return this.suggestions.get(key) ?? { maxIterations: this.settings.maxIterations, timeoutMinutes: this.settings.timeoutMinutes, basis: 'defaults: no completed runs', fromRuns: 0 };
  }
  runs(key: string, limit: number): RunRow[] {
    return (this.pastRuns.get(key) ?? []).slice(0, limit);
  }
  start(key: string, limits: Partial<Limits>, opts: { worktree?: boolean } = {}): ActionResult {
    this.calls.push({ action: 'start', key, arg: opts.worktree ? { ...limits, worktree: true } : limits });
    return this.startResult;
  }
  stop(key: string, force: boolean): ActionResult {
    this.calls.push({ action: force ? 'forceStop' : 'stop', key });
    return { ok: true };
  }
  restart(key: string): ActionResult {
    this.calls.push({ action: 'restart', key });
    return { ok: true };
  }
  screen(key: string): ScreenSource | undefined {
    return this.screens.get(key);
  }
  summary(key: string, maxLines: number): string[] {
    return (this.summaries.get(key) ?? []).slice(0, maxLines);
  }
  session(): undefined {
    return undefined;
  }
  takeSession(): undefined {
    return undefined;
  }
  runningHere(): { pty: number; tmux: number } {
    return this.here;
  }
}
