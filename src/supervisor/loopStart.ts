import { expandAgentArgv, missingProgramMessage, resolveProgram } from '../agents/command.js';
import { gitTopLevel, isSessionId, sessionName } from '../paths.js';
import { resolveModule, startRefusal, type TaskModule } from '../protocol/modules.js';
import { isConstraintError } from '../store/db.js';
import type { LoopEvent } from '../store/events.js';
import type { LoopRow, LoopStore, NewLoop } from '../store/loops.js';
import { sessionSettings, withSessionSettings } from '../agents/claudeSettings.js';
import { withPermissionMode, type ClaudePermissionMode } from '../agents/claudePermissionMode.js';
import { injectedHookCommands } from '../hooks/commands.js';
import { readUserSettingsArg } from '../agents/userSettingsArg.js';
import { profileForProgram, type AgentProfile } from '../config/schema.js';
import { releaseWorktree, type StartedWorktree } from './loopWorktree.js';

/** Why a loop was not started; `kind` picks the exit code (usage 2, conflict 3). */
export class StartRefused extends Error {
  constructor(readonly kind: 'usage' | 'conflict' | 'failed', message: string) {
    super(message);
    this.name = 'StartRefused';
  }
}

export interface StartOptions {
  maxIterations?: number;
  timeoutMinutes?: number;
  /** The session id a caller chose; the derived name when left out. */
  session?: string;
  /** Refuse (StartRefused 'failed') instead of replacing a loop that failed and needs a person. */
  refuseFailed?: boolean;
  /** A git worktree for this loop (the start dialog, the API); the `worktree` setting when left out. */
  worktree?: boolean;
}

/** What a new start says of the failed loop it replaces (in its `started` event). */
export interface ReplacedFailed {
  why: string;
  iteration: number;
  restartCount: number;
  startedAt: string | undefined;
}

export function failedSummary(row: LoopRow, lastEvents: readonly LoopEvent[]): ReplacedFailed {
  const failed = [...lastEvents].reverse().find((e) => e.kind === 'failed');
  const message = typeof failed?.detail.message === 'string' ? failed.detail.message : undefined;
  const why = message ?? (row.stopReason ? `stop reason ${row.stopReason}` : `after ${row.restartCount} restarts`);
  return { why, iteration: row.iteration, restartCount: row.restartCount, startedAt: row.startedAt ?? undefined };
}

/** The refusal of a start a running loop is in the way of; `asked`: the module that wanted a session another module's loop holds. */
export function conflictRefusal(existing: LoopRow, asked?: string): StartRefused {
  const owner = existing.ownerPid ? ` by autodeck pid ${existing.ownerPid} on ${existing.ownerHost}` : '';
  const name = existing.taskName || existing.taskDir;
  if (asked !== undefined) {
    return new StartRefused('conflict', `${asked}: session ${existing.session} is taken: a loop on ${name} is already ${existing.status} in it${owner}`);
  }
  return new StartRefused('conflict', `${name}: a loop is already ${existing.status} in session ${existing.session}${owner}`);
}

/**
 * A Claude Code agent's argv with autodeck's `--settings` (its hooks, the protocol's
 * permissions), merged into the user's own `--settings` when the command has one.
 */
function claudeArgv(argv: string[], taskDir: string, mode: 'signal' | 'hook', cwd: string, permissionMode: ClaudePermissionMode): string[] {
  const ours = sessionSettings({ taskDir, mode, hooks: injectedHookCommands() });
  try {
    // the permission mode autodeck's setting chose, on the command line: never in the user's files
    return withPermissionMode(withSessionSettings(argv, ours, (value) => readUserSettingsArg(value, cwd)), permissionMode);
  } catch (err) {
    throw new StartRefused('usage', `the agent command's --settings: ${(err as Error).message}`);
  }
}

/**
 * A Codex agent's argv with `--no-daemon`: without it the interactive CLI starts (or joins)
 * a shared background server, `codex app-server --managed-daemon` in a session of its own,
 * that outlives the agent and the loop. Left as it is when the command names a server
 * itself (`--remote`) or already says so, or is not Codex itself (a wrapper read as codex).
 */
export function codexArgv(argv: string[]): string[] {
  if (profileForProgram(argv[0] ?? '') !== 'codex' || argv.includes('--no-daemon') || argv.some((a) => a === '--remote' || a.startsWith('--remote='))) return argv;
  return [argv[0]!, '--no-daemon', ...argv.slice(1)];
}

