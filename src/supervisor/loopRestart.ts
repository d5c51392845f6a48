import type { SessionExit } from '../sessions/session.js';
import type { EventKind } from '../store/events.js';
import type { LoopRow } from '../store/loops.js';
import type { AgentProcess } from './agentProcess.js';
import { restartBackoffMs } from './limits.js';

/** What restarting its agent needs of the loop. */
export interface RestartHost {
  row(): LoopRow;
  patch(patch: Partial<LoopRow>): void;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  /** The loop's row writes in one transaction. */
  tx(fn: () => void): void;
  /** The store's own transaction (the hung restart's counters and event). */
  storeTx(fn: () => void): void;
  later(ms: number, fn: () => void): void;
  agent: Pick<AgentProcess, 'spawn' | 'restart'>;
  restartLimit: number;
  /** Ended, or stopping: no new agent then. */
  settled(): boolean;
  fail(): void;
}

/** Starting a loop's agent again: after a crash (with backoff, up to the limit), or on the hung-agent ladder. */
export class LoopRestarts {
  constructor(private readonly host: RestartHost) {}

  /** A crash, or an agent gone when its failed verify sends it back to work: restart with backoff unless the limit is reached. */
  afterCrash(exit: SessionExit, why?: string): void {
    const host = this.host;
    const row = host.row();
    if (row.restartCount >= host.restartLimit) {
      host.fail();
      return;
    }
    const attempt = row.restartCount + 1;
    const delay = restartBackoffMs(attempt);
    host.tx(() => {
      host.patch({ restartCount: attempt, restartsTotal: host.row().restartsTotal + 1, status: 'starting', agentPid: null });
      host.event('restart', { attempt, limit: host.restartLimit, inMs: delay, exitCode: exit.exitCode, ...(why ? { why } : {}) });
    });
    host.later(delay, () => {
      if (!host.settled()) host.agent.spawn();
    });
  }

  /**
   * The hung-agent ladder's restart rung: the agent is ended and started again at once,
   * with the profile's resume flag when there is a session to resume (`--resume <id>` for
   * Claude Code). It counts as a restart.
   */
  hung(extraArgs: readonly string[], detail: Record<string, unknown>): void {
    if (this.host.settled()) return;
    this.host.agent.restart(extraArgs, { ...detail, limit: this.host.restartLimit }, (fn) => this.host.storeTx(fn));
  }
}
