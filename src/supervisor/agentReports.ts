import { stateOfProgramStatus } from '../agents/programStatus.js';
import type { ReportedStatus } from '../sessions/session.js';
import type { AgentState, AgentStateRow } from '../store/agentState.js';

/**
 * What the agent itself last said it is doing, of the current agent process: its hooks'
 * word (written by another process, with its time) or its OSC 7501 status (read from the
 * PTY), whichever came last; reports from before `since` are of a previous process.
 * Either is the agent's own word and comes before the screen. Pure.
 */
export function newestAgentState(hook: AgentStateRow | undefined, status: ReportedStatus | undefined, since: number): AgentState | undefined {
  const hookAt = hook ? Date.parse(hook.at) : NaN;
  const fromHook = hook && hookAt >= since ? hook.state : undefined;
  const fromStatus = status && status.at >= since ? stateOfProgramStatus(status.status) : undefined;
  if (fromStatus === undefined) return fromHook;
  if (fromHook === undefined) return fromStatus;
  // a session's end or a compaction only the hooks report: those stand until the status moves on
  return status!.at >= hookAt ? fromStatus : fromHook;
}