/** How a new loop's agent is started. */
export interface AgentLaunch {
  /** The command as the user's settings name it (its program resolved). */
  argv: string[];
  /** What runs: with autodeck's hooks for Claude Code. */
  agentArgv: string[];
  cwd: string;
  mode: 'signal' | 'hook';
  hooksInjected: boolean;
  /** The loop's own worktree, where its agent starts, when it has one. */
  worktree?: StartedWorktree | undefined;
}

/**
 * The agent command of a new loop on `module`; throws StartRefused when its program is
 * missing. `worktree` makes the loop's worktree (the last check, as it makes something)
 * from the folder the agent would have worked in; the agent then starts there.
 */
export function agentLaunch(
  settings: { agent: string[]; agentCwd?: string | undefined; agentProfile: AgentProfile; mode?: 'signal' | 'hook'; claudePermissionMode?: ClaudePermissionMode | undefined },
  module: { dir: string; name: string; root: string },
  session: string,
  env: NodeJS.ProcessEnv,
  worktree?: (checkoutCwd: string) => StartedWorktree,
): AgentLaunch {
  const argv = expandAgentArgv(settings.agent, { taskDir: module.dir, taskName: module.name, session, root: module.root });
  const checkoutCwd = settings.agentCwd ?? gitTopLevel(module.dir) ?? module.dir;
  const program = argv[0] ? resolveProgram(argv[0], env, checkoutCwd) : undefined;
  if (!program) throw new StartRefused('usage', missingProgramMessage(argv[0] ?? ''));
  argv[0] = program;
  const mode = settings.mode ?? 'signal';
  // Only Claude Code itself takes --settings: a wrapper or the simulator read as the claude profile must not get it.
  const hooksInjected = settings.agentProfile === 'claude' && profileForProgram(program) === 'claude';
  const wt = worktree?.(checkoutCwd);
  const cwd = wt?.cwd ?? checkoutCwd;
  let agentArgv: string[];
  try {
    agentArgv = hooksInjected
      ? claudeArgv(argv, module.dir, mode, cwd, settings.claudePermissionMode ?? 'inherit')
      : settings.agentProfile === 'codex' ? codexArgv(argv) : argv;
  } catch (err) {
    if (wt) releaseWorktree(wt);
    throw err;
  }
  // Claude Code in a worktree: the checkout's skills (/autodeck-auto) and the module stay in its reach.
  if (wt && hooksInjected) agentArgv = [...agentArgv, '--add-dir', wt.repo];
  return { argv, agentArgv, cwd, mode, hooksInjected, worktree: wt };
}

/** The module a start names and the session its loop gets; StartRefused 'usage' when either is unusable. */
export function startTarget(path: string, opts: StartOptions, roots: readonly string[]): { module: TaskModule; session: string } {
  const resolved = resolveModule(path, roots);
  if (!resolved.ok) throw new StartRefused('usage', resolved.error);
  const { module } = resolved;
  const refusal = startRefusal(module.dir);
  if (refusal) throw new StartRefused('usage', `${module.name}: ${refusal}`);
  if (opts.session !== undefined && !isSessionId(opts.session)) {
    throw new StartRefused('usage', `a session id is 1 to 64 of A-Z a-z 0-9 . _ - (got ${JSON.stringify(opts.session.slice(0, 80))})`);
  }
  return { module, session: opts.session ?? sessionName(module.name, module.dir) };
}

/**
 * The new loop's row, inserted. The database is the final guard against two processes
 * starting one loop at once: losing that race is StartRefused 'conflict', and a worktree
 * made for the loop is released on any failure.
 */
export function insertLoopRow(loops: LoopStore, loop: NewLoop, moduleName: string, worktree: StartedWorktree | undefined): LoopRow {
  try {
    return loops.insert(loop);
  } catch (err) {
    if (worktree) releaseWorktree(worktree);
    if (isConstraintError(err)) {
      const winner = loops.getByTaskDir(loop.taskDir) ?? loops.get(loop.session);
      throw winner ? conflictRefusal(winner, winner.taskDir === loop.taskDir ? undefined : moduleName) : new StartRefused('conflict', `${moduleName}: a loop is already running`);
    }
    throw err;
  }
}
