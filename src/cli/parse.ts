import meow from 'meow';
import { CliError, EXIT } from '../commands/context.js';
import { SETTINGS_TABLE, type SettingRow } from '../config/schema.js';
import { COMMANDS } from './commands.js';
import { usageLine, type CommandSpec } from './spec.js';
import { didYouMean } from './suggest.js';

/**
 * A command line read against the command table: a help or version request, or a command
 * (undefined: the dashboard) with its words and its flags. Every usage error is a CliError
 * with exit 2, one line that names the fix. No I/O but meow's reading of package.json.
 *
 * meow reads the values (one call, every flag of every command: a flag has one type
 * wherever it appears); what meow lets pass is checked here against the command's own
 * flags, on the words as typed: an unknown flag (meow drops some, `--Json`, and keeps
 * others), a string flag with no value (meow gives nothing, as if it were not there), a
 * switch given a value, a word the command does not take.
 */
export type CommandLine =
  | { kind: 'help'; topic: 'overview' | 'settings' | CommandSpec }
  | { kind: 'version'; version: string }
  | { kind: 'command'; command: CommandSpec | undefined; args: string[]; flags: Record<string, unknown> };

interface Known {
  type: 'boolean' | 'string';
  /** Placeholder for a string flag's value. */
  value: string;
  /** A setting's list flag collects every value (`--root a --root b`); any other flag keeps its last. */
  multiple: boolean;
  /** The camelCase key the value is given under (`refuse-failed` -> `refuseFailed`). */
  key: string;
}

const camel = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const usageError = (message: string): CliError => new CliError(`autodeck: ${message}`, EXIT.usage);
const quoted = (words: readonly string[]): string => words.map((w) => JSON.stringify(w)).join(' ');
/** A word that reads as a flag: `--json`, `-x`; not `-` (stdin) nor a negative number. */
const flagLike = (word: string): boolean => /^-[^\d.]/.test(word);

/** The settings' flags; a switch (`--worktree`) takes no value, and its `--no-` form sets it false. */
function settingFlags(settings: readonly SettingRow[]): Map<string, Known> {
  return new Map(settings.map((r): [string, Known] => [r.flag.slice(2), r.kind.boolean
    ? { type: 'boolean', value: '', multiple: false, key: r.flagKey }
    : { type: 'string', value: r.kind.arg, multiple: r.kind.multiple === true, key: r.flagKey }]));
}

export function parseCommandLine(argv: readonly string[], commands: readonly CommandSpec[] = COMMANDS, settings: readonly SettingRow[] = SETTINGS_TABLE): CommandLine {
  const everyFlag = new Map<string, Known>(settingFlags(settings));
  for (const c of commands) for (const f of c.flags) everyFlag.set(f.name, { type: f.type, value: f.value ?? '', multiple: false, key: camel(f.name) });
  const cli = meow({
    importMeta: import.meta,
    argv: [...argv],
    // every flag may be given twice (the last wins, silently): meow refuses a repeat unless it collects
    flags: Object.fromEntries([...everyFlag.values()].map((k) => [k.key, { type: k.type, isMultiple: true }])),
    allowUnknownFlags: true,
    autoHelp: false,
    autoVersion: false,
    booleanDefault: undefined,
    description: false,
  });

  // After `--` every word is a word; meow puts them at the end of its input.
  const end = argv.indexOf('--');
  const typed = end < 0 ? argv : argv.slice(0, end);
  const after = end < 0 ? [] : argv.slice(end + 1);
  const before = cli.input.slice(0, cli.input.length - after.length);
  const [word, ...rest] = before;
  const args = [...rest, ...after];

  if (word === 'help') return { kind: 'help', topic: helpTopic(args, commands) };
  const command = word === undefined ? undefined : commands.find((c) => c.name === word);
  if (word !== undefined && !command) throw unknownCommand(word, commands);
  if (typed.includes('--help') || typed.includes('-h')) return { kind: 'help', topic: command ?? 'overview' };
  if (typed.includes('--version')) return { kind: 'version', version: cli.pkg.version ?? '' };

  const own = new Map((command?.flags ?? []).map((f) => [f.name, everyFlag.get(f.name)!]));
  for (const [name, k] of settingFlags(settings)) own.set(name, k);
  checkFlags(typed, command, own, commands);
  checkArgs(command, args);
  return { kind: 'command', command, args, flags: valuesOf(cli.flags, typed, own) };
}

