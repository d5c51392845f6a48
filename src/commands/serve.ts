import { openSupervisor } from './supervised.js';
import { Store } from '../store/index.js';
import { Supervisor } from '../supervisor/supervisor.js';
import { printable } from '../format/event.js';
import { startApi, type ApiServer } from '../api/server.js';
import { apiTokenPath, loadOrCreateToken, TokenFileError } from '../api/token.js';
import { CliError, EXIT, line, type CommandContext } from './context.js';

const SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Resolves with the first of `signals` this process receives; its handlers are gone by then. */
function firstSignal(signals: readonly NodeJS.Signals[]): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handlers = signals.map((s) => {
      const h = (): void => {
        for (const [sig, fn] of handlers) process.off(sig, fn);
        resolve(s);
      };
      return [s, h] as const;
    });
    for (const [s, h] of handlers) process.on(s, h);
  });
}

export interface SupervisorApi extends ApiServer {
  /** Where the bearer token is kept. */
  tokenPath: string;
}

/**
 * The REST API for a supervisor already running in this process: loads (or
 * creates) the token and listens on 127.0.0.1:`port` (0 picks a free port). For `serve`,
 * and for the dashboard's `--api-port`. Throws CliError (exit 2 for a token file that may
 * not be used, 1 when the port cannot be had).
 */
export async function startApiForSupervisor(opts: {
  supervisor: Supervisor;
  store: Store;
  port: number;
  env?: NodeJS.ProcessEnv;
  onError?: (err: unknown) => void;
}): Promise<SupervisorApi> {
  const tokenPath = apiTokenPath(opts.env ?? process.env);
  let token: string;
  try {
    token = loadOrCreateToken(tokenPath);
  } catch (err) {
    if (err instanceof TokenFileError) throw new CliError(err.message, EXIT.usage);
    throw new CliError(`autodeck: cannot create the API token file ${tokenPath}: ${(err as Error).message}`, EXIT.other);
  }
  try {
    const api = await startApi({
      supervisor: opts.supervisor, store: opts.store, settings: opts.supervisor.settings, port: opts.port, token,
      ...(opts.onError ? { onError: opts.onError } : {}),
    });
    return { ...api, tokenPath };
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.other);
  }
}

/**
 * `autodeck serve [--api-port N]`: the headless supervisor with the REST API. Adopts every
 * orphaned loop first, prints events like `run`, and serves until SIGINT,
 * SIGTERM or SIGHUP; then the API closes and the loops are left for the next launch
 * (pty loops suspended, tmux loops keep running). Exit 130 on a signal.
 */
export async function serve(ctx: CommandContext): Promise<number> {
  if (ctx.args.length > 0) throw new CliError('autodeck serve: takes no task folders; start loops through the API (POST /api/sessions/auto/task-auto)');
  const { store, supervisor, notifier } = openSupervisor(ctx);

  let api: SupervisorApi | undefined;
  const shutdown = async (): Promise<void> => {
    await api?.close();
    await notifier.drain(3_000);
    const left = supervisor.suspendAll();
    if (left > 0) line(ctx.stderr, `autodeck serve: left ${left} loop${left === 1 ? '' : 's'} for the next launch`);
    supervisor.close();
    store.close();
  };

  try {
    supervisor.adoptOrphans();
    supervisor.keepAdopting();
    api = await startApiForSupervisor({
      supervisor, store, port: ctx.settings.apiPort,
      onError: (err) => line(ctx.stderr, printable(`autodeck serve: API error: ${(err as Error)?.message ?? String(err)}`.split('\n')[0]!)),
    });
  } catch (err) {
    await shutdown();
    throw err;
  }
  line(ctx.stderr, printable(`autodeck serve: http://${api.host}:${api.port} (token in ${api.tokenPath})`));

  const received = await firstSignal(SHUTDOWN_SIGNALS);
  // A second signal while shutting down is absorbed: the shutdown is quick and must finish.
  const absorb = (): void => {};
  for (const s of SHUTDOWN_SIGNALS) process.on(s, absorb);
  try {
    line(ctx.stderr, `autodeck serve: ${received}: closing the API; loops are left for the next launch`);
    await shutdown();
  } finally {
    for (const s of SHUTDOWN_SIGNALS) process.off(s, absorb);
  }
  return EXIT.interrupted;
}
