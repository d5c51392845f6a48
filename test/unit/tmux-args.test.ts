import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildSpawnCommand, checkSessionName, COMMAND_BYTES_MAX, commandBytes, commandWords, escapeTmuxArg, escapeTmuxFormat,
  launcherScript, parseShowEnvironment, parseTmuxVersion, planEnv, SERVER_OPTIONS, shQuote, tmuxChain, tmuxSessionName, TRAMPOLINE,
} from '../../src/sessions/tmuxCommand.js';

// The words autodeck hands to tmux and to sh. tmux's own reading of them is covered by
// test/integration/tmux.test.ts; here, the building blocks, and sh where sh reads them.

const HOSTILE = [
  `it's "odd" $(touch pwned) \`touch pwned2\``,
  "'", "''", "'\\''", '\\', '\\\\;', ';', 'x;', '', ' ', 'line\nbreak\n', '$HOME', '${HOME}', '!', '#{pane_id}', '#(id)', '*', '~', '-e', '--',
  'é❯∙ 日本', '\t\x01\x1b[31m',
];

/** What sh makes of a command line: each word on its own, NUL-separated. */
function shWords(commandLine: string): string[] {
  const out = execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${commandLine}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

describe('escapeTmuxArg', () => {
  it('escapes only a trailing semicolon, which tmux reads as the end of a command', () => {
    expect(escapeTmuxArg('x;')).toBe('x\\;');
    expect(escapeTmuxArg(';')).toBe('\\;');
    expect(escapeTmuxArg('x\\;')).toBe('x\\\\;'); // tmux: drop ';', the '\' before it becomes ';' -> 'x\;'
    expect(escapeTmuxArg('a;b')).toBe('a;b');
    expect(escapeTmuxArg(';a')).toBe(';a');
    expect(escapeTmuxArg('')).toBe('');
    expect(escapeTmuxArg('plain')).toBe('plain');
  });

  it('chains commands with bare ";" words and escapes every word', () => {
    expect(tmuxChain([['set-option', '-g', 'x', 'v;'], ['new-session', '--', 'a;']])).toEqual(['set-option', '-g', 'x', 'v\\;', ';', 'new-session', '--', 'a\\;']);
  });
});

describe('escapeTmuxFormat', () => {
  it('doubles every #, so #(cmd) and #{var} stay text', () => {
    expect(escapeTmuxFormat('/a/#(touch x)/#{pane_id}/##')).toBe('/a/##(touch x)/##{pane_id}/####');
    expect(escapeTmuxFormat('/no/hash')).toBe('/no/hash');
  });
});

describe('shQuote', () => {
  it('makes any text one sh word, read back as is', () => {
    for (const s of HOSTILE) expect(shWords(shQuote(s))).toEqual([s]);
    expect(shWords(HOSTILE.map(shQuote).join(' '))).toEqual(HOSTILE);
  });

  it('uses single quotes with the closing-escaping-reopening form for a quote', () => {
    expect(shQuote("it's")).toBe(`'it'\\''s'`);
    expect(shQuote('')).toBe("''");
  });
});

describe('parseShowEnvironment', () => {
  it('reads `show-environment -s` output, multi-line and escaped values, and unset names', () => {
    // As tmux 3.3a prints it.
    const out = [
      'unset GONE;',
      'HOME="/root"; export HOME;',
      'MULTI="line1',
      'FAKE=x\\"y\\$z\\`q\\\\w"; export MULTI;',
      'EMPTY=""; export EMPTY;',
      'EQ="a=b"; export EQ;',
      '',
    ].join('\n');
    const env = parseShowEnvironment(out);
    expect(Object.fromEntries(env)).toEqual({ GONE: null, HOME: '/root', MULTI: 'line1\nFAKE=x"y$z`q\\w', EMPTY: '', EQ: 'a=b' });
  });
});

describe('planEnv', () => {
  const global = new Map<string, string | null>([
    ['HOME', '/root'], ['SAME', 'v'], ['OLD', 'x'], ['REMOVED', null], ['TERM', 'xterm'], ['PATH', '/usr/bin'], ['SHELL', '/bin/bash'],
  ]);

  it('sets what differs, unsets what the agent must not have, leaves tmux its own variables', () => {
    const plan = planEnv({ SAME: 'v', OLD: 'y', NEW: 'n', REMOVED: 'back', TERM: 'dumb', TMUX: 'x', PWD: '/p', PATH: '/bin', SHELL: '/bin/bash' }, global, '/bin/bash');
    expect(plan.set).toEqual([['OLD', 'y'], ['NEW', 'n'], ['REMOVED', 'back']]);
    expect(plan.unset).toEqual(['HOME']);
    expect(plan.assign).toEqual([]);
  });

  it('assigns SHELL when tmux would set another, unsets PATH and SHELL when the agent has none', () => {
    expect(planEnv({ HOME: '/root', SAME: 'v', OLD: 'x', PATH: '/bin', SHELL: '/bin/zsh' }, global, '/bin/bash')).toEqual({ set: [], unset: [], assign: [['SHELL', '/bin/zsh']] });
    expect(planEnv({ HOME: '/root', SAME: 'v', OLD: 'x' }, global, '/bin/bash')).toEqual({ set: [], unset: ['PATH', 'SHELL'], assign: [] });
  });
});

describe('commandWords', () => {
  const none = { unset: [], assign: [] as [string, string][] };

  it('hands tmux two or more words as they are: tmux execvp()s them', () => {
    expect(commandWords(['/usr/bin/node', '-e', 'x;'], none)).toEqual(['/usr/bin/node', '-e', 'x;']);
  });

  it('runs one word through the trampoline, never as a shell command line', () => {
    expect(commandWords(["/opt/my agent's/bin"], none)).toEqual([...TRAMPOLINE, "/opt/my agent's/bin"]);
    // The trampoline does not parse its words: any argv comes out as given.
    const out = execFileSync(TRAMPOLINE[0]!, [...TRAMPOLINE.slice(1), '/bin/sh', '-c', 'printf "%s\\0" "$@"', 'sh', ...HOSTILE], { encoding: 'utf8' });
    expect(out.split('\0').slice(0, -1)).toEqual(HOSTILE);
  });

  it('wraps in env when variables must be removed or forced', () => {
    expect(commandWords(['/bin/a', 'b'], { unset: ['HOME', 'PATH'], assign: [['SHELL', '/bin/zsh']] }))
      .toEqual(['/usr/bin/env', '-u', 'HOME', '-u', 'PATH', '--', 'SHELL=/bin/zsh', ...TRAMPOLINE, '/bin/a', 'b']);
  });
});

describe('buildSpawnCommand', () => {
  const spec = { name: 'auto-x-abcdef', argv: ['/usr/bin/node', 'agent.js', 'end;'], cwd: '/w/#(x) dir;', cols: 120, rows: 40 };
  const plan = { set: [['AUTODECK_SESSION', 'auto-x-abcdef'], ['V', 'a;']] as [string, string][], unset: [], assign: [] as [string, string][] };

  it('sets the server options first, in the same call, then new-session with escaped words', () => {
    const cmd = buildSpawnCommand(spec, plan, () => { throw new Error('no launcher wanted'); });
    expect(cmd.launcher).toBeUndefined();
    const options = tmuxChain(SERVER_OPTIONS);
    expect(cmd.args.slice(0, options.length)).toEqual(options);
    expect(options).toEqual(expect.arrayContaining(['remain-on-exit', 'on', 'remain-on-exit-format', '', 'status', 'off', 'history-limit', '1000']));
    const rest = cmd.args.slice(options.length);
    expect(rest[0]).toBe(';');
    expect(rest.slice(1)).toEqual([
      'new-session', '-d', '-P', '-F', '#{pane_id}\t#{pane_pid}', '-s', 'auto-x-abcdef', '-x', '120', '-y', '40', '-c', '/w/##(x) dir\\;',
      '-e', 'AUTODECK_SESSION=auto-x-abcdef', '-e', 'V=a\\;', '--', '/usr/bin/node', 'agent.js', 'end\\;',
    ]);
  });

  it('goes through a launcher script when the command would pass tmux\'s message size', () => {
    const dir = mkdtempSync(join(tmpdir(), 'adt-launcher-'));
    const launcherDir = mkdtempSync(join(tmpdir(), 'adt-launcher-'));
    try {
      const path = join(launcherDir, 'launch.sh');
      const argv = ['/bin/sh', '-c', 'printf "%s\\0" "$@"; printf "%s" "$AD_X" > "$0.env"', join(dir, 'out'), 'y'.repeat(COMMAND_BYTES_MAX), ...HOSTILE];
      const cmd = buildSpawnCommand({ ...spec, argv }, { set: [['AD_X', "it's $(x)"]], unset: ['HOME'], assign: [] }, () => path);
      expect(commandBytes(cmd.args)).toBeLessThan(1000);
      expect(cmd.args.slice(-3)).toEqual(['--', '/bin/sh', path]);
      expect(cmd.launcher?.path).toBe(path);
      // What the pane would run: sh reads the launcher, which removes itself and execs the argv.
      writeFileSync(path, cmd.launcher!.script);
      const out = execFileSync('/bin/sh', [path], { encoding: 'utf8', env: { ...process.env, HOME: '/should/go' } });
      expect(out.split('\0').slice(0, -1)).toEqual(argv.slice(4));
      expect(execFileSync('/bin/cat', [join(dir, 'out.env')], { encoding: 'utf8' })).toBe("it's $(x)");
      expect(existsSync(launcherDir)).toBe(false); // removed itself and its folder
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(launcherDir, { recursive: true, force: true });
    }
  });

  it('writes launcher scripts whose words sh reads back exactly', () => {
    const script = launcherScript(['/bin/echo', ...HOSTILE]);
    expect(script.startsWith('rm -f -- "$0"')).toBe(true);
    const exec = script.slice(script.indexOf('\n') + 1);
    expect(exec.startsWith('exec ')).toBe(true);
    expect(shWords(exec.slice('exec '.length))).toEqual(['/bin/echo', ...HOSTILE]);
  });
});

describe('parseTmuxVersion and checkSessionName', () => {
  it('reads tmux -V', () => {
    expect(parseTmuxVersion('tmux 3.3a')).toEqual([3, 3]);
    expect(parseTmuxVersion('tmux next-3.4')).toEqual([3, 4]);
    expect(parseTmuxVersion('tmux 2.9')).toEqual([2, 9]);
    expect(parseTmuxVersion('tmux master')).toBeUndefined();
  });

  it('accepts valid session names, refuses names tmux would change or misread', () => {
    expect(() => checkSessionName('auto-my-module-1a2b3c')).not.toThrow();
    for (const bad of ['', 'a.b', 'a:b', '=a', 'a;', 'a\nb']) expect(() => checkSessionName(bad)).toThrow(/session name/);
  });
});

describe('tmuxSessionName', () => {
  it('maps a caller id to a name tmux keeps as given, one id to one name', () => {
    expect(tmuxSessionName('my.session-2')).toBe('my+session-2');
    // derived names and ids without "." are unchanged: tmux sessions of older loops are found again
    for (const same of ['auto-my-module-1a2b3c', 's1', 'a_b', 'x'.repeat(64)]) expect(tmuxSessionName(same)).toBe(same);
    const ids = ['a.b', 'a_b', 'a-b', 'ab', 'a..b', 'a._b', '.', '_', '...x'];
    const names = ids.map(tmuxSessionName);
    expect(new Set(names).size).toBe(ids.length);
    for (const name of names) expect(() => checkSessionName(name)).not.toThrow();
  });
});