/** The flags as typed, checked against `own` (the command's and the settings'), in order: the first fault is the one said. */
function checkFlags(typed: readonly string[], command: CommandSpec | undefined, own: ReadonlyMap<string, Known>, commands: readonly CommandSpec[]): void {
  for (let i = 0; i < typed.length; i++) {
    const word = typed[i]!;
    if (!flagLike(word) || word === '-h' || word === '--help' || word === '--version') continue;
    const eq = word.indexOf('=');
    const name = word.startsWith('--') ? word.slice(2, eq < 0 ? undefined : eq) : '';
    const known = own.get(name) ?? (name.startsWith('no-') && own.get(name.slice(3))?.type === 'boolean' ? own.get(name.slice(3)) : undefined);
    if (!known) throw unknownFlag(word, command, [...own.keys()], commands);
    const raw = eq < 0 ? word : word.slice(0, eq);
    if (known.type === 'boolean') {
      if (eq >= 0) throw usageError(`${raw} takes no value (got ${JSON.stringify(word.slice(eq + 1))}); see autodeck help${command ? ` ${command.name}` : ''}`);
      continue;
    }
    if (eq >= 0) continue;
    const value = typed[i + 1];
    // meow reads `--title --json` as no title at all: a word that looks like a flag means the
    // value is missing; a negative number is a value
    if (value === undefined || flagLike(value)) {
      const hint = value === undefined ? '' : ` (got the flag ${value}; a value that starts with a dash goes as ${raw}=${value})`;
      throw usageError(`${raw} needs a value: ${raw} ${known.value}${hint}`);
    }
    i++;
  }
}

/** meow's values in the shape the commands take: a list flag keeps its list, any other its last value; one not given is absent. */
function valuesOf(parsed: Record<string, unknown>, typed: readonly string[], own: ReadonlyMap<string, Known>): Record<string, unknown> {
  const flags: Record<string, unknown> = {};
  for (const [name, k] of own) {
    let values = (parsed[k.key] as unknown[] | undefined) ?? [];
    // `--title=` is an empty value, which meow drops: the command says what is wrong with it
    if (values.length === 0 && k.type === 'string' && typed.includes(`--${name}=`)) values = [''];
    if (values.length === 0) continue;
    flags[k.key] = k.multiple ? values.map(String) : k.type === 'string' ? String(values.at(-1)) : values.at(-1);
  }
  return flags;
}

function helpTopic(args: readonly string[], commands: readonly CommandSpec[]): 'overview' | 'settings' | CommandSpec {
  if (args.length > 1) throw usageError(`help takes one topic (got ${quoted(args)}); autodeck help COMMAND`);
  const [topic] = args;
  if (topic === undefined) return 'overview';
  if (topic === 'settings') return 'settings';
  const command = commands.find((c) => c.name === topic);
  if (!command) throw unknownCommand(topic, commands, ['settings']);
  return command;
}

function unknownCommand(word: string, commands: readonly CommandSpec[], others: readonly string[] = []): CliError {
  const hint = didYouMean(word, [...commands.map((c) => c.name), 'help', ...others]);
  if (hint) return usageError(`unknown command "${word}" (did you mean ${hint}?); autodeck help lists the commands`);
  if (word.includes('/')) return usageError(`unknown command "${word}"; to run a loop on a task module: autodeck run ${word}`);
  return usageError(`unknown command "${word}"; autodeck help lists the commands`);
}

function unknownFlag(raw: string, command: CommandSpec | undefined, accepted: readonly string[], commands: readonly CommandSpec[]): CliError {
  const where = command ? ` for ${command.name}` : '';
  const helpOf = command ? `autodeck help ${command.name}` : 'autodeck help settings';
  const whose = command ? 'its' : "the dashboard's";
  const name = raw.replace(/^-+/, '').split('=')[0]!;
  // `-json`: one dash reads as the letters -j -s -o -n
  if (!raw.startsWith('--') && name.length > 1) return usageError(`unknown flag ${raw}${where}; flags take two dashes (--${name}); ${helpOf} lists ${whose} flags`);
  const elsewhere = commands.filter((c) => c !== command && c.flags.some((f) => f.name === name)).map((c) => c.name);
  if (elsewhere.length > 0 && raw.startsWith('--')) {
    return usageError(`${command ? command.name : 'the dashboard'} takes no --${name} (a flag of ${elsewhere.join(', ')}); ${helpOf} lists ${whose} flags`);
  }
  const hint = didYouMean(`--${name}`, [...accepted.map((f) => `--${f}`), '--help', '--version']);
  return usageError(`unknown flag ${raw.split('=')[0]}${where}${hint ? ` (did you mean ${hint}?)` : ''}; ${helpOf} lists ${whose} flags`);
}

function checkArgs(command: CommandSpec | undefined, args: readonly string[]): void {
  if (!command) {
    if (args.length > 0) throw usageError(`the dashboard takes no words (got ${quoted(args)}); autodeck help lists the commands`);
    return;
  }
  const { min, max, usage } = command.args;
  const line = usageLine(command);
  if (args.length < min) throw usageError(`${command.name} needs ${usage.replace(/\.\.\.$/, '')}: ${line}`);
  if (args.length > max) {
    const extra = args.slice(max);
    throw usageError(max === 0
      ? `${command.name} takes no other words (got ${quoted(extra)}): ${line}`
      : `${command.name} takes ${max === 1 ? `one ${usage.replace(/[[\]]/g, '')}` : `${max} words`} (got ${args.length}: ${quoted(args)}): ${line}`);
  }
}
