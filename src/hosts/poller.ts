import { EventEmitter } from 'node:events';
import type { LoopEvent } from '../store/events.js';
import { lastLine, runCall, type CallResult } from './call.js';
import { nextPollDelay } from './backoff.js';
import { SharedConnection, type Caller, type ConnectionSystem } from './connection.js';
import type { HostIssue } from './issue.js';
import { LIVE_RELIST_MS } from '../claudeSessions/watch.js';
import { chooseCandidate, parseProbe, probeWords, versionNote } from './probe.js';
import { clockSkew, parseRemoteStatus, type RemoteStatus } from './remote.js';
import type { HostEntry } from './spec.js';
import { execArgv, remoteCommand, remoteLine, type RemoteProgram, type SshConfig } from './ssh.js';

/** A look at a host: the connection and the remote autodeck's start included. */
export const POLL_DEADLINE_MS = 20_000;
/** The probe runs each program it finds once (a node start each). */
export const PROBE_DEADLINE_MS = 30_000;
/** Events kept per host for the log and the detail pane. */
export const EVENTS_KEPT = 500;

/** What is known of a host now. Replaced, never changed, at each look. */
export interface HostSnapshot {
  entry: HostEntry;
  /** Undefined: the last look went through. */
  issue?: HostIssue | undefined;
  /** The newest answer, kept while the host does not answer (its loops shown stale). */
  status?: RemoteStatus | undefined;
  /** When that answer came (this side's clock). */
  answeredAt?: number | undefined;
  /** How far the host's clock is ahead of this one's. */
  skewMs: number;
  /** The remote autodeck in use, once found. */
  program?: RemoteProgram | undefined;
  version?: string | undefined;
}

/** What a look's answer comes to (pure, from the call's result). */
export type LookOutcome =
  | { ok: true; status: RemoteStatus }
  | { ok: false; issue: HostIssue; reprobe?: boolean; replaceConnection?: boolean };

/** The host's autodeck refused `--claude`: it is older than reading Claude Code's sessions over ssh. */
export function claudeRefused(r: CallResult): boolean {
  return r.code === 2 && /unknown flag --claude\b/.test(r.stderr);
}

/** Reads the result of `status --json --events-since N --modules` on the host. */
export function lookOutcome(r: CallResult, program: RemoteProgram | undefined): LookOutcome {
  const said = lastLine(r.stderr);
  if (r.timedOut) return { ok: false, issue: { kind: 'unreachable', message: `no answer in ${Math.round(r.ms / 1000)} s${said ? `: ${said}` : ''}` }, replaceConnection: true };
  if (r.code === null) return { ok: false, issue: { kind: 'unreachable', message: said || 'ssh did not run' } };
  // ssh's own failures (connection, authentication, host key) exit 255
  if (r.code === 255) return { ok: false, issue: { kind: 'unreachable', message: said || 'ssh lost the connection (exit 255)' } };
  // the program found before is gone (uninstalled, another node version)
  if (r.code === 126 || r.code === 127) return { ok: false, issue: { kind: 'no-autodeck', message: said || `${program?.path ?? 'autodeck'} is gone` }, reprobe: true };
  if (r.code === 2 && /unknown (flag|option)|events-since/i.test(r.stderr)) {
    return { ok: false, issue: { kind: 'too-old', message: `its autodeck cannot answer a dashboard (${said}): update it there` }, reprobe: true };
  }
  if (r.code !== 0) return { ok: false, issue: { kind: 'error', message: said || `its autodeck exited with ${r.code}` } };
  const parsed = parseRemoteStatus(r.stdout);
  if (!parsed.ok) return { ok: false, issue: { kind: 'too-old', message: parsed.message }, reprobe: true };
  return { ok: true, status: parsed.value };
}

export interface PollerOptions {
  ssh: SshConfig;
  /** The wait between two looks when all is well. */
  baseMs: number;
  localVersion: string;
  call?: Caller;
  now?: () => number;
  system?: ConnectionSystem;
  /** A look's deadline; default POLL_DEADLINE_MS. */
  deadlineMs?: number;
}

