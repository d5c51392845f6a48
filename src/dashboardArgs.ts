import { parseArgs } from 'node:util';

/**
 * The dashboard's own call, `autodeck [--setting VALUE]...`, read with the settings table
 * alone: it runs inside the dashboard bundle, which must not take in the command table (and
 * with it every command). Only settings flags, each with a value (repeats: the last wins, a
 * list setting collects); anything else, or anything odd, goes to the full command-line
 * parser (src/cli/parse.ts), which gives the help and the errors.
 */
export async function quickDashboardArgs(argv: string[]): Promise<{ input: string[]; flags: Record<string, unknown> } | undefined> {
  if (argv.length > 0 && !argv[0]!.startsWith('--')) return undefined;
  if (argv.some((a) => a === '--help' || a === '--version' || a === '--')) return undefined;
  const { SETTINGS_TABLE } = await import('./config/schema.js');
  const options = Object.fromEntries(SETTINGS_TABLE.map((r) => [r.flag.slice(2), { type: 'string', multiple: true } as const]));
  let values: Record<string, string[] | undefined>;
  try {
    const parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: false });
    values = parsed.values as Record<string, string[] | undefined>;
  } catch {
    return undefined;
  }
  const flags: Record<string, unknown> = {};
  for (const r of SETTINGS_TABLE) {
    const given = values[r.flag.slice(2)];
    if (given === undefined) continue;
    // a value the full parser must judge (empty, or a flag-like word) goes to it
    if (given.some((v) => v === '' || v.startsWith('-'))) return undefined;
    flags[r.flagKey] = r.kind.multiple ? given : given.at(-1);
  }
  return { input: [], flags };
}
