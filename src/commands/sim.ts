import { runSim } from '../sim/agent.js';
import { CliError, type CommandContext } from './context.js';

/** `autodeck sim TASK_DIR`: the simulated agent (SPEC 10). */
export async function sim(ctx: CommandContext): Promise<number> {
  const dir = ctx.args[0];
  if (!dir) throw new CliError('autodeck sim: name a task module folder');
  return runSim(dir);
}
