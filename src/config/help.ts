import { SETTINGS_TABLE } from './schema.js';

/** What meow needs per flag. All strings: meow would coerce numbers silently, we want our own errors. */
export type MeowSettingFlag =
  | { readonly type: 'string'; readonly isMultiple?: false }
  | { readonly type: 'string'; readonly isMultiple: true };

/** The settings' flags, to spread into meow's `flags` next to command-specific ones. */
export function meowFlags(): Record<string, MeowSettingFlag> {
  return Object.fromEntries(
    SETTINGS_TABLE.map((r) => [r.flagKey, r.kind.multiple ? { type: 'string', isMultiple: true } : { type: 'string' }]),
  );
}

/**
 * The settings part of `--help`: per setting, its flag and description, then its
 * range, default, environment variable and config-file key.
 */
export function settingsHelp(): string {
  const heads = SETTINGS_TABLE.map((r) => `${r.flag} ${r.kind.arg}`);
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
