import type { AgentProfile } from '../config/schema.js';

/**
 * How an interactive agent is asked to leave once its loop is over: a command
 * typed at its prompt (Enter sent as its own write), or end of input for a generic one.
 */
export type ExitCommand = { kind: 'command'; text: string } | { kind: 'eof' };

const EXIT_COMMANDS: Record<AgentProfile, ExitCommand> = {
  claude: { kind: 'command', text: '/exit' },
  codex: { kind: 'command', text: '/quit' },
  gemini: { kind: 'command', text: '/quit' },
  aider: { kind: 'command', text: '/exit' },
  generic: { kind: 'eof' },
};

export function exitCommand(profile: AgentProfile): ExitCommand {
  return EXIT_COMMANDS[profile];
}

/** Ctrl-D: end of input for a program reading its terminal in canonical mode. */
export const EOF_KEY = '\x04';
/** A composer swallows an Enter that arrives in the same write as the text. */
export const ENTER_DELAY_MS = 100;
