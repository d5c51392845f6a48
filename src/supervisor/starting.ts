import type { Classification } from '../agents/classify.js';
import type { AgentState } from '../store/agentState.js';

/**
 * An agent started with a prompt on its command line (`claude "/autodeck-auto <dir>"`) may
 * draw its empty input box for a moment before it takes that prompt (Claude Code 2.1.332
 * does, for a second or more on a loaded machine): until it has been seen at work once, an
 * idle screen is an agent still starting, not one to continue. Pure.
 */

/** Whether the command ends with a prompt: a last word that is no flag, after a word that is no flag either. */
export function hasStartPrompt(argv: readonly string[]): boolean {
  if (argv.length < 2) return false;
  const last = argv[argv.length - 1]!;
  const before = argv[argv.length - 2]!;
  return !last.startsWith('-') && (argv.length === 2 || !before.startsWith('-'));
}

/** Whether this beat shows the agent at work (or waiting on a person): it has taken its prompt. */
export function atWork(kind: Classification['kind'], reported: AgentState | undefined): boolean {
  return kind !== 'idle' && kind !== 'unknown' || reported === 'busy' || reported === 'waiting';
}
