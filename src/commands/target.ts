import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError } from './context.js';

/** The real path of a task folder named on the command line (loops are keyed by it). */
export function taskDirArg(args: string[], cwd: string, command: string): string {
  const given = args[0];
  if (!given) throw new CliError(`autodeck ${command}: name a task module folder`);
  const abs = resolve(cwd, given);
  try {
    return realpathSync(abs);
  } catch {
    return abs; // a folder gone since its loop started can still be looked up by name
  }
}
