import type { Profile } from '../agents/profiles.js';
import { classifyScreen } from '../agents/classify.js';
import type { Signal } from '../protocol/signal.js';
import type { SessionExit } from '../sessions/session.js';
import type { LoopRow } from '../store/loops.js';
import type { AgentProcess } from './agentProcess.js';
import type { LoopStopping } from './loopStopping.js';
import { VerifyGate, type VerifyConfig, type VerifyGateHost } from './verifyGate.js';

/** What the loop lends its verify, beyond the gate's own needs. */
export interface LoopVerifyHost extends Pick<VerifyGateHost, 'enter' | 'row' | 'patch' | 'event' | 'tx' | 'wall' | 'record' | 'later'> {
  profile: Profile;
  agent: Pick<AgentProcess, 'alive' | 'session' | 'state'>;
  stopper: Pick<LoopStopping, 'stopSignalled'>;
  /** A person has the agent's terminal (attach mode). */
  attached(): boolean;
  /** The watchdog's note of progress: the time spent verifying is no stall. */
  progressed(): void;
  finish(): void;
  restartAfterCrash(exit: SessionExit, why: string): void;
}

/**
 * The verify before `complete`, wired into its loop: a pass or the last failure lets the
 * agent's `(stop)` stand; any other failure sends the agent back to work.
 */
export function loopVerifyGate(host: LoopVerifyHost, config: VerifyConfig | undefined): VerifyGate {
  const { agent } = host;
  /** The agent's `(stop)` stands: its verify passed, or failed as often as it may. The loop ends once the agent has left. */
  const stopAtSignal = (signal: Signal, verifyFailed = false): void => {
    host.stopper.stopSignalled(signal, { verifyFailed });
    if (!agent.alive) host.finish();
  };
  /** A failed verify sends the agent back to work: told at its prompt, or started again if it is gone. */
  const afterFailedVerify = (): void => {
    host.patch({ status: 'running' });
    host.progressed();
    if (agent.alive) gate.tell();
    else host.restartAfterCrash({ exitCode: 0 }, 'the verify failed and the agent had exited');
  };
  const gate: VerifyGate = new VerifyGate({
    enter: host.enter, row: host.row, patch: host.patch, event: host.event, tx: host.tx, wall: host.wall, record: host.record,
    passed: (signal) => stopAtSignal(signal),
    retry: () => afterFailedVerify(),
    giveUp: (signal) => stopAtSignal(signal, true),
    agentAtHand: () => (agent.alive && !host.attached() ? agent.session : undefined),
    agentIdle: (session) => agent.state() === 'idle' || classifyScreen(host.profile, session.screen()).kind === 'idle',
    later: host.later,
  }, config);
  return gate;
}

/** The `(stop)` the row holds, verified again by a new owner (the first owner's verify died with it). */
export function verifyAgain(gate: VerifyGate, r: LoopRow): void {
  gate.start({ step: r.step, result: r.result, next: r.next, checkpoint: r.checkpoint, timestamp: r.lastSignalAt ?? r.startedAt } as Signal);
}