/**
 * Reads one host, over and over: one ssh call per look (the remote autodeck's own
 * `status --json` with the events since the last look and the modules), none while another
 * is under way, each with its deadline, the next one later when the host is slow or
 * failing. Never waits on anything but its own timer: a host that hangs holds neither the
 * dashboard nor the other hosts.
 */
export class HostPoller extends EventEmitter<{ change: []; events: [LoopEvent[]]; note: [string] }> {
  private snap: HostSnapshot;
  private readonly call: Caller;
  private readonly now: () => number;
  readonly connection: SharedConnection;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private again = false;
  private closed = false;
  private failures = 0;
  private lastEventId = 0;
  private readonly abort = new AbortController();
  private readonly events: LoopEvent[] = [];
  /** Whether the host's autodeck is asked for Claude Code's sessions there (one too old to know is not, after its first refusal). */
  private claudeAsk = true;
  /** The host's token for its Claude Code sessions as last listed, and when they were listed. */
  private claudeToken: string | undefined;
  private claudeListedAt = 0;

  constructor(readonly entry: HostEntry, private readonly opts: PollerOptions) {
    super();
    this.call = opts.call ?? ((argv, o) => runCall(argv, { ...o, signal: this.abort.signal }));
    this.now = opts.now ?? Date.now;
    this.connection = new SharedConnection(opts.ssh, entry, this.call, opts.system);
    this.snap = { entry, issue: { kind: 'connecting', message: 'connecting…' }, skewMs: 0 };
  }

  get snapshot(): HostSnapshot {
    return this.snap;
  }

  /** The events read from this host, oldest first (each with its `host`). */
  recentEvents(): readonly LoopEvent[] {
    return this.events;
  }

  /** The first look now; the next ones on their own. */
  start(): void {
    void this.look();
  }

  /** Looks again soon (after an action here): now if idle, else right after the look under way. */
  lookSoon(): void {
    if (this.closed) return;
    if (this.busy) this.again = true;
    else void this.look();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.abort.abort();
  }

  /**
   * Runs the remote autodeck with `args` (an action: start, stop, log, history), with its
   * deadline. Finds it first when not yet known.
   */
  async run(args: readonly string[], deadlineMs: number): Promise<CallResult> {
    const program = this.snap.program ?? (await this.findProgram());
    if (!program) return { code: null, stdout: '', stderr: this.snap.issue?.message ?? 'autodeck was not found there', timedOut: false, ms: 0 };
    return this.call(execArgv(this.opts.ssh, this.entry, remoteCommand(program, args)), { deadlineMs });
  }

  private set(patch: Partial<HostSnapshot>): void {
    this.snap = { ...this.snap, ...patch };
    this.emit('change');
  }

  private async look(): Promise<void> {
    if (this.closed || this.busy) return;
    this.busy = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const asked = this.now();
    let took = 0;
    try {
      const program = this.snap.program ?? (await this.findProgram());
      if (!program || this.closed) return;
      const args = ['status', '--json', '--events-since', String(this.lastEventId), '--modules', ...this.claudeArgs(), ...(this.entry.roots ?? []).flatMap((r) => ['--root', r])];
      const started = this.now();
      const r = await this.call(execArgv(this.opts.ssh, this.entry, remoteCommand(program, args)), { deadlineMs: this.opts.deadlineMs ?? POLL_DEADLINE_MS });
      took = r.ms;
      if (this.closed) return;
      if (this.claudeAsk && claudeRefused(r)) {
        // an autodeck from before Claude Code's sessions were read over ssh: its loops still are
        this.claudeAsk = false;
        this.emit('note', `${this.entry.label}: its autodeck does not list Claude Code's sessions there; update it to see them`);
        this.again = true;
        return;
      }
      const outcome = lookOutcome(r, program);
      if (outcome.ok) this.took(outcome.status, started, this.now());
      else await this.failed(outcome);
    } finally {
      this.busy = false;
      if (!this.closed) {
        if (this.again) {
          this.again = false;
          this.timer = setTimeout(() => void this.look(), 0);
        } else {
          this.timer = setTimeout(() => void this.look(), nextPollDelay({ baseMs: this.opts.baseMs, failures: this.failures, lastCallMs: took || this.now() - asked }));
        }
      }
    }
  }

