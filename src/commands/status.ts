import { hostname } from 'node:os';
import { Store } from '../store/index.js';
import { loopStatusJson, runJson } from '../supervisor/snapshot.js';
import { ownerAlive } from '../supervisor/owner.js';
import { line, type CommandContext } from './context.js';

/** How many finished runs `status` lists under `recent`. */
export const RECENT_RUNS = 10;

/** `autodeck status [--json]`: every active loop and the last finished ones. */
export async function status(ctx: CommandContext): Promise<number> {
  const store = Store.open(ctx.settings.db);
  try {
    const now = Date.now();
    const host = hostname();
    const loops = store.loops.list().map((row) => loopStatusJson(row, now, ownerAlive(row, { host, now })));
    const recent = store.runs.list(RECENT_RUNS).map(runJson);
    if (ctx.flags.json === true) {
      line(ctx.stdout, JSON.stringify({ loops, recent }, null, 2));
      return 0;
    }
    const { duration, printable } = await import('../format/event.js');
    if (loops.length === 0) line(ctx.stdout, 'No active loops.');
    for (const l of loops) {
      const step = l.step ? `${l.step} ${l.result} -> ${l.next}` : '-';
      const owner = l.owner.alive ? `pid ${l.owner.pid}` : `owner gone (pid ${l.owner.pid ?? '-'})`;
      line(ctx.stdout, printable(`${l.taskName}  ${l.status}  ${l.iteration}/${l.maxIterations}  ${step}  ` +
        `${duration(l.activeMs)}/${l.timeoutMinutes}m  restarts ${l.restartCount}  ${owner}  ${l.session}`));
    }
    if (recent.length > 0) {
      line(ctx.stdout, '');
      line(ctx.stdout, 'Recent runs:');
      for (const r of recent) {
        line(ctx.stdout, printable(`${r.endedAt}  ${r.taskName}  ${r.outcome}${r.forced ? ' (forced)' : ''}  ${r.iterations} iterations  ${duration(Number(r.activeMs))}`));
      }
    }
    return 0;
  } finally {
    store.close();
  }
}
