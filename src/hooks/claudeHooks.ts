/**
 * Claude Code's side of the hook exchange (CLAUDE-CODE.md "Hooks"), for a simulated
 * interactive agent that wants to drive `autodeck hook stop` as Claude Code does. Pure.
 */

export interface StopEventInput {
  sessionId: string;
  transcriptPath: string;
  cwd: string;
  /** False on the first Stop of a turn chain, true after a block. */
  stopHookActive: boolean;
  lastAssistantMessage?: string;
}

/** The JSON Claude Code writes on a Stop hook's stdin. */
export function stopEvent(e: StopEventInput): Record<string, unknown> {
  return {
    session_id: e.sessionId, transcript_path: e.transcriptPath, cwd: e.cwd, prompt_id: '', permission_mode: 'default',
    hook_event_name: 'Stop', stop_hook_active: e.stopHookActive, last_assistant_message: e.lastAssistantMessage ?? '',
    background_tasks: [], session_crons: [],
  };
}

export type StopHookResult = { block: true; reason: string } | { block: false };

/**
 * How Claude Code reads a Stop hook's answer: exit 2 blocks with stderr as the reason;
 * exit 0 with `{"decision":"block","reason":…}` on stdout blocks with that reason (the agent
 * gets `Stop hook feedback:\n<reason>` as its next message); anything else lets it stop.
 */
export function readStopHookResult(exitCode: number, stdout: string, stderr = ''): StopHookResult {
  if (exitCode === 2) return { block: true, reason: stderr.trim() };
  if (exitCode !== 0) return { block: false };
  try {
    const o = JSON.parse(stdout) as { decision?: unknown; reason?: unknown };
    if (o && o.decision === 'block') return { block: true, reason: typeof o.reason === 'string' ? o.reason : '' };
  } catch { /* plain output: no decision */ }
  return { block: false };
}

/** The user message Claude Code starts the next turn with after a block. */
export function stopFeedbackMessage(reason: string): string {
  return `Stop hook feedback:\n${reason}`;
}

/** A `{"type": "command", "command": …}` entry of a settings file (the object itself, so it can be edited). */
export interface CommandHook {
  type: 'command';
  command: string;
  [key: string]: unknown;
}

/** The command entries of one event's list (`[{matcher?, hooks: [...]}]`); odd shapes are skipped. */
export function commandHooks(list: unknown): CommandHook[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((group: unknown) => {
    const inner = (group as { hooks?: unknown } | null)?.hooks;
    if (!Array.isArray(inner)) return [];
    return inner.filter((h: unknown): h is CommandHook => {
      const entry = h as { type?: unknown; command?: unknown } | null;
      return entry?.type === 'command' && typeof entry.command === 'string';
    });
  });
}

/** The commands registered for `event` in a parsed `.claude/settings.json`. */
export function registeredCommands(settings: unknown, event: string): string[] {
  return commandHooks((settings as { hooks?: Record<string, unknown> } | null)?.hooks?.[event]).map((h) => h.command);
}
