import { quickStatus } from '../commands/quickStatus.js';
import { exit, quietOnEpipe, report } from '../cliExit.js';

/**
 * `autodeck status ...` as the bin starts it (bundled alone: dist/cli/status.js). False:
 * not a call this path takes; the bin hands it to the full CLI.
 */
export async function statusEntry(argv: string[]): Promise<boolean> {
  quietOnEpipe();
  let code: number | undefined;
  try {
    code = await quickStatus(argv);
  } catch (err) {
    exit(await report(err));
    return true;
  }
  if (code === undefined) return false;
  exit(code);
  return true;
}
