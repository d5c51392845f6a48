import { Store } from '../store/index.js';
import { Supervisor } from '../supervisor/supervisor.js';
import type { LoopEvent } from '../store/events.js';
import { formatEvent, printable } from '../format/event.js';
import { tmuxAvailable } from '../sessions/tmuxServer.js';
import { CliError, line, type CommandContext } from './context.js';
import type { Settings } from '../config/schema.js';
import { ExternalNotifier } from '../notify/external.js';
import { redactUrl } from '../notify/deliver.js';
import { superviseThroughClosedOutput } from '../cliExit.js';

/**
 * A supervisor and its store for this process, once the backend is known to work (a
 * missing tmux is one line, exit 2). Its events go nowhere yet: the caller decides.
 */
export function openQuietSupervisor(settings: Settings): { store: Store; supervisor: Supervisor } {
  if (settings.backend === 'tmux') {
    const tmux = tmuxAvailable();
    if (!tmux.ok) throw new CliError(`autodeck: --backend tmux: ${tmux.message}`);
  }
  const store = Store.open(settings.db);
  return { store, supervisor: new Supervisor({ store, settings, lastResort: true }) };
}

/** Whether a person is attached to the loop of a task folder (no notification then). */
export const attachedTo = (supervisor: Supervisor) => (taskDir: string): boolean => supervisor.loopOf(taskDir)?.attached ?? false;

/**
 * `notifyCommand` / `notifyUrl` for a supervisor (nothing when neither is set). Problems
 * (a command that failed, a server that did not answer) go to `onProblem`, URL redacted.
 */
export function wireExternalNotifier(supervisor: Supervisor, settings: Settings, onProblem: (message: string) => void): ExternalNotifier {
  const notifier = new ExternalNotifier({
    command: settings.notifyCommand,
    url: settings.notifyUrl,
    host: supervisor.host,
    now: Date.now,
    env: process.env,
    attached: attachedTo(supervisor),
    live: (taskDir) => {
      const loop = supervisor.loopOf(taskDir);
      if (!loop) return undefined;
      const session = loop.session && !loop.session.exited ? loop.session : undefined;
      return { iteration: loop.row.iteration, tokens: loop.row.tokens, costUsd: loop.row.costUsd, ...(session ? { screen: session.screen() } : {}) };
    },
    onProblem,
  });
  if (notifier.enabled) supervisor.on('event', (e: LoopEvent) => notifier.handle(e));
  return notifier;
}

/** What the notification settings say, for a start-up line: never the URL's secrets. */
export function notifyTargets(settings: Settings): string | undefined {
  const parts: string[] = [];
  if (settings.notifyCommand.length > 0) parts.push(`command ${settings.notifyCommand[0]}`);
  if (settings.notifyUrl) parts.push(redactUrl(settings.notifyUrl));
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/**
 * The supervisor of a headless command (`run`, `demo`, `serve`): its store, and its events
 * printed one human line each on stderr, or NDJSON on stdout with `--json`.
 */
export function openSupervisor(ctx: CommandContext): { store: Store; supervisor: Supervisor; notifier: ExternalNotifier } {
  const { store, supervisor } = openQuietSupervisor(ctx.settings);
  if (ctx.stdout === process.stdout) {
    superviseThroughClosedOutput((stream) => store.events.record({
      at: new Date().toISOString(), session: '', taskDir: '', kind: 'error',
      detail: { where: stream, message: `${stream} was closed by its reader; autodeck goes on supervising its loops to their end (autodeck status, autodeck log)` },
    }));
  }
  const notifier = wireExternalNotifier(supervisor, ctx.settings, (message) => line(ctx.stderr, printable(`autodeck: ${message}`)));
  const json = ctx.flags.json === true;
  supervisor.on('event', (e: LoopEvent) => {
    if (json) line(ctx.stdout, JSON.stringify(e));
    else line(ctx.stderr, formatEvent(e, e.taskName));
  });
  return { store, supervisor, notifier };
}