  /**
   * `--claude`, with the token of the last listing unless it is time to list again anyway
   * (a running session is listed at least once a minute, as here).
   */
  private claudeArgs(): string[] {
    if (!this.claudeAsk) return [];
    const live = (this.snap.status?.claude?.sessions ?? []).some((s) => s.session.pid !== undefined || s.session.status !== undefined);
    const due = live && this.now() - this.claudeListedAt >= LIVE_RELIST_MS;
    return ['--claude', ...(this.claudeToken && !due ? ['--claude-since', this.claudeToken] : [])];
  }

  private took(given: RemoteStatus, asked: number, answered: number): void {
    this.failures = 0;
    let status = given;
    const claude = given.claude;
    if (claude) {
      this.claudeToken = claude.token || undefined;
      const before = this.snap.status?.claude;
      // unchanged there: the sessions of the look before stand; so do they when the listing
      // there failed (its note says why): a row never goes while Claude Code may still list it
      if (claude.unchanged) status = { ...given, claude: before ? { ...before, token: claude.token, unchanged: false } : undefined };
      else if (claude.note && before) status = { ...given, claude: { ...before, note: claude.note, token: claude.token, unchanged: false } };
      else this.claudeListedAt = answered;
      if (claude.unchanged && !before) this.claudeToken = undefined;
    }
    const fresh = status.lastEventId < this.lastEventId ? status.events : status.events.filter((e) => (e.id ?? 0) > this.lastEventId);
    this.lastEventId = status.lastEventId;
    if (fresh.length > 0) {
      const tagged = fresh.map((e) => ({ ...e, host: this.entry.label }));
      this.events.push(...tagged);
      if (this.events.length > EVENTS_KEPT) this.events.splice(0, this.events.length - EVENTS_KEPT);
      this.emit('events', tagged);
    }
    this.set({ issue: undefined, status, answeredAt: answered, skewMs: clockSkew(status.now, asked, answered) });
    void this.connection.learnMaster().catch(() => { /* asked again after the next look */ });
  }

  private async failed(outcome: Extract<LookOutcome, { ok: false }>): Promise<void> {
    this.failures++;
    if (outcome.reprobe) this.snap = { ...this.snap, program: undefined };
    this.set({ issue: outcome.issue });
    if (outcome.replaceConnection && !this.closed) await this.connection.replace();
  }

  /** The probe; on failure the snapshot says why and undefined comes back. */
  private async findProgram(): Promise<RemoteProgram | undefined> {
    const r = await this.call(execArgv(this.opts.ssh, this.entry, remoteLine(probeWords(this.entry.autodeck))), { deadlineMs: PROBE_DEADLINE_MS });
    if (this.closed) return undefined;
    if (r.timedOut || r.code === null || r.code === 255) {
      await this.failed(lookOutcome(r, undefined) as Extract<LookOutcome, { ok: false }>);
      return undefined;
    }
    if (r.code !== 0) {
      this.failures++;
      this.set({ issue: { kind: 'error', message: lastLine(r.stderr) || `the search for autodeck there exited with ${r.code}` } });
      return undefined;
    }
    const choice = chooseCandidate(parseProbe(r.stdout), this.entry.autodeck);
    if (!choice.ok) {
      this.failures++;
      this.set({ issue: { kind: choice.kind, message: choice.message } });
      return undefined;
    }
    this.snap = { ...this.snap, program: choice.program, version: choice.version };
    const note = versionNote(choice.version, this.opts.localVersion);
    if (note) this.emit('note', `${this.entry.label}: ${note}`);
    return choice.program;
  }
}
