import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError, EXIT } from './context.js';
import { isTaskModuleDir, MODULE_MARKERS } from '../protocol/modules.js';
import type { Store } from '../store/index.js';

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

/**
 * `taskDir` (as typed: `given`) is a task module, or one the state database knows of (a
 * loop, a run or an event: its folder may be gone since). Anything else is a usage error
 * that says which: a path that does not exist, or a folder that is no task module.
 */
export function requireKnownTaskDir(store: Store, taskDir: string, given: string, command: string): void {
  if (isTaskModuleDir(taskDir)) return;
  if (store.loops.getByTaskDir(taskDir) || store.runs.count(taskDir) > 0 || store.events.list(1, taskDir).length > 0) return;
  const what = existsSync(taskDir) ? `is not a task module (it has none of ${MODULE_MARKERS.join(', ')})` : 'does not exist';
  throw new CliError(`autodeck ${command}: ${given} ${what}, and no loop has run there; autodeck status lists the loops`, EXIT.usage);
}
