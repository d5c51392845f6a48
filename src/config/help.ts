import { SETTINGS_TABLE } from './schema.js';

/** What meow needs per flag. All strings: meow would coerce numbers silently, we want our own errors. */
export type MeowSettingFlag =
  | { readonly type: 'string'; readonly isMultiple?: false }
  | { readonly type: 'string'; readonly isMultiple: true }
  | { readonly type: 'boolean' };

/** The settings' flags, to spread into meow's `flags` next to command-specific ones. */
export function meowFlags(): Record<string, MeowSettingFlag> {
  return Object.fromEntries(
    SETTINGS_TABLE.map((r) => [r.flagKey, r.kind.boolean ? { type: 'boolean' } : r.kind.multiple ? { type: 'string', isMultiple: true } : { type: 'string' }]),
  );
}

type FlagSpec = { readonly type: 'string' | 'boolean'; readonly isMultiple?: boolean };

/** The same flags, each one accepted any number of times (meow refuses a repeat otherwise). */
export function repeatable<T extends Record<string, FlagSpec>>(flags: T): { [K in keyof T]: T[K] & { isMultiple: true } } {
  return Object.fromEntries(Object.entries(flags).map(([k, f]) => [k, { ...f, isMultiple: true }])) as { [K in keyof T]: T[K] & { isMultiple: true } };
}

/**
 * Parsed flags back to their declared shape: a flag declared multiple keeps its list, any
 * other takes its last value (`--grace 5 --grace 9` is 9) or is absent when not given.
 * Keys meow added (camelCase twins, unknown ones) pass through unchanged.
 */
export function lastWins(parsed: Record<string, unknown>, declared: Record<string, FlagSpec>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(parsed)) {
    const spec = declared[k];
    if (!spec || spec.isMultiple || !Array.isArray(v)) out[k] = v;
    else if (v.length > 0) out[k] = v.at(-1);
  }
  return out;
}

/**
 * The settings part of `--help`: per setting, its flag and description, then its
 * range, default, environment variable and config-file key.
 */
export function settingsHelp(): string {
  const heads = SETTINGS_TABLE.map((r) => `${r.flag} ${r.kind.arg}`.trimEnd());
  const width = Math.max(...heads.map((h) => h.length)) + 2;
  const pad = ' '.repeat(width + 2);
  const lines = SETTINGS_TABLE.flatMap((r, i) => [
    `  ${heads[i]!.padEnd(width)}${r.description}`,
    `${pad}${[r.kind.range, `default ${r.default.text}`, r.env, `"${r.name}"`].filter(Boolean).join(' · ')}`,
  ]);
  return [
    'Settings (highest first: flag, environment, .autodeck.json at the git top level,',
    '$XDG_CONFIG_HOME/autodeck/config.json, default)',
    ...lines,
    '',
    'In the environment, roots are separated like PATH; in config files "agent" may be a',
    'string or an array of strings, and relative paths are relative to the file.',
  ].join('\n');
}
