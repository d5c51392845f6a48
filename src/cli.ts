import { EXIT, type CommandContext, type DashboardLauncher } from './commands/context.js';
import { quietOnEpipe, settle } from './cliExit.js';
import { quickStatus } from './commands/quickStatus.js';
import { startupMark } from './trace.js';
import { commandSettings } from './cliSettings.js';
import { quickDashboardArgs } from './dashboardArgs.js';

// Everything else is imported when needed: the hooks run on every turn of the agent and
// `status` in scripts, so starting fast matters more than tidy top-level imports. The
// commands themselves, their flags and their help are one table: src/cli/commands.ts.

/** Without a terminal there is no dashboard: say what works instead. */
function noDashboard(): number {
  process.stderr.write('autodeck: the dashboard needs a terminal (stdin and stdout are not a TTY); ' +
    'use "autodeck run TASK_DIR..." to supervise loops headless, "autodeck status" to see them, or "autodeck help"\n');
  return EXIT.usage;
}

/** How the bin hands in the dashboard (components/), which src/ never imports. */
export interface CliUi {
  loadDashboard?: () => Promise<DashboardLauncher>;
}

const asksHelp = (argv: readonly string[]): boolean => {
  const options = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  return options.includes('--help') || options.includes('-h');
};

export async function main(argv = process.argv.slice(2), ui: CliUi = {}): Promise<number> {
  startupMark('cli: main');
  // A hook answers Claude Code within a second and never fails it: no flags, no settings
  // files (a bad .autodeck.json must not turn into a refused tool call), AUTODECK_* only.
  if (argv[0] === 'hook' && !asksHelp(argv)) return (await import('./commands/hook.js')).hookMain(argv.slice(1));
  // The simulated agent takes an agent's own flags after its folder (`--resume ID` when restarted).
  if (argv[0] === 'sim' && argv[1] !== undefined && !argv[1].startsWith('-')) return (await import('./commands/sim.js')).simMain(argv[1]);
  const quick = await quickStatus(argv);
  if (quick !== undefined) return quick;
  const dashboardArgs = await quickDashboardArgs(argv);
  const line = dashboardArgs ? { kind: 'command' as const, command: undefined, args: [], flags: dashboardArgs.flags } : await parseLine(argv);
  startupMark('cli: flags parsed');
  if (line.kind === 'help') {
    const help = await import('./cli/help.js');
    const { ownVersion } = await import('./ownPackage.js');
    process.stdout.write(line.topic === 'overview' ? help.overviewHelp(ownVersion()) : line.topic === 'settings' ? help.settingsHelp() : help.commandHelp(line.topic));
    return EXIT.ok;
  }
  if (line.kind === 'version') {
    process.stdout.write(`${(await import('./ownPackage.js')).ownVersion()}\n`);
    return EXIT.ok;
  }
  const { command, args, flags } = line;
  const cwd = process.cwd();
  const resolved = await commandSettings(flags, command?.name, cwd);
  if ('exit' in resolved) return resolved.exit;
  const { settings } = resolved;
  // Only where a dashboard may open: touching process.stdin costs other commands start-up time.
  const wantsDashboard = (command === undefined || command.name === 'demo') && ui.loadDashboard !== undefined;
  const tty = wantsDashboard && Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const dashboard = tty ? await ui.loadDashboard!() : undefined;
  if (dashboard) startupMark('cli: dashboard bundle loaded');
  const ctx: CommandContext = { args, flags, settings, stdout: process.stdout, stderr: process.stderr, cwd, dashboard };
  if (command === undefined) {
    if (!dashboard) return noDashboard();
    return dashboard(ctx, {});
  }
  return (await command.load())(ctx);
}

/** The command line read against the command table (throws a usage error, exit 2). */
export async function parseLine(argv: readonly string[]) {
  return (await import('./cli/parse.js')).parseCommandLine(argv);
}

/** The bin's one call. */
export function runCli(ui: CliUi = {}): void {
  quietOnEpipe();
  settle(main(process.argv.slice(2), ui));
}
