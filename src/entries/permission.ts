import { permissionHook } from '../claudeSessions/permissionHookCli.js';
import { quietOnEpipe, settle } from '../cliExit.js';
import { defaultDbPath } from '../paths.js';

/**
 * `autodeck hook permission` as the bin starts it: bundled alone (dist/cli/permission.cjs),
 * so the Stop and state hooks, which run on every turn, keep their own small bundle.
 */
export function permissionEntry(): void {
  quietOnEpipe();
  settle(permissionHook({ env: process.env, stdin: process.stdin, stdout: process.stdout, dbPath: () => defaultDbPath(process.env) }));
}
