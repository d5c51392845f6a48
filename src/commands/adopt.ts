import { openSupervisor } from './supervised.js';
import { CliError, EXIT, isCliError, line, type CommandContext } from './context.js';
import { printable } from '../format/event.js';
import { startClaudeService } from '../claudeSessions/service.js';
import { AdoptError } from '../claudeSessions/adoption.js';
import { ClaudeAdoptedStore } from '../claudeSessions/adopted.js';
import { claudeTaskDir } from '../claudeSessions/transitions.js';

/**
 * `autodeck adopt ID`: governs one of Claude Code's background sessions like a loop, in
 * the foreground (as `run` does a loop): at most maxIterations turns, the timeout, the
 * budget, the approval policy through autodeck's PermissionRequest hook, and at a usage
 * limit one resume after the reset. Its events print like `run`'s. Ends when the session
 * ends or a limit stopped it: exit 0 when Claude Code says it is done, 1 otherwise.
 * Ctrl-C lets go of it (the session runs on, no longer governed), exit 130; a dashboard or
 * `serve` takes over an adoption whose `adopt` died.
 */
export async function adopt(given: CommandContext): Promise<number> {
  // --detach: governed by a process of its own (a dashboard on another machine adopts this way over ssh)
  if (given.flags.detach === true) {
    return (await import('./runDetached.js')).runDetached(given, undefined, (pid) => `autodeck: adopted, governed in the background by pid ${pid}`);
  }
  const child = process.env.AUTODECK_DETACHED_RUN ? (await import('./runDetached.js')).detachedChild() : undefined;
  if (!child) return governed(given);
  // the background half: what goes wrong before the adoption goes back to the caller
  try {
    return await governed({ ...given, stderr: child.stderr, stdout: child.stdout }, () => child.started(1));
  } catch (err) {
    if (!isCliError(err)) throw err;
    line(child.stderr, err.message);
    return err.code;
  }
}

async function governed(ctx: CommandContext, onAdopted: () => void = () => undefined): Promise<number> {
  const id = ctx.args[0];
  if (!id || ctx.args.length > 1) throw new CliError('autodeck adopt: name one background session: its short id as `claude agents` lists it, or its full session id');
  const { store, supervisor } = openSupervisor(ctx);
  const only = new Set<string>();
  const service = startClaudeService({ supervisor, store, settings: ctx.settings, only });
  const close = () => {
    service.close();
    supervisor.close();
    store.close();
  };
  await service.watch.lookOnce();
  let sessionId: string;
  try {
    const entry = service.find(id);
    if (!entry && service.watch.snapshot().note) throw new CliError(printable(`autodeck adopt: ${service.watch.snapshot().note}`), EXIT.other);
    const row = service.adopt(id, {});
    sessionId = row.sessionId;
    only.add(sessionId);
    line(ctx.stderr, printable(`autodeck: adopted ${row.name || row.shortId} (${row.shortId}): at most ${row.maxIterations} turns, ${row.timeoutMinutes} min; Ctrl-C lets go of it`));
    onAdopted();
  } catch (err) {
    close();
    if (err instanceof AdoptError) throw new CliError(printable(`autodeck adopt: ${err.message}`), err.kind === 'conflict' ? EXIT.conflict : err.kind === 'not_found' ? EXIT.other : EXIT.usage);
    throw err;
  }

  const adopted = new ClaudeAdoptedStore(store.db);
  let interrupted = false;
  const onInterrupt = (): void => {
    interrupted = true;
    service.governor.release(sessionId, 'let go by Ctrl-C');
  };
  process.on('SIGINT', onInterrupt);
  try {
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (adopted.get(sessionId)) return;
        supervisor.off('tick', check);
        resolve();
      };
      supervisor.on('tick', check);
    });
  } finally {
    process.off('SIGINT', onInterrupt);
  }
  const run = store.runs.list(1, claudeTaskDir(sessionId))[0];
  close();
  if (interrupted) return EXIT.interrupted;
  return run?.outcome === 'complete' ? EXIT.ok : EXIT.other;
}
