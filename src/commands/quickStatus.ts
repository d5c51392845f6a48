import { parseArgs } from 'node:util';
import { EXIT } from './context.js';

/**
 * `autodeck status` in its common forms, without the command table and without the rest of
 * the CLI: the bin loads this module alone, as its own bundle, for `status`. Undefined: not
 * one of these calls (anything odd goes to the full CLI, which gives the help and errors).
 *
 * - `status --format tmux [--db PATH]`, run by tmux every few seconds: no settings table,
 *   one query, unless a settings file must be read in full to find the db;
 * - `status [--json] [--iterations] [--format F] [--db PATH]`, and a dashboard's look at this
 *   host over ssh (`--events-since ID --modules --claude [--claude-since TOKEN]`): the
 *   settings resolved as the full CLI does (a bad settings file is still exit 2), then the
 *   status command.
 */
export async function quickStatus(argv: string[]): Promise<number | undefined> {
  if (argv[0] !== 'status') return undefined;
  const tmux = await quickTmuxStatus(argv);
  if (tmux !== undefined) return tmux;
  const flags = quickStatusFlags(argv);
  if (flags === undefined) return undefined;
  const cwd = process.cwd();
  const { resolveSettings, formatSettingError } = await import('../config/settings.js');
  const { value: settings, errors } = resolveSettings({ flags, env: process.env, cwd });
  if (errors.length > 0) {
    process.stderr.write(`${formatSettingError(errors[0]!)}\n`);
    return EXIT.usage;
  }
  const { status } = await import('./status.js');
  return status({ args: [], flags, settings, stdout: process.stdout, stderr: process.stderr, cwd });
}

function quickStatusFlags(argv: string[]): Record<string, unknown> | undefined {
  try {
    const { values, positionals } = parseArgs({
      args: argv, allowPositionals: true, strict: true,
      options: {
        json: { type: 'boolean' }, db: { type: 'string' }, iterations: { type: 'boolean' }, format: { type: 'string' },
        // what a dashboard reading this host over ssh asks, each look
        'events-since': { type: 'string' }, modules: { type: 'boolean' }, claude: { type: 'boolean' }, 'claude-since': { type: 'string' },
      },
    });
    if (positionals.length !== 1) return undefined;
    const { 'events-since': eventsSince, 'claude-since': claudeSince, ...rest } = values;
    return { ...rest, ...(eventsSince !== undefined ? { eventsSince } : {}), ...(claudeSince !== undefined ? { claudeSince } : {}) };
  } catch {
    return undefined;
  }
}

/** Undefined: not this call, or a config file the full path must report on. */
async function quickTmuxStatus(argv: string[]): Promise<number | undefined> {
  if (!argv.some((a) => a === 'tmux' || a === '--format=tmux')) return undefined;
  let values: { format?: string | undefined; db?: string | undefined };
  try {
    ({ values } = parseArgs({ args: argv.slice(1), strict: true, options: { format: { type: 'string' }, db: { type: 'string' } } }));
  } catch {
    return undefined;
  }
  if (values.format !== 'tmux') return undefined;
  const { quickDbPath } = await import('./statusDb.js');
  const db = quickDbPath(values.db, process.env, process.cwd());
  if (db === undefined) return undefined;
  // a database named in a folder that does not exist: the full path says so (the default's
  // folder is made when first used, and no database yet is nothing to say)
  const { existsSync } = await import('node:fs');
  const { dirname } = await import('node:path');
  const { defaultDbPath } = await import('../paths.js');
  if (!existsSync(dirname(db)) && db !== defaultDbPath(process.env)) return undefined;
  const { tmuxStatus } = await import('./statusTmux.js');
  process.stdout.write(`${tmuxStatus(db)}\n`);
  return 0;
}
