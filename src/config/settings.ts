import { parsePrices } from '../spend/prices.js';
import { parseContextWindows } from '../spend/context.js';
import { EMPTY_POLICY, mergePolicies, parsePolicy } from '../policy/parse.js';
import { resolve } from 'node:path';
import { homeDir, projectConfigPath, userConfigPath } from '../paths.js';
import type { SettingError } from './errors.js';
import { readConfigFile, type ConfigFile } from './files.js';
import type { ParseContext } from './kinds.js';
import { SETTINGS_TABLE, type SettingRow, type Settings } from './schema.js';

export { formatSettingError, type SettingError } from './errors.js';
export { controlKeyByte } from './kinds.js';
export {
  AGENT_PROFILES, BACKENDS, MODES, NOTIFY_CHANNELS, SETTINGS_TABLE, profileForProgram,
  type AgentProfile, type Backend, type Mode, type NotifyChannel, type SettingName, type SettingRow, type Settings,
} from './schema.js';

export interface ResolveInput {
  /** The parsed flags (camelCase flag keys, src/cli/parse.ts); other commands' flags are ignored. */
  flags: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface ResolveResult {
  /** Always complete: a bad value falls back to the next source, so callers can still show it. */
  value: Settings;
  /** Non-empty means: print each with formatSettingError and exit 2 before starting anything. */
  errors: SettingError[];
}

/** One place a value may come from, highest precedence first. */
interface Candidate {
  source: string;
  raw: unknown;
  ctx: ParseContext;
}

// An absent flag is `undefined`; an empty list counts as absent too.
const isSet = (raw: unknown): boolean =>
  raw !== undefined && raw !== null && !(Array.isArray(raw) && raw.length === 0);

function candidates(
  row: SettingRow,
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  files: readonly ConfigFile[],
  cwd: string,
  home: string,
): Candidate[] {
  const out: Candidate[] = [];
  // The setting name is accepted too, for programmatic callers (`{ timeoutMinutes: 0.05 }`).
  const flag = [flags[row.flagKey], flags[row.name]].find(isSet);
  if (flag !== undefined) out.push({ source: row.flag, raw: flag, ctx: { origin: 'flag', baseDir: cwd, home } });
  // An empty variable counts as unset, as `AUTODECK_X= autodeck` is how one unsets it inline.
  const fromEnv = env[row.env];
  if (fromEnv) out.push({ source: row.env, raw: fromEnv, ctx: { origin: 'env', baseDir: cwd, home } });
  for (const f of files) {
    const raw = f.values[row.name];
    if (raw !== undefined) out.push({ source: f.path, raw, ctx: { origin: 'file', baseDir: f.dir, home } });
  }
  return out;
}

/**
 * Precedence: flags > environment > project `.autodeck.json` > user config > defaults.
 * Every source that is present is checked, not only the winner, so a broken config
 * file is reported even while a flag overrides it.
 */
export function resolveSettings(input: ResolveInput): ResolveResult {
  const env = input.env ?? process.env;
  const cwd = resolve(input.cwd ?? process.cwd());
  const home = homeDir(env);
  const errors: SettingError[] = [];

  const files: ConfigFile[] = [];
  for (const path of new Set([projectConfigPath(cwd), userConfigPath(env)])) {
    const read = readConfigFile(path);
    errors.push(...read.errors);
    if (read.file) files.push(read.file);
  }

  const resolved: Partial<Settings> = {};
  const put = resolved as Record<string, unknown>;
  for (const row of SETTINGS_TABLE) {
    let chosen: { value: unknown } | undefined;
    for (const c of candidates(row, input.flags, env, files, cwd, home)) {
      const parsed = row.kind.parse(c.raw, c.ctx);
      if (!parsed.ok) errors.push({ setting: row.name, source: c.source, message: parsed.message });
      else chosen ??= { value: parsed.value };
    }
    put[row.name] = chosen ? chosen.value : row.default.value({ env, cwd, resolved });
  }
  // Interpreted elsewhere (agent pattern extensions); the project's wins over the user's.
  resolved.profiles = files.find((f) => f.values.profiles !== undefined)?.values.profiles;
  // Prices: the project's file wins over the user's, whole.
  const priceFile = files.find((f) => f.values.prices !== undefined);
  const prices = parsePrices(priceFile?.values.prices);
  if ('error' in prices) errors.push({ setting: 'prices', source: priceFile!.path, message: prices.error });
  resolved.prices = 'value' in prices ? prices.value : {};
  // Context windows: likewise.
  const windowFile = files.find((f) => f.values.contextWindows !== undefined);
  const windows = parseContextWindows(windowFile?.values.contextWindows);
  if ('error' in windows) errors.push({ setting: 'contextWindows', source: windowFile!.path, message: windows.error });
  resolved.contextWindows = 'value' in windows ? windows.value : {};
  // The approval policy: the project's rules first (first match wins), then the user's.
  let approval = EMPTY_POLICY;
  for (const f of [...files].reverse()) {
    const parsed = parsePolicy(f.values.approval);
    if ('error' in parsed) errors.push({ setting: 'approval', source: f.path, message: parsed.error });
    else approval = mergePolicies(parsed.value, approval);
  }
  resolved.approval = approval;

  return { value: resolved as Settings, errors };
}
