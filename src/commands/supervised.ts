import { Store } from '../store/index.js';
import { Supervisor } from '../supervisor/supervisor.js';
import type { LoopEvent } from '../store/events.js';
import { formatEvent } from '../format/event.js';
import { tmuxAvailable } from '../sessions/tmuxServer.js';
import { CliError, line, type CommandContext } from './context.js';
import type { Settings } from '../config/schema.js';

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
  return { store, supervisor: new Supervisor({ store, settings }) };
}

/**
 * The supervisor of a headless command (`run`, `demo`, `serve`): its store, and its events
 * printed one human line each on stderr, or NDJSON on stdout with `--json`.
 */
export function openSupervisor(ctx: CommandContext): { store: Store; supervisor: Supervisor } {
  const { store, supervisor } = openQuietSupervisor(ctx.settings);
  const json = ctx.flags.json === true;
  supervisor.on('event', (e: LoopEvent) => {
    if (json) line(ctx.stdout, JSON.stringify(e));
    else line(ctx.stderr, formatEvent(e, e.taskName));
  });
  return { store, supervisor };
}
