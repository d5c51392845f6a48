import { CliError, EXIT, type CommandContext, type DashboardLauncher } from './commands/context.js';
import { quietOnEpipe, settle } from './cliExit.js';
import { quickStatus } from './commands/quickStatus.js';
import { startupMark } from './trace.js';
import { commandSettings } from './cliSettings.js';
import { quickDashboardArgs } from './dashboardArgs.js';

// Everything else is imported when needed: the hooks run on every turn of the agent and
// `status` in scripts, so starting fast matters more than tidy top-level imports.

const usage = (settingsHelp: string): string => `
  Usage
    autodeck [--root DIR]...                 the dashboard (needs a terminal)
    autodeck new NAME [--title T]            a new task module (draft) under the first root
    autodeck run TASK_DIR... [flags]         supervise loops headless, in the foreground
    autodeck status [--json] [--iterations]  every active loop and the last finished ones
    autodeck status --format tmux            a short segment for tmux status-right: ▶3 ?1 ✗1
    autodeck stop TASK_DIR [--force]         ask a loop to stop (writes the stop file)
    autodeck lookup TASK_DIR [--json]        which session runs this module (exit 1: none)
    autodeck log [TASK_DIR] [--last N] [--json]   the event log
    autodeck history [TASK_DIR] [--last N] [--json] [--iterations]   finished runs with outcome, times, spend and score
    autodeck serve [--api-port N]            headless supervisor with the loopback REST API
    autodeck init [--force]                  prepare a project: .gitignore, hooks, the /autodeck-auto skill
    autodeck demo [--fast | --speed S]       real loops on a demo workspace, with the simulated agent
                                             (paced for a person, ~90 s; --fast: seconds; S: seconds a step)
    autodeck sim TASK_DIR                    the simulated agent
    autodeck adopt ID                        govern one of Claude Code's background sessions like a loop

  Command flags
    --json            machine-readable output (run: NDJSON events on stdout)
    --force           stop: kill the agent at once; init: replace an edited skill
    --last N          log / history: how many (log 50, history 20)
    --iterations      status / history: tokens, cost and compactions of each iteration too
    --title T         new: the module's title (default: NAME)
    --refuse-failed   run: do not start on a module whose last loop failed (exit 3)
    --help, --version

  Exit codes: 0 all went as asked (run: every loop complete), 1 a loop ended another
  way or nothing was found, 2 usage or settings error, 3 conflict (already running;
  run --refuse-failed: the last loop failed),
  130 interrupted.

${settingsHelp.replace(/^/gm, '  ')}
`;

const COMMANDS = ['new', 'run', 'status', 'stop', 'lookup', 'log', 'history', 'sim', 'demo', 'serve', 'init', 'hook', 'adopt'] as const;
type CommandName = (typeof COMMANDS)[number];

async function dispatch(name: CommandName, ctx: CommandContext): Promise<number> {
  switch (name) {
    case 'new':
      return (await import('./commands/new.js')).newModule(ctx);
    case 'run':
      return (await import('./commands/run.js')).run(ctx);
    case 'status':
      return (await import('./commands/status.js')).status(ctx);
    case 'stop':
      return (await import('./commands/stop.js')).stop(ctx);
    case 'lookup':
      return (await import('./commands/lookup.js')).lookup(ctx);
    case 'log':
      return (await import('./commands/log.js')).log(ctx);
    case 'sim':
      return (await import('./commands/sim.js')).sim(ctx);
    case 'demo':
      return (await import('./commands/demo.js')).demo(ctx);
    case 'history':
      return (await import('./commands/history.js')).historyCommand(ctx);
    case 'serve':
      return (await import('./commands/serve.js')).serve(ctx);
    case 'init':
      return (await import('./commands/init.js')).init(ctx);
    case 'hook':
      return (await import('./commands/hook.js')).hook(ctx);
    case 'adopt':
      return (await import('./commands/adopt.js')).adopt(ctx);
  }
}

