import { tmpdir } from 'node:os';
import type { Store } from '../store/index.js';
import { pragma } from '../store/statements.js';
import { homeDir, projectDir } from '../paths.js';
import { readEventInput, parseEvent } from '../hooks/input.js';
import { claudeConfigDir, pidAlive, runningSessionFile } from './files.js';
import { answerPermission } from './permissionHook.js';
import { PERMISSION_HOOK_TIMEOUT_S } from './hookTimeout.js';

/** The hook gives up a little before Claude Code would kill it, and closes its request. */
const MAX_WAIT_MS = (PERMISSION_HOOK_TIMEOUT_S - 30) * 1000;
/** The hook may wait on the database longer than the Stop hook: it answers a person, not a turn. */
const BUSY_MS = 2000;

export interface PermissionHookIo {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  dbPath: () => string;
}

/** `autodeck hook permission`. Always exits 0; prints a decision or nothing. */
export async function permissionHook(io: PermissionHookIo): Promise<number> {
  // A loop autodeck started answers its prompts its own way (the state hooks and the policy).
  if (io.env.AUTODECK_SESSION) return 0;
  let store: Store | undefined;
  try {
    const parsed = parseEvent(await readEventInput(io.stdin));
    if (!parsed.ok || parsed.event.hook_event_name !== 'PermissionRequest') return 0;
    const event = parsed.event;
    const { Store: StoreClass } = await import('../store/index.js');
    store = StoreClass.open(io.env.AUTODECK_DB || io.dbPath());
    pragma(store.db, `busy_timeout = ${BUSY_MS}`);
    const sessionId = typeof event.session_id === 'string' ? event.session_id : '';
    const cwd = typeof event.cwd === 'string' && event.cwd !== '' ? event.cwd : process.cwd();
    const configDir = claudeConfigDir(io.env);
    const parent = process.ppid;
    await answerPermission({
      store, env: io.env, event, pid: process.pid, maxWaitMs: MAX_WAIT_MS,
      policy: () => loadPolicy(io.env, cwd),
      wait: {
        now: Date.now,
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        sessionStatus: () => {
          const f = runningSessionFile(configDir, sessionId);
          return f && pidAlive(f.pid) ? { status: f.status } : undefined;
        },
        orphaned: () => process.ppid !== parent || !pidAlive(parent),
      },
      write: (text) => io.stdout.write(text),
    });
    return 0;
  } catch {
    // no answer: Claude Code's own dialog stands
    return 0;
  } finally {
    store?.close();
  }
}

/** The approval policy of the session's project (its settings files); undefined when they cannot be read. */
async function loadPolicy(env: NodeJS.ProcessEnv, cwd: string) {
  const { resolveSettings } = await import('../config/settings.js');
  const { value, errors } = resolveSettings({ flags: {}, env, cwd });
  if (errors.length > 0) return undefined;
  return { policy: value.approval, ctx: { projectDir: projectDir(cwd), cwd, home: homeDir(env), tempDirs: [...new Set([tmpdir(), '/tmp'])] } };
}
