import type { AgentState } from '../store/agentState.js';

/** The hook events `autodeck hook state` is registered for. */
export const STATE_EVENTS = ['UserPromptSubmit', 'PreToolUse', 'Notification', 'PreCompact', 'SessionStart', 'SessionEnd'] as const;

/**
 * The events autodeck gives the sessions it starts (through --settings): besides the
 * above, the ones that say at once what a notification says late or not at all — the
 * permission dialog on screen (PermissionRequest; Claude Code's permission Notification
 * may come seconds later), a question (Elicitation), a turn that ended (Stop, StopFailure),
 * a tool done (PostToolUse, PostToolUseFailure), a compaction done (PostCompact).
 * Checked against the event names in Claude Code 2.1.197.
 */
export const INJECTED_STATE_EVENTS = [
  ...STATE_EVENTS, 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'Elicitation', 'PostCompact', 'Stop', 'StopFailure',
] as const;

export interface ReportedState {
  state: AgentState;
  /** The few fields worth keeping: which notification, tool, source or reason. */
  detail: Record<string, unknown>;
}

const KEPT = ['notification_type', 'tool_name', 'source', 'reason', 'trigger', 'error'] as const;

/**
 * What a hook event says the agent is doing. Pure. `Notification` carries
 * `notification_type`; without it (an older Claude Code), its message text tells.
 * Events that say nothing about the state (a SessionStart that is not a compaction, an
 * unknown notification, an unknown event) give undefined.
 */
export function stateOfEvent(event: Record<string, unknown>): ReportedState | undefined {
  const state = stateOf(event);
  if (!state) return undefined;
  const detail: Record<string, unknown> = {};
  for (const k of KEPT) if (typeof event[k] === 'string') detail[k] = (event[k] as string).slice(0, 4000);
  // What a permission asks for (the approval policy reads it): the command or path, never file contents.
  if (event.hook_event_name === 'PermissionRequest' && typeof event.tool_input === 'object' && event.tool_input !== null) {
    const input = event.tool_input as Record<string, unknown>;
    const kept: Record<string, string> = {};
    for (const k of TOOL_INPUT_KEPT) if (typeof input[k] === 'string') kept[k] = (input[k] as string).slice(0, 4000);
    detail.tool_input = kept;
  }
  return { state, detail };
}

const TOOL_INPUT_KEPT = ['command', 'file_path', 'notebook_path', 'path', 'url'] as const;

/**
 * The detail to store for a new report: a permission Notification that follows a
 * PermissionRequest keeps the request's tool and input (it names neither).
 */
export function carriedDetail(reported: ReportedState, previous: { state: string; detail: Record<string, unknown> } | undefined): Record<string, unknown> {
  if (reported.state !== 'waiting' || reported.detail.tool_name !== undefined || previous?.state !== 'waiting') return reported.detail;
  const { tool_name, tool_input } = previous.detail;
  return tool_name === undefined ? reported.detail : { ...reported.detail, tool_name, tool_input };
}

function stateOf(event: Record<string, unknown>): AgentState | undefined {
  switch (event.hook_event_name) {
    case 'UserPromptSubmit':
    case 'PreToolUse':
    case 'PostToolUse':
      return 'busy';
    case 'PostToolUseFailure':
      return 'busy';
    case 'PermissionRequest':
    case 'Elicitation':
      return 'waiting';
    case 'PostCompact':
      return 'compacted';
    case 'Stop':
    case 'StopFailure':
      // the turn is over: the agent waits at its prompt (a Stop hook's block starts a new
      // turn, whose first tool call says busy again)
      return 'idle';
    case 'Notification':
      switch (notificationType(event)) {
        case 'permission_prompt':
        case 'elicitation_dialog':
          return 'waiting';
        case 'idle_prompt':
          return 'idle';
        default:
          return undefined;
      }
    case 'PreCompact':
      return 'compacting';
    case 'SessionStart':
      return event.source === 'compact' ? 'compacted' : undefined;
    case 'SessionEnd':
      return 'exited';
    default:
      return undefined;
  }
}

/** Claude Code's own messages for each kind (observed in 2.1.x). */
function notificationType(event: Record<string, unknown>): string | undefined {
  if (typeof event.notification_type === 'string' && event.notification_type !== '') return event.notification_type;
  const message = typeof event.message === 'string' ? event.message : '';
  if (/needs your permission/i.test(message)) return 'permission_prompt';
  if (/waiting for your input/i.test(message)) return 'idle_prompt';
  if (/needs your input/i.test(message)) return 'elicitation_dialog';
  return undefined;
}
