import type { CommandContext } from './context.js';
import type { Store } from '../store/index.js';
import { pragma } from '../store/statements.js';
import { defaultDbPath } from '../paths.js';
import { HOOKS_ENV, HOOKS_INJECTED } from '../agents/claudeSettings.js';

/**
 * Claude Code waits for its hooks; a writer holding the database longer than this makes the
 * hook give up (and allow) rather than hold the agent (a hook answers within a second).
 */
const HOOK_BUSY_TIMEOUT_MS = 300;

export interface HookIo {
  /** `stop` or `state`. */
  args: string[];
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** The database when `AUTODECK_DB` is not set. */
  dbPath: () => string;
  now?: () => Date;
}

/** `autodeck hook stop` / `autodeck hook state`, from the CLI. Always exits 0. */
export async function hook(ctx: CommandContext): Promise<number> {
  return runHook({
    args: ctx.args, env: process.env, stdin: process.stdin, stdout: ctx.stdout, stderr: ctx.stderr, dbPath: () => ctx.settings.db,
  });
}

/**
 * The same without the CLI's settings: a fast path the CLI may take before it resolves
 * any setting (a bad project settings file must not make a hook exit 2, which Claude Code
 * reads as "block"). The database is `AUTODECK_DB`, else the default path.
 */
export async function hookMain(args: string[]): Promise<number> {
  const refused = hookUsageError(args, () => process.stdin.isTTY === true);
  if (refused) {
    process.stderr.write(`${refused}\n`);
    return 2;
  }
  return runHook({
    args, env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr,
    dbPath: () => defaultDbPath(process.env),
  });
}

/**
 * A person who typed `autodeck hook` gets told what it is for. A word autodeck does not know,
 * from a program (no terminal), is let through to do nothing: settings written by a newer
 * autodeck must never make an older one fail Claude Code (exit 2 blocks a Stop).
 */
export function hookUsageError(args: readonly string[], interactive: () => boolean): string | undefined {
  const sub = args[0];
  if (sub === 'stop' || sub === 'state') return undefined;
  if (sub === undefined) return 'autodeck: hook needs stop or state; Claude Code runs it with an event on stdin (autodeck init registers it): autodeck help hook';
  if (interactive()) return `autodeck: unknown hook "${sub}" (stop or state); Claude Code runs these, autodeck init registers them: autodeck help hook`;
  return undefined;
}

/**
 * Does nothing at all without `AUTODECK_SESSION` (a person's own Claude Code sessions in
 * the project). Otherwise never fails the agent: any error of its own allows the stop,
 * prints nothing on stdout and is recorded as an `error` event when the database can be
 * reached. Imports what it needs only once it knows it has work, to start fast.
 */
export async function runHook(io: HookIo): Promise<number> {
  const session = io.env.AUTODECK_SESSION;
  if (!session) return 0;
  // autodeck gave this session its own copies of the hooks (--settings, marked --injected):
  // a copy from the project's settings stands aside, so no event is answered twice.
  if (io.env[HOOKS_ENV] === HOOKS_INJECTED && !io.args.includes('--injected')) return 0;
  const sub = io.args[0];
  const now = io.now ?? (() => new Date());
  let store: Store | undefined;
  try {
    const { readEventInput, parseEvent } = await import('../hooks/input.js');
    const parsed = parseEvent(await readEventInput(io.stdin));
    store = await openStore(io);
    if (sub !== 'stop' && sub !== 'state') throw new Error(`unknown hook "${sub ?? ''}" (expected stop or state)`);
    if (!parsed.ok) throw new Error(parsed.reason);
    if (sub === 'state') {
      const { stateOfEvent, carriedDetail } = await import('../hooks/state.js');
      const reported = stateOfEvent(parsed.event);
      if (reported) {
        const detail = carriedDetail(reported, store.agentState.get(session));
        store.agentState.set({ session, state: reported.state, event: String(parsed.event.hook_event_name), detail, at: now().toISOString() });
      }
      return 0;
    }
    const { answerStop } = await import('../hooks/stop.js');
    const { hostname } = await import('node:os');
    const answer = answerStop(store, parsed.event, { env: io.env, now: now(), host: hostname(), fallbackPid: process.ppid });
    if (answer.output) io.stdout.write(answer.output);
    return 0;
  } catch (err) {
    recordError(store, io, session, sub, err, now());
    return 0;
  } finally {
    store?.close();
  }
}

async function openStore(io: HookIo): Promise<Store> {
  const { Store } = await import('../store/index.js');
  const store = Store.open(io.env.AUTODECK_DB || io.dbPath());
  pragma(store.db, `busy_timeout = ${HOOK_BUSY_TIMEOUT_MS}`);
  return store;
}

/** Best effort: an `error` event, else one line on stderr (Claude Code shows it only in its transcript view). */
function recordError(store: Store | undefined, io: HookIo, session: string, sub: string | undefined, err: unknown, now: Date): void {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  try {
    if (!store) throw err;
    store.events.insert({ at: now.toISOString(), session, taskDir: io.env.AUTODECK_TASK_DIR ?? '', kind: 'error', detail: { where: `hook ${sub ?? ''}`.trim(), message } });
  } catch {
    try {
      io.stderr.write(`autodeck hook ${sub ?? ''}: ${message}\n`);
    } catch { /* nowhere left to say it */ }
  }
}
