import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Store } from '../store/index.js';
import type { LoopEvent, EventKind } from '../store/events.js';
import type { Outcome } from '../store/runs.js';
import { ownerAlive } from '../supervisor/owner.js';
import { TranscriptUsage } from '../spend/reader.js';
import { mergePrices, spendOf, type ModelPrice } from '../spend/prices.js';
import { ClaudeAdoptedStore, type AdoptedRow, type AdoptedSettings } from './adopted.js';
import { activeAdoptedMs, governorStep, type GovernorStep } from './governor.js';
import { ActionError, sendPrompt, stopSession, type ActionContext } from './actions.js';
import { transcriptPath } from './files.js';
import { claudeSessionName, claudeTaskDir } from './transitions.js';
import type { ClaudeEntry, ClaudeWatch } from './watch.js';

/**
 * Adopted background sessions, governed by the autodeck process that owns each
 * (`autodeck adopt` in the foreground, or a dashboard / `serve` that took it over from an
 * owner that died): at each look it counts the turns the session finished, reads what it
 * spent, and applies governorStep's decision — stop at a limit, wait out a usage limit and
 * send the session on once after the reset, close the adoption when the session ends.
 */

/** What autodeck asks of a session it adopts, beside its limits. */
export interface AdoptLimits {
  maxIterations: number;
  timeoutMinutes: number;
  settings: AdoptedSettings;
}

export class AdoptError extends Error {
  constructor(readonly kind: 'refused' | 'conflict' | 'not_found', message: string) {
    super(message);
    this.name = 'AdoptError';
  }
}

/** Records the adoption of a listed background session; this process owns it. */
export function adoptSession(store: Store, entry: ClaudeEntry | undefined, limits: AdoptLimits, owner: { pid: number; host: string }, now: number): AdoptedRow {
  if (!entry) throw new AdoptError('not_found', 'Claude Code lists no session with that id');
  const s = entry.session;
  if (!s.id || !s.sessionId) throw new AdoptError('refused', `${s.name || s.key}: only a background session can be adopted (an interactive one runs in its person's terminal)`);
  if (entry.loop) throw new AdoptError('refused', `${s.id} is the agent of autodeck's loop ${entry.loop}`);
  if (!entry.view.live) throw new AdoptError('refused', `${s.id} is not running (${entry.view.word}); resume it first`);
  const adopted = new ClaudeAdoptedStore(store.db);
  if (adopted.get(s.sessionId)) throw new AdoptError('conflict', `${s.id} is adopted already`);
  const at = new Date(now).toISOString();
  try {
    adopted.insert({
      sessionId: s.sessionId, shortId: s.id, name: s.name, cwd: s.cwd, maxIterations: limits.maxIterations, timeoutMinutes: limits.timeoutMinutes,
      settings: limits.settings, startedAt: at, ownerPid: owner.pid, ownerHost: owner.host, ownerHeartbeatAt: at,
    });
  } catch (err) {
    if (/UNIQUE|PRIMARY KEY/i.test(String(err))) throw new AdoptError('conflict', `${s.id} is adopted already`);
    throw err;
  }
  store.events.insert({
    at, session: s.id, taskDir: claudeTaskDir(s.sessionId), kind: 'started',
    detail: {
      adopted: true, maxIterations: limits.maxIterations, timeoutMinutes: limits.timeoutMinutes, argv: ['adopted', 'Claude Code session', s.id],
      claude: { id: s.id, sessionId: s.sessionId, cwd: s.cwd },
    },
  });
  return adopted.get(s.sessionId)!;
}

/** Counts the turns a transcript records (`system` entries of subtype `turn_duration`) written at or after `since`. */
export class TurnCounter {
  private offset = 0;
  private turns = 0;

  constructor(private readonly path: string, private readonly since: string) {}

  count(): number {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return this.turns;
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        this.offset = 0;
        this.turns = 0;
      }
      while (this.offset < size) {
        const want = Math.min(4 * 1024 * 1024, size - this.offset);
        const buf = Buffer.alloc(want);
        const got = readSync(fd, buf, 0, want, this.offset);
        const end = buf.lastIndexOf(0x0a, got - 1);
        if (got <= 0 || end < 0) break;
        for (const line of buf.toString('utf8', 0, end).split('\n')) {
          if (!line.includes('turn_duration')) continue;
          try {
            const o = JSON.parse(line) as { type?: unknown; subtype?: unknown; timestamp?: unknown };
            if (o.type === 'system' && o.subtype === 'turn_duration' && (typeof o.timestamp !== 'string' || o.timestamp >= this.since)) this.turns++;
          } catch { /* not JSON */ }
        }
        this.offset += end + 1;
      }
    } finally {
      closeSync(fd);
    }
    return this.turns;
  }
}

interface Tracked {
  turns: TurnCounter;
  usage: TranscriptUsage;
  busy: boolean;
  /** The resume after a limit was refused (this release would make a copy): said once, not tried again. */
  resumeRefused: boolean;
}

