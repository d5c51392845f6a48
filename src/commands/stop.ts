import { Store } from '../store/index.js';
import { stopOthersLoop } from '../supervisor/remoteStop.js';
import { hostname } from 'node:os';
import { EXIT, line, type CommandContext } from './context.js';
import { taskDirArg } from './target.js';

/**
 * `autodeck stop TASK_DIR [--force]`: writes the stop file; the loop's owner sees it
 * through its watcher and ends the loop. Exit 1 when no loop runs there.
 */
export function stop(ctx: CommandContext): number {
  const taskDir = taskDirArg(ctx.args, ctx.cwd, 'stop');
  const force = ctx.flags.force === true;
  const store = Store.open(ctx.settings.db);
  try {
    const row = store.loops.getByTaskDir(taskDir);
    if (!row || row.status === 'failed') {
      line(ctx.stderr, `autodeck: no loop is running on ${taskDir}`);
      return EXIT.other;
    }
    const alive = stopOthersLoop(store, row, { reason: 'user_stop', force, host: hostname(), now: Date.now() });
    const who = alive ? `its owner (autodeck pid ${row.ownerPid}) will ${force ? 'kill the agent now' : 'end it after the current step'}`
      : 'its owner is gone; the next autodeck to adopt it will finish it';
    line(ctx.stderr, `autodeck: ${force ? 'force stop' : 'stop'} requested for ${row.taskName} (${row.session}); ${who}`);
    return EXIT.ok;
  } finally {
    store.close();
  }
}
