import type { Classification } from '../agents/classify.js';
import type { AgentRecord } from '../agents/agentRecord.js';
import type { AgentState } from '../store/agentState.js';
import type { ApprovalRequest } from '../policy/rules.js';
import { QuotaSightings } from './quotaSightings.js';

/** What the watchdog reads of the agent's own reports: its hooks, and its record (session file). */
export interface AgentReports {
  agentState?(): AgentState | undefined;
  agentRequest?(): ApprovalRequest | undefined;
  agentRecord?(): AgentRecord | undefined;
}

/**
 * What the agent says of itself, before its screen: its record (Codex's rollout, Gemini
 * CLI's session file) or else its hooks, judged against when autodeck last typed to it;
 * and when each quota message was first seen, by the record or on screen.
 */
export class AgentRecordLook {
  /** When autodeck last typed a continuation (wall clock): the agent's record from before it is stale. */
  private typedAt = -Infinity;
  /** When each quota message was first seen: its clock time is the next one after that. */
  private readonly sightings = new QuotaSightings();
  /** The quota message the wait under way began on. */
  private waitedOn: Classification | undefined;

  constructor(private readonly reports: AgentReports) {}

  /** autodeck typed to the agent at this wall time. */
  typed(wall: number): void {
    this.typedAt = wall;
  }

  /**
   * What the agent's own files say, unless it was written before autodeck last typed to it:
   * a turn's end recorded before a continuation is history once the continuation is sent
   * (the CLI writes its next turn's start a moment later than its screen shows it).
   */
  fresh(): AgentRecord | undefined {
    const record = this.reports.agentRecord?.();
    if (!record || record.at === undefined || record.at >= this.typedAt) return record;
    return { state: undefined };
  }

  /**
   * The state the hooks report, only for an agent without a record: one that keeps its own
   * record (Codex, Gemini CLI) is read by it, not by an OSC 7501 status it may write too —
   * the record says when it was written, so a turn's end from before a continuation is known
   * as history.
   */
  hookState(): AgentState | undefined {
    return this.reports.agentRecord ? undefined : this.reports.agentState?.();
  }

  /** The record says the agent is busy, and no hook says otherwise. */
  recordBusy(hookState: AgentState | undefined, record: AgentRecord | undefined): boolean {
    return hookState === undefined && record?.state === 'busy';
  }

  /** Claude Code's PermissionRequest hook may yet report the prompt on screen: the agent has no record and its hook says busy. */
  hookPending(): boolean {
    return !this.reports.agentRecord && this.reports.agentRequest !== undefined && this.reports.agentState?.() === 'busy';
  }

  /** When this quota message was first seen: the record's own time, else its first sighting on screen. */
  quotaSeenAt(c: Classification, record: AgentRecord | undefined, wall: number): number {
    return record?.quota?.atMs ?? this.sightings.seen(c, wall);
  }

  /** A limit already waited out, still on screen until the agent takes the continuation: history. */
  wasWaitedOut(c: Classification): boolean {
    return this.sightings.wasWaitedOut(c);
  }

  /** A quota wait began on this message. */
  waitBegan(c: Classification): void {
    this.waitedOn = c;
  }

  /** The wait under way ran to its reset: its message is history from now on. */
  waitRanOut(): void {
    if (this.waitedOn) this.sightings.waitedOut(this.waitedOn);
  }
}
