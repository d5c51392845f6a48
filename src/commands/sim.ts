import { runSim } from '../sim/agent.js';
import { CliError, type CommandContext } from './context.js';

/** `autodeck sim TASK_DIR`: the simulated agent. */
export async function sim(ctx: CommandContext): Promise<number> {
  const dir = ctx.args[0];
  if (!dir) throw new CliError('autodeck sim: name a task module folder');
  const code = await runSim(dir);
  // stdin may still be open after a prompt was read: end like an agent does, now.
  process.exit(code);
}

/** `autodeck sim TASK_DIR [agent flags…]`: the flags after the folder are the agent's, ignored. */
export async function simMain(dir: string): Promise<number> {
  const code = await runSim(dir);
  process.exit(code);
}
