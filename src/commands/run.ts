import { openSupervisor } from './supervised.js';
import { StartRefused, type StartOptions } from '../supervisor/supervisor.js';
import type { RunRow } from '../store/runs.js';
import { duration, printable } from '../format/event.js';
import { isBusyError, isDiskFullError } from '../store/db.js';
import { CliError, EXIT, line, type CommandContext } from './context.js';

/** One loop to start: a task folder and, optionally, its own limits. */
export interface StartRequest {
  dir: string;
  options?: StartOptions;
}

/**
 * `autodeck run TASK_DIR...`: supervises loops in the foreground until they end.
 * Exit: 0 every loop complete, 1 one ended another way, 3 a loop was already running (or,
 * with --refuse-failed, the module's last loop failed),
 * 130 interrupted (Ctrl-C asks the loops to stop; a second Ctrl-C kills them).
 */
export async function run(ctx: CommandContext): Promise<number> {
  if (ctx.args.length === 0) throw new CliError('autodeck run: name at least one task module folder (autodeck run AiTasks/NAME)');
  return supervise(ctx, ctx.args.map((dir) => ({ dir })));
}

/** Starts the loops, prints their events, and waits for them all to end (`run`, `demo`). */
export async function supervise(ctx: CommandContext, requests: StartRequest[]): Promise<number> {
  const { store, supervisor, notifier } = openSupervisor(ctx);
  const json = ctx.flags.json === true;
  const refuseFailed = ctx.flags.refuseFailed === true;
  // Said on stderr even with --json: the start clears a "manual intervention required".
  supervisor.on('event', (e) => {
    const replaced = e.kind === 'started' ? (e.detail.replacedFailed as { why?: unknown } | undefined) : undefined;
    if (replaced) {
      line(ctx.stderr, printable(`autodeck: ${e.taskName ?? e.taskDir}: the last loop on this module FAILED (${String(replaced.why)}); ` +
        'starting a new one clears that (pass --refuse-failed to refuse instead)'));
    }
  });
  const runs: RunRow[] = [];
  supervisor.on('ended', (r) => runs.push(r));

  let conflicts = 0;
  let busy = 0;
  let usage: StartRefused | undefined;
  for (const { dir, options } of requests) {
    try {
      supervisor.start(dir, { ...options, refuseFailed });
    } catch (err) {
      if (isBusyError(err)) {
        line(ctx.stderr, `autodeck: ${dir}: the state database is locked by another process (waited 5 s); not started`);
        busy++;
        continue;
      }
      if (isDiskFullError(err)) {
        line(ctx.stderr, `autodeck: ${dir}: the disk holding the state database is full; not started`);
        busy++;
        continue;
      }
      if (!(err instanceof StartRefused)) throw err;
      line(ctx.stderr, printable(`autodeck: ${err.message}`));
      if (err.kind === 'conflict' || err.kind === 'failed') conflicts++;
      else usage ??= err;
    }
  }
  if (supervisor.active().length === 0) {
    supervisor.close();
    store.close();
    return usage ? EXIT.usage : conflicts > 0 ? EXIT.conflict : EXIT.other;
  }

  let interrupts = 0;
  const onInterrupt = (): void => {
    interrupts++;
    if (interrupts === 1) {
      line(ctx.stderr, 'autodeck: stopping loops (the agents finish their step); press Ctrl-C again to kill them');
      supervisor.stopAll();
    } else {
      line(ctx.stderr, 'autodeck: killing loops');
      supervisor.stopAll({ force: true });
    }
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onInterrupt);
  try {
    await supervisor.whenIdle();
    // The last notification (the end) is let out before the process exits.
    await notifier.drain();
  } finally {
    for (const s of signals) process.off(s, onInterrupt);
    supervisor.close();
    store.close();
  }
  if (!json) {
    for (const r of runs) {
      line(ctx.stderr, printable(`${r.taskName}: ${r.outcome}${r.forced ? ' (forced)' : ''} after ${r.iterations} iterations in ${duration(r.activeMs)}`
        + (r.worktreePath && r.worktreeState !== 'removed' ? `; its work is in ${r.worktreePath} (branch ${r.worktreeBranch}, ${(r.worktreeState ?? '').replace(/^kept: /, '')})` : '')));
    }
  }
  if (interrupts > 0) return EXIT.interrupted;
  if (usage) return EXIT.usage;
  if (conflicts > 0) return EXIT.conflict;
  if (busy > 0) return EXIT.other;
  return runs.every((r) => r.outcome === 'complete') ? EXIT.ok : EXIT.other;
}
