import { Store } from '../store/index.js';
import { EXIT, line, type CommandContext } from './context.js';
import { requireKnownTaskDir, taskDirArg } from './target.js';

/** `autodeck lookup TASK_DIR [--json]`: which session runs this module (exit 1: none). */
export function lookup(ctx: CommandContext): number {
  const taskDir = taskDirArg(ctx.args, ctx.cwd, 'lookup');
  const store = Store.open(ctx.settings.db);
  try {
    requireKnownTaskDir(store, taskDir, ctx.args[0]!, 'lookup');
    const row = store.loops.getByTaskDir(taskDir);
    if (!row) {
      if (ctx.flags.json === true) line(ctx.stdout, JSON.stringify({ error: 'no loop', taskDir }));
      else line(ctx.stderr, `autodeck: no loop for ${taskDir}`);
      return EXIT.other;
    }
    if (ctx.flags.json === true) line(ctx.stdout, JSON.stringify({ session_name: row.session, status: row.status }));
    else line(ctx.stdout, `${row.session} ${row.status}`);
    return EXIT.ok;
  } finally {
    store.close();
  }
}
