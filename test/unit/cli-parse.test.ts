import { describe, expect, it } from 'vitest';
import { parseCommandLine, type CommandLine } from '../../src/cli/parse.js';
import { commandHelp, HELP_WIDTH, overviewHelp, settingsHelp } from '../../src/cli/help.js';
import { COMMANDS, commandNamed } from '../../src/cli/commands.js';
import { didYouMean } from '../../src/cli/suggest.js';
import { isCliError } from '../../src/commands/context.js';
import { SETTINGS_TABLE } from '../../src/config/schema.js';
import stringWidth from 'string-width';
import { hookUsageError } from '../../src/commands/hook.js';

/** The one-line usage error a command line gets (and that it is one: exit 2, the prefix). */
function refusal(argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (err) {
    if (!isCliError(err)) throw err;
    expect(err.code).toBe(2);
    expect(err.message).toMatch(/^autodeck: /);
    expect(err.message).not.toContain('\n');
    return err.message;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
}

const command = (argv: string[]): Extract<CommandLine, { kind: 'command' }> => {
  const line = parseCommandLine(argv);
  if (line.kind !== 'command') throw new Error(`not a command: ${line.kind}`);
  return line;
};

describe('the command line', () => {
  it('asks for help in every usual way: -h, --help, help, help CMD, CMD --help, CMD -h', () => {
    const run = commandNamed('run')!;
    expect(parseCommandLine(['-h'])).toEqual({ kind: 'help', topic: 'overview' });
    expect(parseCommandLine(['--help'])).toEqual({ kind: 'help', topic: 'overview' });
    expect(parseCommandLine(['help'])).toEqual({ kind: 'help', topic: 'overview' });
    expect(parseCommandLine(['help', 'settings'])).toEqual({ kind: 'help', topic: 'settings' });
    for (const argv of [['help', 'run'], ['run', '--help'], ['run', '-h'], ['run', 'AiTasks/x', '--max-iteratons', '5', '--help']]) {
      expect(parseCommandLine(argv), argv.join(' ')).toEqual({ kind: 'help', topic: run });
    }
    // after `--` it is a word like any other
    expect(command(['run', '--', '--help']).args).toEqual(['--help']);
    expect(parseCommandLine(['status', '--version'])).toEqual({ kind: 'version' });
  });

  it('suggests the command meant, or what to do with a path', () => {
    expect(refusal(['stauts'])).toBe('autodeck: unknown command "stauts" (did you mean status?); autodeck help lists the commands');
    expect(refusal(['hlep'])).toMatch(/did you mean help\?/);
    expect(refusal(['help', 'histroy'])).toMatch(/unknown command "histroy" \(did you mean history\?\)/);
    expect(refusal(['AiTasks/fix-login'])).toBe('autodeck: unknown command "AiTasks/fix-login"; to run a loop on a task module: autodeck run AiTasks/fix-login');
    expect(refusal(['frobnicate'])).toBe('autodeck: unknown command "frobnicate"; autodeck help lists the commands');
    expect(refusal(['help', 'run', 'status'])).toMatch(/help takes one topic/);
  });

  it('suggests the flag meant, and says whose flag it is', () => {
    expect(refusal(['run', 'AiTasks/x', '--max-iteratons', '5']))
      .toBe('autodeck: unknown flag --max-iteratons for run (did you mean --max-iterations?); autodeck help run lists its flags');
    expect(refusal(['status', '--jsno'])).toMatch(/unknown flag --jsno for status \(did you mean --json\?\)/);
    expect(refusal(['--max-iter', '3'])).toBe("autodeck: unknown flag --max-iter (did you mean --max-iterations?); autodeck help settings lists the dashboard's flags");
    expect(refusal(['status', '--force'])).toBe('autodeck: status takes no --force (a flag of init, stop); autodeck help status lists its flags');
    expect(refusal(['status', '-json'])).toMatch(/unknown flag -json for status; flags take two dashes \(--json\)/);
    expect(refusal(['status', '-x'])).toMatch(/unknown flag -x for status;/);
    expect(refusal(['status', '--bogus'])).toBe('autodeck: unknown flag --bogus for status; autodeck help status lists its flags');
  });

  it('refuses a flag without its value, at the end or before another flag', () => {
    expect(refusal(['run', 'AiTasks/x', '--max-iterations'])).toBe('autodeck: --max-iterations needs a value: --max-iterations N');
    expect(refusal(['new', 'x', '--title'])).toBe('autodeck: --title needs a value: --title TITLE');
    expect(refusal(['new', 'x', '--title', '--json'])).toMatch(/--title needs a value: --title TITLE \(got the flag --json; a value that starts with a dash goes as --title=--json\)/);
    expect(command(['new', 'x', '--title=-dash']).flags.title).toBe('-dash');
    // a negative number is a value (the setting then says what is wrong with it)
    expect(command(['run', 'x', '--max-cost', '-1']).flags.maxCost).toBe('-1');
    expect(refusal(['status', '--json=yes'])).toMatch(/--json takes no value/);
  });

  it('refuses words a command does not take, and asks for those it needs', () => {
    expect(refusal(['status', 'extra'])).toBe('autodeck: status takes no other words (got "extra"): autodeck status [flags]');
    expect(refusal(['stop'])).toBe('autodeck: stop needs TASK_DIR: autodeck stop TASK_DIR [flags]');
    expect(refusal(['run'])).toBe('autodeck: run needs TASK_DIR: autodeck run TASK_DIR... [flags]');
    expect(refusal(['stop', 'a', 'b'])).toBe('autodeck: stop takes one TASK_DIR (got 2: "a" "b"): autodeck stop TASK_DIR [flags]');
    expect(refusal(['log', 'a', 'b'])).toMatch(/log takes one TASK_DIR/);
    expect(refusal(['new', 'two', 'words'])).toMatch(/new takes one NAME/);
    expect(refusal(['--', 'x'])).toMatch(/the dashboard takes no words/);
    expect(command(['run', 'a', 'b', 'c']).args).toEqual(['a', 'b', 'c']);
  });

  it('takes every setting with every command and before the command; the last of a repeat wins, a list collects', () => {
    expect(command(['--db', '/tmp/x.db', 'status', '--json'])).toMatchObject({ command: commandNamed('status'), flags: { db: '/tmp/x.db', json: true } });
    expect(command(['init', '--grace', '5', '--grace=9', '--root', 'a', '--root', 'b']).flags).toEqual({ grace: '9', root: ['a', 'b'] });
    expect(command([])).toEqual({ kind: 'command', command: undefined, args: [], flags: {} });
    expect(command(['run', 'x', '--refuse-failed']).flags).toEqual({ refuseFailed: true });
  });
});

describe('the command table', () => {
  it('gives a flag one type wherever it appears, and no command a setting\'s flag', () => {
    const types = new Map<string, string>();
    const settingFlags = new Set(SETTINGS_TABLE.map((r) => r.flag.slice(2)));
    for (const c of COMMANDS) {
      for (const f of c.flags) {
        expect(types.get(f.name) ?? f.type, `${c.name} --${f.name}`).toBe(f.type);
        types.set(f.name, f.type);
        expect(settingFlags.has(f.name), f.name).toBe(false);
        expect(['help', 'version']).not.toContain(f.name);
      }
    }
    expect(new Set(COMMANDS.map((c) => c.name)).size).toBe(COMMANDS.length);
  });

  it('loads every command it lists', async () => {
    for (const c of COMMANDS) expect(typeof (await c.load()), c.name).toBe('function');
  });
});

describe('the help', () => {
  const widest = (text: string): number => Math.max(...text.split('\n').map((l) => stringWidth(l)));

  it('fits 80 columns, every page of it', () => {
    expect(widest(overviewHelp('1.2.3'))).toBeLessThanOrEqual(HELP_WIDTH);
    expect(widest(settingsHelp())).toBeLessThanOrEqual(HELP_WIDTH);
    for (const c of COMMANDS) expect(widest(commandHelp(c)), c.name).toBeLessThanOrEqual(HELP_WIDTH);
  });

  it("gives each command its usage, every flag with its default, and an example", () => {
    for (const c of COMMANDS) {
      const help = commandHelp(c);
      expect(help, c.name).toMatch(new RegExp(`^Usage: autodeck ${c.name}\\b`));
      for (const f of c.flags) {
        expect(help, `${c.name} --${f.name}`).toContain(`--${f.name}`);
        if (f.default) expect(help.replace(/\s+/g, ' '), `${c.name} --${f.name}`).toContain(`(default ${f.default})`);
      }
      for (const name of c.settings) expect(help, `${c.name} ${name}`).toContain(SETTINGS_TABLE.find((r) => r.name === name)!.flag);
      expect(help).toContain(`Example\n  ${c.example.command.slice(0, 40)}`);
    }
    expect(commandHelp(commandNamed('log')!).replace(/\s+/g, ' ')).toContain('--last N how many events (default 50)');
  });

  it('lists every command in the overview, with how to get more', () => {
    const overview = overviewHelp('1.2.3');
    const lines = overview.split('\n');
    for (const c of COMMANDS) expect(lines.some((l) => l.startsWith(`  ${c.name} `) && l.endsWith(c.summary)), c.name).toBe(true);
    expect(overview).toContain('autodeck help COMMAND');
    expect(overview).toContain('autodeck help settings');
  });
});

describe('didYouMean', () => {
  it('finds slips, case and unique prefixes, and nothing for another word', () => {
    const words = ['status', 'stop', 'run', 'history', 'help'];
    expect(didYouMean('stauts', words)).toBe('status');
    expect(didYouMean('STATUS', words)).toBe('status');
    expect(didYouMean('hist', words)).toBe('history');
    expect(didYouMean('st', words)).toBeUndefined(); // too short a prefix to choose
    expect(didYouMean('rnu', words)).toBeUndefined(); // two edits in three letters is another word
    expect(didYouMean('deploy', words)).toBeUndefined();
  });
});

describe("the hook's own check (it never goes through the table: it must start fast)", () => {
  it('tells a person what it is for, and lets a program through with a word it does not know', () => {
    expect(hookUsageError(['stop'], () => true)).toBeUndefined();
    expect(hookUsageError(['state', '--injected'], () => true)).toBeUndefined();
    expect(hookUsageError([], () => false)).toMatch(/^autodeck: hook needs stop or state; .*autodeck help hook$/);
    expect(hookUsageError(['pre-tool'], () => true)).toMatch(/^autodeck: unknown hook "pre-tool"/);
    // settings written by a newer autodeck: Claude Code must never see a failure (exit 2 blocks)
    expect(hookUsageError(['pre-tool'], () => false)).toBeUndefined();
  });
});
