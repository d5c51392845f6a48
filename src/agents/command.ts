import { accessSync, constants, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import type { ParseEntry } from 'shell-quote';
// Loaded on first use: `status` and the hooks resolve settings on every call and must start fast.
import { shellQuote, which } from '../lazy.js';

/** A one-line problem with an agent command string. */
export class AgentCommandError extends Error {
  override name = 'AgentCommandError';
}

const NO_SHELL = 'the agent is started without a shell; quote it to pass it literally';

/**
 * Splits `--agent "node sim.js {taskDir}"` into argv words with shell-like quoting.
 * Nothing is expanded: `$VAR` stays literal, because no shell ever runs the command.
 * Operators, globs and comments would mean something to a shell but not here, so they
 * are refused rather than passed on as surprising literal words.
 */
export function splitAgentCommand(s: string): string[] {
  let entries: ParseEntry[];
  try {
    // Returning the `$`-prefixed name puts `$VAR` back as it was written.
    entries = shellQuote().parse(s, (name: string) => `$${name}`);
  } catch (e) {
    throw new AgentCommandError(`cannot split the agent command: ${(e as Error).message}`);
  }
  const words: string[] = [];
  for (const e of entries) {
    if (typeof e === 'string') words.push(e);
    else if ('comment' in e) throw new AgentCommandError(`"#" would start a comment: ${NO_SHELL}`);
    else if (e.op === 'glob') throw new AgentCommandError(`"${e.pattern}" would be a glob: ${NO_SHELL}`);
    else throw new AgentCommandError(`shell operator "${e.op}" is not allowed: ${NO_SHELL}`);
  }
  if (words.length === 0 || words[0] === '') throw new AgentCommandError('the agent command is empty');
  return words;
}

export interface AgentVars {
  taskDir: string;
  taskName: string;
  session: string;
  root: string;
}

const PLACEHOLDER = /\{(taskDir|taskName|session|root)\}/g;

/**
 * Fills `{taskDir}` `{taskName}` `{session}` `{root}` inside each element. One pass per
 * element and never re-split, so a path with spaces, quotes or `$(...)` stays one argv
 * word, and a value that happens to contain `{session}` is not expanded again.
 */
export function expandAgentArgv(template: readonly string[], vars: AgentVars): string[] {
  return template.map((el) => el.replace(PLACEHOLDER, (_, key: keyof AgentVars) => vars[key]));
}

/** A program named with a folder is a path (relative to cwd), not a PATH lookup. */
function hasDir(program: string): boolean {
  return program.includes('/') || program.includes(sep);
}

/** The executable the agent program names, or undefined when it is not installed. */
export function resolveProgram(
  program: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string | undefined {
  if (program === '') return undefined;
  if (hasDir(program)) {
    const path = resolve(cwd, program);
    try {
      accessSync(path, constants.X_OK);
      return statSync(path).isFile() ? path : undefined;
    } catch {
      return undefined;
    }
  }
  // `which` falls back to process.env.PATH for an empty path; an env without PATH finds nothing.
  if (!env.PATH) return undefined;
  return which().sync(program, { nothrow: true, path: env.PATH }) ?? undefined;
}

export function missingProgramMessage(program: string): string {
  const why = hasDir(program) ? 'not an executable file' : 'not found in PATH';
  return (
    `autodeck: agent program ${JSON.stringify(program)} is not installed (${why}); ` +
    `set the agent with --agent "PROGRAM ARGS {taskDir}", AUTODECK_AGENT or "agent" in .autodeck.json`
  );
}
