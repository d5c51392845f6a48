import { parseArgs } from 'node:util';
import { CliError, EXIT } from '../commands/context.js';
import { SETTINGS_TABLE, type SettingRow } from '../config/schema.js';
import { COMMANDS } from './commands.js';
import type { CommandSpec } from './spec.js';
import { didYouMean } from './suggest.js';

/**
 * A command line read against the command table: a help or version request, or a command
 * (undefined: the dashboard) with its words and its flags. Every usage error is a CliError
 * with exit 2, one line that names the fix. Pure: no I/O.
 */
export type CommandLine =
  | { kind: 'help'; topic: 'overview' | 'settings' | CommandSpec }
  | { kind: 'version' }
  | { kind: 'command'; command: CommandSpec | undefined; args: string[]; flags: Record<string, unknown> };

interface Known {
  type: 'boolean' | 'string';
  /** Placeholder for a string flag's value. */
  value: string;
  /** A setting's list flag collects every value (`--root a --root b`); any other flag keeps its last. */
  multiple: boolean;
  key: string;
}

const camel = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const usageError = (message: string): CliError => new CliError(`autodeck: ${message}`, EXIT.usage);
const quoted = (words: readonly string[]): string => words.map((w) => JSON.stringify(w)).join(' ');

export function usageLine(command: CommandSpec | undefined): string {
  if (!command) return 'autodeck [flags]';
  return ['autodeck', command.name, command.args.usage, '[flags]'].filter(Boolean).join(' ');
}

function settingFlags(settings: readonly SettingRow[]): Map<string, Known> {
  return new Map(settings.map((r) => [r.flag.slice(2), { type: 'string', value: r.kind.arg, multiple: r.kind.multiple === true, key: r.flagKey }]));
}

export function parseCommandLine(argv: readonly string[], commands: readonly CommandSpec[] = COMMANDS, settings: readonly SettingRow[] = SETTINGS_TABLE): CommandLine {
  const everyFlag = new Map<string, Known>(settingFlags(settings));
  for (const c of commands) for (const f of c.flags) everyFlag.set(f.name, { type: f.type, value: f.value ?? '', multiple: false, key: camel(f.name) });
  const options = Object.fromEntries([...everyFlag].map(([name, k]) => [name, { type: k.type, multiple: true }]));
  const { tokens } = parseArgs({
    args: [...argv], strict: false, allowPositionals: true, tokens: true,
    options: { ...options, help: { type: 'boolean', short: 'h', multiple: true }, version: { type: 'boolean', multiple: true } },
  });

  // The command is the first word before any `--`; every other word is its.
  let terminated = false;
  let word: string | undefined;
  let wordAt = -1;
  const args: string[] = [];
  let help = false;
  let version = false;
  for (const t of tokens) {
    if (t.kind === 'option-terminator') terminated = true;
    else if (t.kind === 'positional') {
      if (!terminated && word === undefined && args.length === 0) [word, wordAt] = [t.value, t.index];
      else args.push(t.value);
    } else if (!terminated && t.name === 'help') help = true;
    else if (!terminated && t.name === 'version') version = true;
  }

  if (word === 'help') return { kind: 'help', topic: helpTopic(args, commands) };
  const command = word === undefined ? undefined : commands.find((c) => c.name === word);
  if (word !== undefined && !command) {
    // `--max-iter 3`: an unknown flag took no value, so its value reads as the command
    const stray = tokens.find((t) => t.kind === 'option' && !everyFlag.has(t.name) && t.name !== 'help' && t.name !== 'version');
    if (stray?.kind === 'option' && wordAt > stray.index) {
      throw unknownFlag(stray.rawName.startsWith('--') ? stray.rawName : argv[stray.index]!, undefined, [...settingFlags(settings).keys()], commands);
    }
    throw unknownCommand(word, commands);
  }
  if (help) return { kind: 'help', topic: command ?? 'overview' };
  if (version) return { kind: 'version' };

  const own = new Map((command?.flags ?? []).map((f) => [f.name, everyFlag.get(f.name)!]));
  for (const [name, k] of settingFlags(settings)) own.set(name, k);
  const flags: Record<string, unknown> = {};
  for (const t of tokens) {
    if (t.kind !== 'option' || t.name === 'help' || t.name === 'version') continue;
    const known = own.get(t.name);
    if (!known) throw unknownFlag(t.rawName.startsWith('--') ? t.rawName : argv[t.index]!, command, [...own.keys()], commands);
    if (known.type === 'boolean') {
      if (t.inlineValue) throw usageError(`${t.rawName} takes no value (got ${JSON.stringify(t.value)}); see autodeck help${command ? ` ${command.name}` : ''}`);
      flags[known.key] = true;
      continue;
    }
    const value = t.value;
    // parseArgs takes the next word as the value, whatever it is: `--title --json` would
    // title the module "--json". A word that looks like a flag means the value is missing;
    // a negative number is a value.
    if (value === undefined || (!t.inlineValue && /^-[^\d.]/.test(value))) {
      const hint = value === undefined ? '' : ` (got the flag ${value}; a value that starts with a dash goes as ${t.rawName}=${value})`;
      throw usageError(`${t.rawName} needs a value: ${t.rawName} ${known.value}${hint}`);
    }
    flags[known.key] = known.multiple ? [...((flags[known.key] as string[] | undefined) ?? []), value] : value;
  }
  checkArgs(command, args);
  return { kind: 'command', command, args, flags };
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
  const name = raw.replace(/^-+/, '').split('=')[0]!;
  // `-json`: one dash reads as the letters -j -s -o -n
  if (!raw.startsWith('--') && name.length > 1) {
    return usageError(`unknown flag ${raw}${where}; flags take two dashes (--${name}); ${helpOf} lists ${command ? 'its' : 'the dashboard\'s'} flags`);
  }
  const elsewhere = commands.filter((c) => c !== command && c.flags.some((f) => f.name === name)).map((c) => c.name);
  if (elsewhere.length > 0 && raw.startsWith('--')) {
    return usageError(`${command ? command.name : 'the dashboard'} takes no ${raw} (a flag of ${elsewhere.join(', ')}); ${helpOf} lists ${command ? 'its' : 'the dashboard\'s'} flags`);
  }
  const hint = didYouMean(`--${name}`, [...accepted.map((f) => `--${f}`), '--help', '--version']);
  return usageError(`unknown flag ${raw}${where}${hint ? ` (did you mean ${hint}?)` : ''}; ${helpOf} lists ${command ? 'its' : 'the dashboard\'s'} flags`);
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
