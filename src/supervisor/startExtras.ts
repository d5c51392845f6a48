import { gitTopLevel } from '../paths.js';
import { resolveProgram } from '../agents/command.js';
import type { TaskModule } from '../protocol/modules.js';
import type { LoopRow } from '../store/loops.js';
import { asVerifyCommand, verifyFor, type VerifyCommand, type VerifySetting } from '../verify/command.js';
import { DEFAULT_VERIFY_ATTEMPTS } from '../verify/policy.js';
import { createWorktree, cwdInWorktree, WorktreeRefused, type LoopWorktree } from '../worktree/create.js';
import { removeIfEmpty } from '../worktree/state.js';
import type { LoopSettings } from './loop.js';
import type { VerifyConfig } from './verifyGate.js';

/**
 * What a loop's start adds for its verify and its worktree: the verify command it will run
 * (resolved once, at the start), and the worktree its agent starts in.
 */

export const DEFAULT_VERIFY_TIMEOUT_MINUTES = 10;

/** The verify of a loop on `module`, checked: its program installed when it is an argv. */
export function loopVerify(setting: VerifySetting | undefined, module: TaskModule, env: NodeJS.ProcessEnv): { command: VerifyCommand | undefined } | { error: string } {
  const cwd = gitTopLevel(module.dir) ?? module.dir;
  const found = verifyFor(setting, module.dir);
  if ('error' in found) return { error: `${module.name}: ${found.error}` };
  const command = found.command;
  if (command?.kind === 'argv' && !resolveProgram(command.argv[0]!, env, cwd)) {
    return { error: `${module.name}: the verify program ${JSON.stringify(command.argv[0])} is not installed (set "verify", or "verify" in the module's .index.json)` };
  }
  return { command };
}

export interface StartedWorktree extends LoopWorktree {
  /** Where the agent works in it. */
  cwd: string;
}

/** The loop's worktree on a new branch, or why there is none. */
export function loopWorktree(module: TaskModule, base: string | undefined, checkoutCwd: string): StartedWorktree | { error: string } {
  try {
    const wt = createWorktree({ from: module.dir, name: module.name, base });
    return { ...wt, cwd: cwdInWorktree(checkoutCwd, wt) };
  } catch (err) {
    if (err instanceof WorktreeRefused) return { error: `${module.name}: no worktree: ${err.message}` };
    throw err;
  }
}

/** A worktree made for a start that did not happen: removed (it is new and holds nothing); its branch stays. */
export function releaseWorktree(wt: StartedWorktree): void {
  try {
    removeIfEmpty(wt.repo, wt.path, { branch: wt.branch });
  } catch { /* kept: `autodeck worktrees` lists it */ }
}

/** The verify a loop runs, from what its row stored; undefined when it has none. */
export function verifyConfig(row: Pick<LoopRow, 'taskDir' | 'worktreePath'>, settings: LoopSettings, env: NodeJS.ProcessEnv, mode: 'signal' | 'hook'): VerifyConfig | undefined {
  const command = asVerifyCommand(settings.verifyCommand);
  if (!command) return undefined;
  return {
    command,
    timeoutMs: (settings.verifyTimeoutMinutes ?? DEFAULT_VERIFY_TIMEOUT_MINUTES) * 60_000,
    attempts: settings.verifyAttempts ?? DEFAULT_VERIFY_ATTEMPTS,
    cwd: row.worktreePath || (gitTopLevel(row.taskDir) ?? row.taskDir),
    env,
    mode,
  };
}
