import { gitTopLevel } from '../paths.js';
import { resolveProgram } from '../agents/command.js';
import type { TaskModule } from '../protocol/modules.js';
import type { LoopRow } from '../store/loops.js';
import { asVerifyCommand, verifyFor, type VerifyCommand, type VerifySetting } from '../verify/command.js';
import { DEFAULT_VERIFY_ATTEMPTS } from '../verify/policy.js';
import type { LoopSettings } from './loopSpec.js';
import type { VerifyConfig } from './verifyGate.js';

/**
 * A loop's verify: resolved once when the loop starts (and kept with its row), and its
 * configuration rebuilt from that row by whoever owns the loop.
 */

export const DEFAULT_VERIFY_TIMEOUT_MINUTES = 10;

/** The verify of a new loop on `module`, checked: its program installed when it is an argv. */
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
