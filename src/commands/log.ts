import { Store } from '../store/index.js';
import { formatEvent } from '../format/event.js';
import { CliError, line, type CommandContext } from './context.js';
import { requireKnownTaskDir, taskDirArg } from './target.js';
import { DEFAULT_EVENT_BOUNDS } from '../store/eventPruning.js';

const EVENT_BOUNDS_TEXT = `the newest ${DEFAULT_EVENT_BOUNDS.maxRows} events of the last ${DEFAULT_EVENT_BOUNDS.retentionMs / 86_400_000} days are kept`;

/** `autodeck log [TASK_DIR] [--last N] [--json]`: the event log, oldest first. */
export function log(ctx: CommandContext): number {
  const last = ctx.flags.last === undefined ? 50 : Number(ctx.flags.last);
  if (!Number.isInteger(last) || last < 1) throw new CliError(`autodeck: --last: ${String(ctx.flags.last)} is not a whole number >= 1`);
  const taskDir = ctx.args.length > 0 ? taskDirArg(ctx.args, ctx.cwd, 'log') : undefined;
  const store = Store.open(ctx.settings.db);
  try {
    if (taskDir !== undefined) requireKnownTaskDir(store, taskDir, ctx.args[0]!, 'log');
    // Said on stderr so that --json stays one event per line.
    const pruned = store.events.prunedSummary();
    if (pruned.rows > 0) {
      line(ctx.stderr, `autodeck log: ${pruned.rows} older events were dropped to keep the log bounded (${EVENT_BOUNDS_TEXT})` +
        `${pruned.newestDroppedAt ? `; the newest dropped was from ${pruned.newestDroppedAt}` : ''}; repeats of one event are counted on one line`);
    }
    const events = store.events.list(last, taskDir);
    for (const e of events) line(ctx.stdout, ctx.flags.json === true ? JSON.stringify(e) : formatEvent(e));
    if (events.length === 0) line(ctx.stderr, `autodeck log: no events${taskDir === undefined ? '' : ` for ${ctx.args[0]}`} yet (a loop records them as it runs)`);
    return 0;
  } finally {
    store.close();
  }
}
