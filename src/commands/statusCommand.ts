import type { CommandContext } from './context.js';

/**
 * `autodeck status` as the command table runs it: with `--host` (or `--no-local`), every
 * host's loops, read over ssh (src/hosts/status.ts); else this machine's. Other hosts only
 * when named on the command line: a settings file's hosts are the dashboard's, and tmux runs
 * `status` every few seconds. (The bin's quick path for `status` never takes these flags,
 * so its bundle holds none of the ssh code.)
 */
export async function statusCommand(ctx: CommandContext): Promise<number> {
  const hosts = ctx.flags.host;
  if ((Array.isArray(hosts) && hosts.length > 0) || typeof hosts === 'string' || ctx.flags.local === false) {
    return (await import('../hosts/status.js')).statusOfHosts(ctx);
  }
  return (await import('./status.js')).status(ctx);
}