/** Without a terminal there is no dashboard: say what works instead (SPEC 6). */
function noDashboard(): number {
  process.stderr.write('autodeck: the dashboard needs a terminal (stdin and stdout are not a TTY); ' +
    'use "autodeck run TASK_DIR..." to supervise loops headless, "autodeck status" to see them, or "autodeck --help"\n');
  return EXIT.usage;
}

/** How the bin hands in the dashboard (components/), which src/ never imports. */
export interface CliUi {
  loadDashboard?: () => Promise<DashboardLauncher>;
}

export async function parseWithMeow(argv: string[]) {
  const { default: meow } = await import('meow');
  const { meowFlags, settingsHelp, repeatable, lastWins } = await import('./config/help.js');
  const flags = {
    ...meowFlags(),
    json: { type: 'boolean' },
    force: { type: 'boolean' },
    last: { type: 'string' },
    fast: { type: 'boolean' },
    speed: { type: 'string' },
    title: { type: 'string' },
    refuseFailed: { type: 'boolean' },
    iterations: { type: 'boolean' },
    format: { type: 'string' },
  } as const;
  try {
    // Every flag may be given twice (the shell convention: the last one wins, silently);
    // meow refuses a repeat unless it collects the values, so it collects them all and
    // the single-valued ones keep their last.
    const cli = meow(usage(settingsHelp()), {
      importMeta: import.meta,
      argv,
      allowUnknownFlags: false,
      booleanDefault: undefined,
      flags: repeatable(flags),
    });
    // meow answers --help and --version only when they come alone: after a command they were
    // ignored, and `autodeck demo --help` started the demo, `run DIR --help` a loop.
    const options = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
    if (options.includes('--help')) cli.showHelp(0);
    if (options.includes('--version')) cli.showVersion();
    return { ...cli, flags: lastWins(cli.flags, flags) };
  } catch (err) {
    throw new CliError(`autodeck: ${(err as Error).message.split('\n')[0]}`, EXIT.usage);
  }
}

export async function main(argv = process.argv.slice(2), ui: CliUi = {}): Promise<number> {
  startupMark('cli: main');
  // A hook answers Claude Code within a second and never fails it: no flags, no settings
  // files (a bad .autodeck.json must not turn into a refused tool call), AUTODECK_* only.
  if (argv[0] === 'hook' && !argv.includes('--help')) return (await import('./commands/hook.js')).hookMain(argv.slice(1));
  // The simulated agent takes an agent's own flags after its folder (`--resume ID` when restarted).
  if (argv[0] === 'sim' && argv[1] !== undefined && !argv[1].startsWith('-')) return (await import('./commands/sim.js')).simMain(argv[1]);
  const quick = await quickStatus(argv);
  if (quick !== undefined) return quick;
  const cli = (await quickDashboardArgs(argv)) ?? (await parseWithMeow(argv));
  startupMark('cli: flags parsed');
  const [command, ...args] = cli.input;
  if (command !== undefined && !(COMMANDS as readonly string[]).includes(command)) {
    process.stderr.write(`autodeck: unknown command "${command}"; see autodeck --help\n`);
    return EXIT.usage;
  }
  const cwd = process.cwd();
  const resolved = await commandSettings(cli.flags, command, cwd);
  if ('exit' in resolved) return resolved.exit;
  const { settings } = resolved;
  // Only where a dashboard may open: touching process.stdin costs other commands start-up time.
  const wantsDashboard = (command === undefined || command === 'demo') && ui.loadDashboard !== undefined;
  const tty = wantsDashboard && Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const dashboard = tty ? await ui.loadDashboard!() : undefined;
  if (dashboard) startupMark('cli: dashboard bundle loaded');
  const ctx: CommandContext = { args, flags: cli.flags, settings, stdout: process.stdout, stderr: process.stderr, cwd, dashboard };
  if (command === undefined) {
    if (!dashboard) return noDashboard();
    return dashboard(ctx, {});
  }
  return dispatch(command as CommandName, ctx);
}

/** The bin's one call. */
export function runCli(ui: CliUi = {}): void {
  quietOnEpipe();
  settle(main(process.argv.slice(2), ui));
}
