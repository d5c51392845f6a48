import { Store } from '../store/index.js';
import { formatEvent } from '../format/event.js';
import { CliError, line, type CommandContext } from './context.js';
import { taskDirArg } from './target.js';

/** `autodeck log [TASK_DIR] [--last N] [--json]`: the event log, oldest first. */
export function log(ctx: CommandContext): number {
  const last = ctx.flags.last === undefined ? 50 : Number(ctx.flags.last);
  if (!Number.isInteger(last) || last < 1) throw new CliError(`autodeck: --last: ${String(ctx.flags.last)} is not a whole number >= 1`);
  const taskDir = ctx.args.length > 0 ? taskDirArg(ctx.args, ctx.cwd, 'log') : undefined;
  const store = Store.open(ctx.settings.db);
  try {
    for (const e of store.events.list(last, taskDir)) {
      line(ctx.stdout, ctx.flags.json === true ? JSON.stringify(e) : formatEvent(e));
    }
    return 0;
  } finally {
    store.close();
  }
}
