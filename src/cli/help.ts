import wrapAnsi from 'wrap-ansi';
import { SETTINGS_TABLE, type SettingRow } from '../config/schema.js';
import { COMMANDS, GROUP_TITLES } from './commands.js';
import { usageLine } from './parse.js';
import type { CommandSpec, FlagSpec } from './spec.js';

/** Every help text fits a terminal of this many columns. */
export const HELP_WIDTH = 80;

/** `text` wrapped to the help width, every line indented by `indent` spaces. */
function paragraph(text: string, indent = 0): string[] {
  return wrapAnsi(text, HELP_WIDTH - indent, { hard: true, trim: true }).split('\n').map((l) => `${' '.repeat(indent)}${l}`);
}

/**
 * Two columns: each head (a flag, a command) at `indent`, its text beside it, wrapped
 * under itself; a head too wide for the column gets its text on the next line.
 */
function twoColumns(rows: readonly (readonly [string, string])[], indent = 2, head = headWidth(rows)): string[] {
  const width = head + 2;
  const pad = ' '.repeat(indent + width);
  return rows.flatMap(([head, text]) => {
    const lines = wrapAnsi(text, HELP_WIDTH - indent - width, { hard: true, trim: true }).split('\n');
    const first = `${' '.repeat(indent)}${head}`;
    if (head.length + 2 > width) return [first, ...lines.map((l) => `${pad}${l}`)];
    return [`${first.padEnd(indent + width)}${lines[0]}`, ...lines.slice(1).map((l) => `${pad}${l}`)];
  });
}

/** The head column's width: the widest head, at most 24 (a wider one gets its own line). */
const headWidth = (rows: readonly (readonly [string, string])[]): number => Math.min(24, Math.max(0, ...rows.map(([h]) => h.length)));

/** `(default 30)`; a default with its own note reads `(default 0, off)`. */
const withDefault = (text: string, def: string | undefined): string =>
  (def === undefined ? text : `${text} (default ${def.replace(/^(.*?) \((.*)\)$/, '$1, $2')})`);
const flagHead = (f: FlagSpec): string => (f.type === 'string' ? `--${f.name} ${f.value ?? 'VALUE'}` : `--${f.name}`);
const settingHead = (r: SettingRow): string => `${r.flag} ${r.kind.arg}`;

/** `autodeck help COMMAND`, `autodeck COMMAND --help`. */
export function commandHelp(c: CommandSpec): string {
  const settings = c.settings.map((name) => SETTINGS_TABLE.find((r) => r.name === name)!);
  const out = [`Usage: ${usageLine(c)}`, '', ...paragraph(`${c.summary[0]!.toUpperCase()}${c.summary.slice(1)}.${c.about ? ` ${c.about}` : ''}`)];
  out.push('', 'Flags', ...twoColumns([
    ...c.flags.map((f): [string, string] => [flagHead(f), withDefault(f.description, f.default)]),
    ['-h, --help', 'this help'],
  ]));
  if (settings.length > 0) {
    out.push('', 'Settings (also AUTODECK_* variables or .autodeck.json: autodeck help settings)', ...twoColumns(
      settings.map((r): [string, string] => [settingHead(r), withDefault(r.description, r.default.text)]),
    ));
    if (c.moreSettings) out.push(...paragraph('...and every other setting: autodeck help settings', 2));
  }
  out.push('', 'Example', ...paragraph(c.example.command, 2), ...paragraph(c.example.says, 4));
  if (c.exits) out.push('', ...paragraph(`Exit codes: ${c.exits}.`));
  return `${out.join('\n')}\n`;
}

export const EXIT_CODES_TEXT = 'Exit codes: 0 done as asked, 1 a loop ended another way or nothing was found, ' +
  '2 usage or settings error, 3 conflict (already running), 130 interrupted.';

/** `autodeck help`, `autodeck --help`: what autodeck is, and every command in one line. */
export function overviewHelp(version: string): string {
  const out = [
    `autodeck ${version}: a terminal dashboard for autonomous coding-agent loops`,
    '',
    'Usage: autodeck [COMMAND] [flags]',
    '',
    ...paragraph('With no command: the dashboard (needs a terminal; press ? in it for the keys). ' +
      'Its flags are the settings: autodeck help settings.'),
  ];
  const width = headWidth(COMMANDS.map((c) => [c.name, ''] as const));
  for (const [group, title] of Object.entries(GROUP_TITLES)) {
    const rows = COMMANDS.filter((c) => c.group === group).map((c): [string, string] => [c.name, c.summary]);
    if (rows.length > 0) out.push('', title, ...twoColumns(rows, 2, width));
  }
  out.push(
    '',
    ...twoColumns([
      ['autodeck help COMMAND', 'its flags, defaults and an example (or COMMAND --help)'],
      ['autodeck help settings', 'every setting: flag, default, variable, file key'],
    ], 0),
    '',
    ...paragraph(EXIT_CODES_TEXT),
  );
  return `${out.join('\n')}\n`;
}

/** `autodeck help settings`: per setting, its flag and what it does, then range, default, variable and file key. */
export function settingsHelp(): string {
  const out = [
    ...paragraph('Settings, highest first: a flag, the environment, .autodeck.json at the git top level, ' +
      '$XDG_CONFIG_HOME/autodeck/config.json, the default. Every command takes every flag below.'),
    '',
  ];
  for (const r of SETTINGS_TABLE) {
    out.push(`  ${settingHead(r)}`, ...paragraph(r.description, 6),
      ...paragraph([r.kind.range, `default ${r.default.text}`, r.env, `"${r.name}"`].filter(Boolean).join(' · '), 6));
  }
  out.push('', ...paragraph('In the environment, roots are separated like PATH; in config files "agent" may be ' +
    'a string or an array of strings, and relative paths are relative to the file.'));
  return `${out.join('\n')}\n`;
}
