import type { CommandContext, DashboardLauncher } from '../commands/context.js';
import { quietOnEpipe, settle } from '../cliExit.js';
import { commandSettings } from '../cliSettings.js';
import { quickDashboardArgs } from '../dashboardArgs.js';
import { startupMark } from '../trace.js';

/**
 * `autodeck [--setting VALUE]...` with a terminal, as the bin starts it: from inside the
 * dashboard bundle (components/dashboard.tsx re-exports this), which its code cache covers,
 * so the dashboard's start loads no ES module at all (start-up: the full CLI's
 * modules took ~30 ms to load on Node 20). False: not a call this path takes (any other
 * word or flag, --help, a value the full parser must judge); the bin hands it to the full CLI, which
 * treats it as before.
 */
export async function dashboardEntry(argv: string[], launcher: DashboardLauncher): Promise<boolean> {
  startupMark('cli: main');
  const cli = await quickDashboardArgs(argv);
  if (cli === undefined) return false;
  startupMark('cli: flags parsed');
  quietOnEpipe();
  settle((async () => {
    const cwd = process.cwd();
    const resolved = await commandSettings(cli.flags, undefined, cwd);
    if ('exit' in resolved) return resolved.exit;
    const ctx: CommandContext = { args: [], flags: cli.flags, settings: resolved.settings, stdout: process.stdout, stderr: process.stderr, cwd, dashboard: launcher };
    return launcher(ctx, {});
  })());
  return true;
}
