import type { Session, SessionExit, SessionFactory } from '../sessions/session.js';
import type { Store } from '../store/index.js';
import type { EventKind } from '../store/events.js';
import type { AgentState } from '../store/agentState.js';
import { newestAgentState } from './agentReports.js';
import type { LoopRow } from '../store/loops.js';
import type { ApprovalRequest } from '../policy/rules.js';
import { waitingRequest } from './approvals.js';
import type { Clock } from './clock.js';
import { within, type LoopEntry } from './loopBoundary.js';
import { AgentLeftovers } from './leftovers.js';

/** How long processes the agent left behind get after SIGTERM, before SIGKILL. */
const LEFTOVER_GRACE_MS = 3000;

/** What a loop's agent process needs of its loop. */
export interface AgentProcessHost {
  enter: LoopEntry;
  spawn: SessionFactory;
  store: Store;
  clock: Clock;
  row(): LoopRow;
  patch(patch: Partial<LoopRow>): void;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  /** The agent of this loop exited (or could not be started: exit code 127). */
  exited(exit: SessionExit): void;
}

/** How a loop's agent is started: its argv, folder and environment. */
export interface AgentCommand {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

/**
 * A loop's agent process: starting it (or taking one that runs already), its exit, the
 * signals sent to it, and what its own hooks reported of this run of it.
 */
export class AgentProcess {
  session: Session | undefined;
  /** When the current agent session was started or re-attached (wall time, compared with the hooks' times). */
  private since = 0;
  /** The processes the agent started: none may outlive it. */
  private leftovers = new AgentLeftovers();

  constructor(private readonly command: AgentCommand, private readonly host: AgentProcessHost) {}

  get alive(): boolean {
    return this.session !== undefined && !this.session.exited;
  }

  /** The agent's pid while it runs. */
  get pid(): number | undefined {
    return this.session && !this.session.exited ? this.session.pid : undefined;
  }

  /** Starts the agent; one that cannot be started is a crash (exit code 127), said in the log. */
  spawn(extraArgs: readonly string[] = []): void {
    const [program] = this.command.argv;
    let session: Session;
    try {
      session = this.host.spawn({
        name: this.host.row().session, argv: [...this.command.argv, ...extraArgs], cwd: this.command.cwd, env: this.command.env,
      });
    } catch (err) {
      this.host.event('error', { where: 'spawn', program, message: spawnFailure(err) });
      this.host.exited({ exitCode: 127 });
      return;
    }
    this.adopt(session);
  }

  /** Watches an agent session: this loop's from now on. */
  adopt(session: Session): void {
    this.session = session;
    this.since = this.host.clock.wall();
    const row = this.host.row();
    this.host.patch({ status: row.status === 'starting' ? 'running' : row.status, agentPid: session.pid });
    this.leftovers = new AgentLeftovers();
    session.onExit((exit) => this.host.enter('agent exit', () => {
      this.endLeftovers(this.leftovers);
      if (this.session === session) this.host.exited(exit);
    }));
  }

  /** Remembers the processes the agent runs now (at each heartbeat): a helper that detaches itself is known. */
  noteProcesses(): void {
    if (this.alive) this.leftovers.note(this.session!.pid);
  }

  /** The agent exited: what it started and left running ends with it (SIGTERM, then SIGKILL). */
  private endLeftovers(leftovers: AgentLeftovers): void {
    const ended = leftovers.end('SIGTERM');
    if (ended.length === 0) return;
    this.host.event('agent_exit', { action: 'SIGTERM', why: 'processes the agent started outlived it', processes: ended });
    setTimeout(() => { if (leftovers.anyAlive) leftovers.end('SIGKILL'); }, LEFTOVER_GRACE_MS).unref();
  }

  /** The session let go of: its exit is no crash, the exit listener ignores a session no longer ours. */
  release(): Session | undefined {
    const session = this.session;
    this.session = undefined;
    return session;
  }

  /**
   * Ends the agent and starts it again at once with `extraArgs` (the hung ladder's restart
   * rung): it counts as a restart, said in a `restart` event with `detail`.
   */
  restart(extraArgs: readonly string[], detail: Record<string, unknown>, tx: (fn: () => void) => void): void {
    const old = this.release();
    tx(() => {
      const row = this.host.row();
      this.host.patch({ restartCount: row.restartCount + 1, restartsTotal: row.restartsTotal + 1, status: 'starting', agentPid: null, stallCount: 0, lastCaptureHash: '' });
      this.host.event('restart', { ...detail, attempt: this.host.row().restartCount, inMs: 0, argv: extraArgs });
    });
    old?.dispose();
    this.spawn(extraArgs);
  }

  kill(signal: NodeJS.Signals): void {
    this.session?.kill(signal);
  }

  /** What the current agent process last said of itself (its hooks, its OSC 7501 status): older reports are of a previous one. */
  state(): AgentState | undefined {
    return within('hook report', () => newestAgentState(this.host.store.agentState.get(this.host.row().session), this.session?.programStatus?.(), this.since));
  }

  /** What the agent's PermissionRequest hook said it asks for, while it waits. */
  request(): ApprovalRequest | undefined {
    return within('hook report', () => waitingRequest(this.host.store.agentState.get(this.host.row().session), this.since));
  }

  /** The same, as of the supervisor's tick (one look at the database per tick for all loops). */
  recentRequest(): ApprovalRequest | undefined {
    return within('hook report', () => waitingRequest(this.host.store.agentState.recent(this.host.row().session), this.since));
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