export interface GovernorOptions {
  store: Store;
  watch: ClaudeWatch;
  actions: ActionContext;
  configDir: string;
  host: string;
  pid: number;
  now?: () => number;
  /** Typed to a session after its usage limit reset. */
  continuationMessage: string;
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Take over adoptions whose owner died (a dashboard, `serve`); `adopt` governs only its own. */
  takeOrphans: boolean;
  /** Only these sessions (the `adopt` command's); all it owns when absent. */
  only?: ReadonlySet<string>;
  emit(event: LoopEvent): void;
}

/** How often this process tells the database it still governs its adoptions. */
const LEASE_MS = 15_000;

export class ClaudeGovernor {
  private readonly adopted: ClaudeAdoptedStore;
  private readonly tracked = new Map<string, Tracked>();
  private readonly now: () => number;
  private readonly prices: Record<string, ModelPrice>;
  private lastLease = 0;
  private closed = false;

  constructor(private readonly o: GovernorOptions) {
    this.adopted = new ClaudeAdoptedStore(o.store.db);
    this.now = o.now ?? Date.now;
    this.prices = mergePrices(o.prices);
  }

  /** The adoptions this process governs now. */
  mine(): AdoptedRow[] {
    return this.adopted.list().filter((r) => r.ownerPid === this.o.pid && r.ownerHost === this.o.host && (!this.o.only || this.o.only.has(r.sessionId)));
  }

  /** One look at every adoption this process owns (or may take over). */
  step(): void {
    // nothing adopted (as the watch last read it): nothing to look at, not even the database
    if (this.closed || this.o.watch.adoptions().length === 0) return;
    const now = this.now();
    let rows: AdoptedRow[];
    try {
      rows = this.adopted.list();
    } catch {
      return;
    }
    const lease = now - this.lastLease >= LEASE_MS;
    if (lease) this.lastLease = now;
    for (const row of rows) {
      if (this.o.only && !this.o.only.has(row.sessionId)) continue;
      const own = row.ownerPid === this.o.pid && row.ownerHost === this.o.host;
      if (!own) {
        if (!this.o.takeOrphans || ownerAlive(row, { host: this.o.host, now })) continue;
        const at = new Date(now).toISOString();
        if (!this.adopted.takeOver(row.sessionId, { pid: row.ownerPid, host: row.ownerHost }, { pid: this.o.pid, host: this.o.host, at })) continue;
        this.event(row, 'recovered', { from: { pid: row.ownerPid, host: row.ownerHost }, action: 'took over governing the adopted Claude Code session', adopted: true });
        this.o.watch.invalidate();
        continue;
      }
      if (lease) this.adopted.update(row.sessionId, { ownerHeartbeatAt: new Date(now).toISOString() });
      this.govern(row, now);
    }
  }

  private track(row: AdoptedRow): Tracked {
    let t = this.tracked.get(row.sessionId);
    if (!t) {
      const path = transcriptPath(this.o.configDir, row.cwd, row.sessionId);
      t = { turns: new TurnCounter(path, row.startedAt), usage: new TranscriptUsage(path), busy: false, resumeRefused: false };
      this.tracked.set(row.sessionId, t);
    }
    return t;
  }

  private govern(row: AdoptedRow, now: number): void {
    const t = this.track(row);
    if (t.busy || this.o.watch.isHeld(row.sessionId)) return;
    const turns = t.turns.count();
    t.usage.update();
    const spend = this.spendSince(t.usage, row.startedAt);
    const changes: Partial<AdoptedRow> = {};
    if (turns !== row.turns) changes.turns = turns;
    if (spend && spend.tokens !== row.tokens) changes.tokens = spend.tokens;
    if (spend && (spend.costUsd ?? null) !== row.costUsd) changes.costUsd = spend.costUsd ?? null;
    if (Object.keys(changes).length > 0) {
      this.adopted.update(row.sessionId, changes);
      Object.assign(row, changes);
      this.o.watch.invalidate();
    }
    const entry = this.o.watch.find(row.sessionId);
    const decision = governorStep({ row, view: entry?.view, now, spend });
    this.act(row, decision, t, now);
  }

  private spendSince(usage: TranscriptUsage, since: string): { tokens: number; costUsd: number | undefined } | undefined {
    if (usage.messageCount === 0) return undefined;
    const all = spendOf(usage.byModel(), this.prices);
    const before = spendOf(usage.byModel(since), this.prices);
    const costUsd = all.costUsd !== undefined && before.costUsd !== undefined ? all.costUsd - before.costUsd : undefined;
    return { tokens: all.tokens - before.tokens, costUsd };
  }

