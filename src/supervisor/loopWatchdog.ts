import type { LoopRow } from '../store/loops.js';
import type { EventKind } from '../store/events.js';
import type { StopReason } from '../protocol/stopFile.js';
import type { Session } from '../sessions/session.js';
import { Watchdog } from './watchdog.js';
import type { AgentProcess } from './agentProcess.js';
import type { LoopDeps, LoopSpec } from './loopSpec.js';

/** What of the loop its watchdog reaches: the row, the agent, and the ways to stop, fail, restart. */
export interface LoopWatchdogHost {
  taskDir: string;
  row(): LoopRow;
  patch(p: Partial<LoopRow>): void;
  patchLater(p: Partial<LoopRow>): void;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  session(): Session | undefined;
  agent: AgentProcess;
  requestStop(reason: StopReason): void;
  fail(message: string, code: string): void;
  restartHung(extraArgs: readonly string[], detail: Record<string, unknown>): void;
  later(ms: number, fn: () => void): void;
  /** A failed verify's report, typed once instead of the profile's continuation. */
  continuation(): string | undefined;
}

/** The loop's watchdog (watchdog.ts), on the loop's clocks, agent and settings. */
export function loopWatchdog(host: LoopWatchdogHost, spec: LoopSpec, deps: LoopDeps): Watchdog {
  const { agent } = host;
  return new Watchdog({
    taskDir: host.taskDir,
    now: () => deps.clock.mono(),
    wall: () => deps.clock.wall(),
    session: host.session,
    row: host.row,
    patch: host.patch,
    patchLater: host.patchLater,
    event: host.event,
    requestStop: host.requestStop,
    fail: host.fail,
    agentPid: () => agent.pid,
    restartAgent: host.restartHung,
    later: host.later,
    agentState: () => agent.state(),
    agentRequest: () => agent.request(),
    recentAgentRequest: () => agent.recentRequest(),
    continuation: host.continuation,
    agentRecord: spec.agentFiles ? () => spec.agentFiles!.record(agent.pid) : undefined,
  }, spec.profile, spec.limits, spec.transcriptDir, spec.approval);
}
