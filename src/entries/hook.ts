import { hookMain } from '../commands/hook.js';
import { quietOnEpipe, settle } from '../cliExit.js';

/**
 * `autodeck hook ...` as the bin starts it: this module is bundled alone (dist/cli/hook.js),
 * so Claude Code's Stop hook loads one file and the database driver, nothing of the rest.
 */
export function hookEntry(args: string[]): void {
  quietOnEpipe();
  settle(hookMain(args));
}