  private act(row: AdoptedRow, step: GovernorStep, t: Tracked, now: number): void {
    const at = new Date(now).toISOString();
    switch (step.kind) {
      case 'none':
        return;
      case 'stop': {
        this.adopted.update(row.sessionId, { status: 'stopping', stopReason: step.reason });
        this.event(row, 'stop_requested', { reason: step.reason, by: 'autodeck (claude stop)', iteration: row.turns, adopted: true });
        this.async(t, async () => {
          const entry = this.o.watch.find(row.sessionId);
          if (entry) await stopSession(this.o.actions, entry.session);
        }, row);
        return;
      }
      case 'quota_wait':
        this.adopted.update(row.sessionId, { status: 'quota_wait', quotaWaitSince: at, quotaResetAt: step.resetAt });
        this.event(row, 'quota_wait', { message: step.text, ...(step.named ? { resetAt: step.resetAt } : {}), nextProbeAt: step.resetAt, adopted: true });
        this.o.watch.invalidate();
        return;
      case 'quota_over':
        this.closeWait(row, now, false);
        return;
      case 'resume': {
        if (t.resumeRefused) return;
        this.async(t, async () => {
          const entry = this.o.watch.find(row.sessionId);
          if (!entry) return;
          try {
            await this.o.watch.during(row.sessionId, async () => {
              await sendPrompt(this.o.actions, entry.session, this.o.continuationMessage);
              const fresh = this.adopted.get(row.sessionId);
              if (fresh) this.closeWait({ ...fresh }, this.now(), true);
            });
          } catch (err) {
            if (!(err instanceof ActionError) || err.kind !== 'refused') throw err;
            // it stays at its limit: a person sends it on (attach, and type)
            t.resumeRefused = true;
            this.event(row, 'needs_you', { reason: 'quota', text: `the usage limit has reset; autodeck cannot send this session on: ${err.message}`, adopted: true });
            throw err;
          }
        }, row);
        return;
      }
      case 'end':
        this.end(row, step.outcome, step.why, now);
        return;
    }
  }

  private closeWait(row: AdoptedRow, now: number, resumed: boolean): void {
    const since = Date.parse(row.quotaWaitSince);
    const waited = Number.isNaN(since) ? 0 : Math.max(0, now - since);
    this.adopted.update(row.sessionId, {
      status: 'running', quotaWaitSince: '', quotaResetAt: '', quotaWaitMs: row.quotaWaitMs + waited, ...(resumed ? { quotaResumes: row.quotaResumes + 1 } : {}),
    });
    this.event(row, 'quota_resume', {
      waitedMs: waited, resumed, why: resumed ? 'the reset passed: autodeck sent the session on' : 'the session went on without autodeck', adopted: true,
      ...(resumed ? { message: this.o.continuationMessage } : {}),
    });
    this.o.watch.invalidate();
  }

  /** An action of Claude Code's that takes a while: one at a time per session, its failure an event. */
  private async(t: Tracked, fn: () => Promise<void>, row: AdoptedRow): void {
    t.busy = true;
    fn().catch((err: unknown) => {
      this.event(row, 'error', { where: 'adopted session', message: (err as Error).message.split('\n')[0] });
    }).finally(() => {
      t.busy = false;
    });
  }

  private end(row: AdoptedRow, outcome: Outcome, why: string, now: number): void {
    const fresh = this.adopted.get(row.sessionId) ?? row;
    const at = new Date(now).toISOString();
    const waiting = fresh.quotaWaitSince ? Math.max(0, now - Date.parse(fresh.quotaWaitSince)) : 0;
    this.o.store.tx(() => {
      this.o.store.runs.insert({
        session: fresh.shortId, taskDir: claudeTaskDir(fresh.sessionId), taskName: fresh.name || fresh.shortId, startedAt: fresh.startedAt, endedAt: at,
        iterations: fresh.turns, maxIterations: fresh.maxIterations, timeoutMinutes: fresh.timeoutMinutes, outcome, stopReason: fresh.stopReason,
        forced: false, recoveries: 0, restarts: 0, quotaWaitMs: fresh.quotaWaitMs + waiting, activeMs: activeAdoptedMs(fresh, now),
        tokens: fresh.tokens, costUsd: fresh.costUsd,
      });
      this.adopted.delete(fresh.sessionId);
    }, 'immediate');
    this.tracked.delete(fresh.sessionId);
    this.event(fresh, 'ended', { outcome, iterations: fresh.turns, activeMs: activeAdoptedMs(fresh, now), why, adopted: true });
    this.o.watch.invalidate();
  }

  /** Lets go of an adoption without stopping the session (`adopt` interrupted): it ends as `stopped`. */
  release(sessionId: string, why: string): void {
    const row = this.adopted.get(sessionId);
    if (row) this.end(row, 'stopped', why, this.now());
  }

  private event(row: AdoptedRow, kind: EventKind, detail: Record<string, unknown>): void {
    const e: LoopEvent = { at: new Date(this.now()).toISOString(), session: claudeSessionName({ id: row.shortId, sessionId: row.sessionId }), taskDir: claudeTaskDir(row.sessionId), taskName: row.name || row.shortId, kind, detail };
    try {
      e.id = this.o.store.events.insert(e);
    } catch { /* best effort */ }
    this.o.emit(e);
  }

  close(): void {
    this.closed = true;
  }
}
