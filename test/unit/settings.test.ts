import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  SETTINGS_TABLE, controlKeyByte, formatSettingError, resolveSettings,
  type SettingError, type Settings,
} from '../../src/config/settings.js';
import { gitTopLevel } from '../../src/paths.js';
import { parseCommandLine } from '../../src/cli/parse.js';
import { settingsHelp } from '../../src/cli/help.js';

const base = mkdtempSync(join(tmpdir(), 'autodeck-settings-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let n = 0;
/**
 * A fresh project (a folder with `.git`), a working folder inside it, and a private
 * HOME / XDG config, so no test reads the real user's files.
 */
function workspace(files: { project?: unknown; user?: unknown } = {}) {
  const dir = join(base, `ws${n++}`);
  const project = join(dir, 'proj');
  const cwd = join(project, 'sub');
  const home = join(dir, 'home');
  const configHome = join(dir, 'config');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(configHome, 'autodeck'), { recursive: true });
  const projectFile = join(project, '.autodeck.json');
  const userFile = join(configHome, 'autodeck', 'config.json');
  // A string is written as is (to test bad JSON); anything else as JSON.
  const write = (p: string, v: unknown) => writeFileSync(p, typeof v === 'string' ? v : JSON.stringify(v));
  if (files.project !== undefined) write(projectFile, files.project);
  if (files.user !== undefined) write(userFile, files.user);
  const env: NodeJS.ProcessEnv = { HOME: home, XDG_CONFIG_HOME: configHome, XDG_STATE_HOME: join(dir, 'state') };
  const resolve = (flags: Record<string, unknown> = {}, extraEnv: NodeJS.ProcessEnv = {}) =>
    resolveSettings({ flags, env: { ...env, ...extraEnv }, cwd });
  return { dir, project, cwd, home, configHome, projectFile, userFile, env, resolve };
}

const lines = (errors: SettingError[]) => errors.map(formatSettingError);

describe('precedence: flag > env > project file > user file > default', () => {
  // [setting, flag key, env name, values at each level from flag down to user file, default]
  const cases: [keyof Settings, string, string, [unknown, string, unknown, unknown], unknown][] = [
    ['maxIterations', 'maxIterations', 'AUTODECK_MAX_ITERATIONS', ['8', '7', 6, '5'], 20],
    ['timeoutMinutes', 'timeout', 'AUTODECK_TIMEOUT_MINUTES', ['0.05', '0.5', 2.5, 4], 30],
    ['graceSeconds', 'grace', 'AUTODECK_GRACE_SECONDS', ['0', '1', 2, 3], 600],
    ['restartLimit', 'restartLimit', 'AUTODECK_RESTART_LIMIT', ['0', '1', 2, 3], 3],
    ['backend', 'backend', 'AUTODECK_BACKEND', ['tmux', 'pty', 'tmux', 'pty'], 'pty'],
    ['mode', 'mode', 'AUTODECK_MODE', ['hook', 'signal', 'hook', 'signal'], 'signal'],
    ['detachKey', 'detachKey', 'AUTODECK_DETACH_KEY', ['ctrl-b', 'ctrl-a', 'ctrl-x', 'ctrl-y'], 'ctrl-q'],
    ['apiPort', 'apiPort', 'AUTODECK_API_PORT', ['8080', '8081', 8082, '8083'], 0],
  ];
  const parse = (v: unknown) => (typeof v === 'string' && /^[\d.]+$/.test(v) ? Number(v) : v);

  describe.each(cases)('%s', (name, flagKey, envName, [flag, envValue, project, user], dflt) => {
    it('default', () => {
      const r = workspace().resolve();
      expect(r.errors).toEqual([]);
      expect(r.value[name]).toEqual(dflt);
    });
    it('user file beats default', () => {
      expect(workspace({ user: { [name]: user } }).resolve().value[name]).toEqual(parse(user));
    });
    it('project file beats user file', () => {
      expect(workspace({ user: { [name]: user }, project: { [name]: project } }).resolve().value[name]).toEqual(parse(project));
    });
    it('env beats project file', () => {
      const ws = workspace({ user: { [name]: user }, project: { [name]: project } });
      expect(ws.resolve({}, { [envName]: envValue }).value[name]).toEqual(parse(envValue));
    });
    it('flag beats env', () => {
      const ws = workspace({ user: { [name]: user }, project: { [name]: project } });
      const r = ws.resolve({ [flagKey]: flag }, { [envName]: envValue });
      expect(r.errors).toEqual([]);
      expect(r.value[name]).toEqual(parse(flag));
    });
  });

  it('finds the project file at the git top level, not in cwd', () => {
    const ws = workspace({ project: { maxIterations: 9 } });
    expect(ws.cwd).not.toBe(ws.project);
    expect(ws.resolve().value.maxIterations).toBe(9);
  });

  it('treats an empty environment variable as unset', () => {
    expect(workspace().resolve({}, { AUTODECK_MAX_ITERATIONS: '' }).value.maxIterations).toBe(20);
  });

  it('accepts numbers as well as strings in flags, and setting names as flag keys', () => {
    const r = workspace().resolve({ maxIterations: 4, timeoutMinutes: 0.1 });
    expect(r.errors).toEqual([]);
    expect(r.value).toMatchObject({ maxIterations: 4, timeoutMinutes: 0.1 });
  });

  it('ignores flags that are not settings', () => {
    const r = workspace().resolve({ json: true, force: true, last: '5', help: false });
    expect(r.errors).toEqual([]);
  });

  it('checks every present source, not only the winner', () => {
    const ws = workspace({ project: { maxIterations: 0 } });
    const r = ws.resolve({ maxIterations: '5' });
    expect(r.value.maxIterations).toBe(5);
    expect(lines(r.errors)).toEqual([`autodeck: maxIterations in ${ws.projectFile}: 0 is out of range (1..1000)`]);
  });
});

describe('decimal durations', () => {
  it.each([
    [{ timeout: '0.05' }, 'timeoutMinutes', 0.05],
    [{ timeout: '.5' }, 'timeoutMinutes', 0.5],
    [{ timeout: '1440' }, 'timeoutMinutes', 1440],
    [{ heartbeat: '0.2' }, 'heartbeatSeconds', 0.2],
    [{ stepTimeout: '0.01' }, 'stepTimeoutMinutes', 0.01],
    [{ grace: '0' }, 'graceSeconds', 0],
    [{ grace: '1.5' }, 'graceSeconds', 1.5],
    [{ quotaProbe: ' 0.25 ' }, 'quotaProbeMinutes', 0.25],
  ])('%j', (flags, name, value) => {
    const r = workspace().resolve(flags);
    expect(r.errors).toEqual([]);
    expect(r.value[name as keyof Settings]).toBe(value);
  });

  it('from files as numbers or strings', () => {
    const r = workspace({ project: { timeoutMinutes: 0.05, heartbeatSeconds: '0.5' } }).resolve();
    expect(r.errors).toEqual([]);
    expect(r.value).toMatchObject({ timeoutMinutes: 0.05, heartbeatSeconds: 0.5 });
  });
});

describe('bad values: one line naming the setting and its source', () => {
  // [flags, setting at fault, the one line expected]
  const cases: [Record<string, unknown>, string, string][] = [
    [{ maxIterations: '0' }, 'maxIterations', '--max-iterations: 0 is out of range (1..1000)'],
    [{ maxIterations: '1001' }, 'maxIterations', '--max-iterations: 1001 is out of range (1..1000)'],
    [{ maxIterations: '1.5' }, 'maxIterations', '--max-iterations: "1.5" is not a whole number'],
    [{ maxIterations: 'x' }, 'maxIterations', '--max-iterations: "x" is not a number'],
    [{ maxIterations: '' }, 'maxIterations', '--max-iterations: "" is not a number'],
    [{ maxIterations: '0x10' }, 'maxIterations', '--max-iterations: "0x10" is not a number'],
    [{ timeout: '0' }, 'timeoutMinutes', '--timeout: 0 is out of range (>0..1440)'],
    [{ timeout: '1440.5' }, 'timeoutMinutes', '--timeout: 1440.5 is out of range (>0..1440)'],
    [{ timeout: '-1' }, 'timeoutMinutes', '--timeout: -1 is out of range (>0..1440)'],
    [{ heartbeat: '0' }, 'heartbeatSeconds', '--heartbeat: 0 is out of range (> 0)'],
    [{ hungAfter: '-1' }, 'hungMinutes', '--hung-after: -1 is out of range (>= 0)'],
    [{ hungError: '-2' }, 'hungErrorMinutes', '--hung-error: -2 is out of range (>= 0)'],
    [{ hungRepeat: '1.5' }, 'hungRepeatCalls', '--hung-repeat: "1.5" is not a whole number'],
    [{ hungLadder: '0' }, 'hungLadderMinutes', '--hung-ladder: 0 is out of range (> 0)'],
    [{ stallThreshold: '0' }, 'stallThreshold', '--stall-threshold: 0 is out of range (>= 1)'],
    [{ recoveryPerIteration: '-1' }, 'recoveryPerIteration', '--recovery-per-iteration: -1 is out of range (>= 0)'],
    [{ recoveryTotal: '-1' }, 'recoveryTotal', '--recovery-total: -1 is out of range (>= 0)'],
    [{ stepTimeout: '0' }, 'stepTimeoutMinutes', '--step-timeout: 0 is out of range (> 0)'],
    [{ restartLimit: '-1' }, 'restartLimit', '--restart-limit: -1 is out of range (>= 0)'],
    [{ grace: '-0.5' }, 'graceSeconds', '--grace: -0.5 is out of range (>= 0)'],
    [{ quotaProbe: '0' }, 'quotaProbeMinutes', '--quota-probe: 0 is out of range (> 0)'],
    [{ apiPort: '65536' }, 'apiPort', '--api-port: 65536 is out of range (0..65535)'],
    [{ apiPort: '-1' }, 'apiPort', '--api-port: -1 is out of range (0..65535)'],
    [{ backend: 'screen' }, 'backend', '--backend: "screen" is not one of pty, tmux'],
    [{ mode: 'loop' }, 'mode', '--mode: "loop" is not one of signal, hook'],
    [{ agentProfile: 'cursor' }, 'agentProfile', '--agent-profile: "cursor" is not one of claude, codex, gemini, aider, generic'],
    [{ detachKey: 'q' }, 'detachKey', '--detach-key: "q" is not a control key like ctrl-q'],
    [{ detachKey: 'ctrl-m' }, 'detachKey', '--detach-key: ctrl-m is the same key as Enter; choose another, like ctrl-q'],
    [{ agent: '' }, 'agent', '--agent: the agent command is empty'],
    [{ agent: 'claude | tee log' }, 'agent', '--agent: shell operator "|" is not allowed: the agent is started without a shell; quote it to pass it literally'],
    [{ db: '' }, 'db', '--db: "" is not a path'],
    [{ root: [''] }, 'roots', '--root: "" is not a folder path'],
    [{ agentCwd: ' ' }, 'agentCwd', '--agent-cwd: " " is not a path'],
    [{ notify: 'bell,beep' }, 'notify', '--notify: "beep" is not one of bell, osc9, tmux, or none'],
    [{ notifyCommand: 'notify-send a; rm -rf ~' }, 'notifyCommand', '--notify-command: shell operator ";" is not allowed: the agent is started without a shell; quote it to pass it literally'],
    [{ notifyUrl: 'ntfy.sh/tk_secret' }, 'notifyUrl', '--notify-url: not a URL like https://ntfy.sh/my-topic (the value is not shown: it may hold a token)'],
    [{ notifyUrl: 'file:///etc/passwd' }, 'notifyUrl', '--notify-url: an http or https URL only, not file:'],
    [{ maxTokens: '-5' }, 'maxTokens', '--max-tokens: -5 is out of range (>= 0)'],
    [{ maxCost: 'lots' }, 'maxCostUsd', '--max-cost: "lots" is not a number'],
  ];

  it.each(cases)('%j', (flags, setting, line) => {
    const r = workspace().resolve(flags);
    expect(r.errors.map((e) => e.setting)).toEqual([setting]);
    expect(lines(r.errors)).toEqual([`autodeck: ${line}`]);
  });

  it('covers every setting in the table', () => {
    const covered = new Set(cases.map((c) => c[1]));
    expect(SETTINGS_TABLE.map((r) => r.name).filter((name) => !covered.has(name))).toEqual([]);
  });

  it('names the environment variable', () => {
    const r = workspace().resolve({}, { AUTODECK_MAX_ITERATIONS: '0', AUTODECK_BACKEND: 'screen' });
    expect(lines(r.errors)).toEqual([
      'autodeck: AUTODECK_MAX_ITERATIONS: 0 is out of range (1..1000)',
      'autodeck: AUTODECK_BACKEND: "screen" is not one of pty, tmux',
    ]);
  });

  it('names the setting and the config file', () => {
    const ws = workspace({ project: { maxIterations: 'x' }, user: { backend: true, roots: 'x' } });
    expect(lines(ws.resolve().errors)).toEqual([
      `autodeck: maxIterations in ${ws.projectFile}: "x" is not a number`,
      `autodeck: backend in ${ws.userFile}: true is not one of pty, tmux`,
    ]);
  });

  it('still gives a complete value, falling back past the bad source', () => {
    const r = workspace({ project: { maxIterations: 7 } }).resolve({ maxIterations: '0', timeout: 'soon' });
    expect(r.errors).toHaveLength(2);
    expect(r.value).toMatchObject({ maxIterations: 7, timeoutMinutes: 30 });
  });
});

describe('config files', () => {
  it('refuses an unknown key, suggesting the setting meant', () => {
    const ws = workspace({ project: { maxIteration: 5, timeout: 2, colour: 'red' } });
    expect(lines(ws.resolve().errors)).toEqual([
      `autodeck: maxIteration in ${ws.projectFile}: unknown setting (did you mean maxIterations?)`,
      `autodeck: timeout in ${ws.projectFile}: unknown setting (did you mean timeoutMinutes?)`,
      `autodeck: colour in ${ws.projectFile}: unknown setting`,
    ]);
  });

  it('keeps the reserved profiles key raw, the project file over the user file', () => {
    const profiles = { claude: { quota: ['limit reached'] } };
    expect(workspace({ user: { profiles } }).resolve().value.profiles).toEqual(profiles);
    expect(workspace({ user: { profiles }, project: { profiles: [1] } }).resolve().value.profiles).toEqual([1]);
    const r = workspace().resolve();
    expect(r.errors).toEqual([]);
    expect(r.value.profiles).toBeUndefined();
  });

  it.each([
    ['bad JSON', '{ "maxIterations": 5,', 'not valid JSON ('],
    ['not an object', '[1, 2]', 'must hold a JSON object'],
    ['null', 'null', 'must hold a JSON object'],
  ])('refuses a file holding %s, naming the file on one line', (_, text, message) => {
    const ws = workspace({ user: text });
    const out = lines(ws.resolve().errors);
    expect(out).toHaveLength(1);
    expect(out[0]).toContain(`autodeck: ${ws.userFile}: ${message}`);
    expect(out[0]).not.toContain('\n');
  });

  it('refuses an unreadable file', () => {
    const ws = workspace();
    mkdirSync(ws.projectFile); // a folder where the file should be: EISDIR
    expect(lines(ws.resolve().errors)).toEqual([`autodeck: ${ws.projectFile}: cannot read the config file (EISDIR)`]);
  });

  it('reads a file with a byte order mark', () => {
    expect(workspace({ project: '\uFEFF{"maxIterations": 3}' }).resolve().value.maxIterations).toBe(3);
  });
});

describe('agent', () => {
  it.each([
    [{ flags: { agent: 'node "/a b/sim.js" sim {taskDir}' } }, ['node', '/a b/sim.js', 'sim', '{taskDir}']],
    [{ env: { AUTODECK_AGENT: "codex exec '{taskDir}'" } }, ['codex', 'exec', '{taskDir}']],
    [{ project: { agent: 'aider --yes {taskDir}' } }, ['aider', '--yes', '{taskDir}']],
    [{ project: { agent: ['my agent', 'a b', '{taskDir}'] } }, ['my agent', 'a b', '{taskDir}']],
    [{}, ['claude', '/autodeck-auto {taskDir}']],
  ])('%j', (input, argv) => {
    const ws = workspace({ project: (input as { project?: unknown }).project });
    const r = ws.resolve((input as { flags?: Record<string, unknown> }).flags, (input as { env?: NodeJS.ProcessEnv }).env);
    expect(r.errors).toEqual([]);
    expect(r.value.agent).toEqual(argv);
  });

  it.each([
    [{ agent: [] }, 'the agent command is empty'],
    [{ agent: ['a', 1] }, 'is not a command string or an array of strings'],
    [{ agent: 'a > log' }, 'shell operator ">"'],
  ])('refuses %j in a file', (project, message) => {
    const ws = workspace({ project });
    expect(lines(ws.resolve().errors)).toEqual([expect.stringContaining(`autodeck: agent in ${ws.projectFile}: `)]);
    expect(lines(ws.resolve().errors)[0]).toContain(message);
  });

  it.each([
    [undefined, 'claude'],
    ['claude --model x {taskDir}', 'claude'],
    ['/usr/local/bin/codex exec {taskDir}', 'codex'],
    ['gemini -p {taskDir}', 'gemini'],
    ['C:/tools/Aider.exe {taskDir}', 'aider'],
    ['node sim.js {taskDir}', 'generic'],
    ['claude-wrapper {taskDir}', 'generic'],
  ])('derives the profile of %j as %s', (agent, profile) => {
    expect(workspace().resolve(agent === undefined ? {} : { agent }).value.agentProfile).toBe(profile);
  });

  it('an explicit profile beats the derived one', () => {
    const r = workspace({ user: { agentProfile: 'claude' } }).resolve({ agent: 'node wrap.js {taskDir}' });
    expect(r.value.agentProfile).toBe('claude');
  });
});

describe('paths: roots, db, agentCwd', () => {
  it('defaults roots to AiTasks at the git top level', () => {
    const ws = workspace();
    expect(ws.resolve().value.roots).toEqual([join(ws.project, 'AiTasks')]);
  });

  it.runIf(gitTopLevel(tmpdir()) === undefined)('defaults roots to AiTasks in cwd outside git', () => {
    const cwd = join(base, 'outside');
    mkdirSync(cwd, { recursive: true });
    const r = resolveSettings({ flags: {}, env: { HOME: join(base, 'nohome') }, cwd });
    expect(r.value.roots).toEqual([join(cwd, 'AiTasks')]);
  });

  it('resolves flag roots against cwd (repeatable)', () => {
    const ws = workspace();
    expect(ws.resolve({ root: ['tasks', '/abs/t'] }).value.roots).toEqual([join(ws.cwd, 'tasks'), '/abs/t']);
    expect(ws.resolve({ root: 'one' }).value.roots).toEqual([join(ws.cwd, 'one')]);
    expect(ws.resolve({ root: [] }).value.roots).toEqual([join(ws.project, 'AiTasks')]); // an empty list is "not given"
  });

  it('splits env roots on the path delimiter, against cwd', () => {
    const ws = workspace();
    const r = ws.resolve({}, { AUTODECK_ROOTS: ['a', '/b', ''].join(delimiter) });
    expect(r.value.roots).toEqual([join(ws.cwd, 'a'), '/b']);
  });

  it("resolves file roots against the file's folder, and ~ against HOME", () => {
    const ws = workspace({ project: { roots: ['tasks', '~/more'] } });
    expect(ws.resolve().value.roots).toEqual([join(ws.project, 'tasks'), join(ws.home, 'more')]);
    const user = workspace({ user: { roots: ['../t'] } });
    expect(user.resolve().value.roots).toEqual([join(user.configHome, 't')]);
  });

  it('refuses an empty roots list in a file', () => {
    const ws = workspace({ project: { roots: [] } });
    expect(lines(ws.resolve().errors)).toEqual([`autodeck: roots in ${ws.projectFile}: needs at least one folder`]);
  });

  it('defaults db under XDG_STATE_HOME and resolves a relative one', () => {
    const ws = workspace();
    expect(ws.resolve().value.db).toBe(join(ws.dir, 'state', 'autodeck', 'state.db'));
    expect(ws.resolve({ db: 'x.db' }).value.db).toBe(join(ws.cwd, 'x.db'));
    expect(workspace({ project: { db: 'var/s.db' } }).resolve().value.db).toMatch(/proj\/var\/s\.db$/);
  });

  it('leaves agentCwd undefined unless set', () => {
    const ws = workspace({ project: { agentCwd: 'work' } });
    expect(ws.resolve().value.agentCwd).toBe(join(ws.project, 'work'));
    expect(workspace().resolve().value.agentCwd).toBeUndefined();
  });
});

describe('detach key', () => {
  it.each([
    ['ctrl-q', 'ctrl-q', '\x11'],
    ['Ctrl+B', 'ctrl-b', '\x02'],
    ['C-a', 'ctrl-a', '\x01'],
    ['ctrl-]', 'ctrl-]', '\x1d'],
  ])('%s', (raw, key, byte) => {
    const r = workspace().resolve({ detachKey: raw });
    expect(r.errors).toEqual([]);
    expect(r.value.detachKey).toBe(key);
    expect(controlKeyByte(key)).toBe(byte);
  });
});

describe('maxTokens, maxCostUsd and prices', () => {
  it('are off by default; prices come from a settings file and are checked', () => {
    expect(workspace().resolve({}).value).toMatchObject({ maxTokens: 0, maxCostUsd: 0, prices: {} });
    expect(workspace().resolve({ maxTokens: '500000', maxCost: '2.5' }).value).toMatchObject({ maxTokens: 500000, maxCostUsd: 2.5 });
    const ok = workspace({ project: { prices: { 'My-Model': { input: 2, output: 8 } } } }).resolve();
    expect(ok.errors).toEqual([]);
    expect(ok.value.prices).toEqual({ 'my-model': { input: 2, output: 8 } });
    const ws = workspace({ project: { prices: { m: { input: 2 } } } });
    const bad = ws.resolve();
    expect(lines(bad.errors)).toEqual([`autodeck: prices in ${ws.projectFile}: "m": input and output are required`]);
    expect(bad.value.prices).toEqual({});
  });

  it('contextWindows come from a settings file (the project\'s over the user\'s), checked like prices', () => {
    expect(workspace().resolve({}).value.contextWindows).toEqual({});
    const ok = workspace({ project: { contextWindows: { 'Claude-Sonnet-4-5': 1_000_000 } }, user: { contextWindows: { other: 5 } } }).resolve();
    expect(ok.errors).toEqual([]);
    expect(ok.value.contextWindows).toEqual({ 'claude-sonnet-4-5': 1_000_000 });
    const ws = workspace({ project: { contextWindows: { m: 'big' } } });
    const bad = ws.resolve();
    expect(lines(bad.errors)).toEqual([`autodeck: contextWindows in ${ws.projectFile}: "m": must be a whole number of tokens, 1 or more`]);
    expect(bad.value.contextWindows).toEqual({});
  });
});

describe('notifyCommand and notifyUrl', () => {
  it('are off by default, and split / checked when given', () => {
    expect(workspace().resolve({}).value).toMatchObject({ notifyCommand: [], notifyUrl: '' });
    const r = workspace().resolve({ notifyCommand: 'notify-send "autodeck says"', notifyUrl: ' https://ntfy.sh/my-topic ' });
    expect(r.errors).toEqual([]);
    expect(r.value).toMatchObject({ notifyCommand: ['notify-send', 'autodeck says'], notifyUrl: 'https://ntfy.sh/my-topic' });
    const file = workspace({ project: { notifyCommand: ['/bin/notify', '{x}'], notifyUrl: 'none' } }).resolve();
    expect(file.value).toMatchObject({ notifyCommand: ['/bin/notify', '{x}'], notifyUrl: '' });
    expect(workspace().resolve({}, { AUTODECK_NOTIFY_COMMAND: 'none' }).value.notifyCommand).toEqual([]);
  });
});

describe('notify', () => {
  it.each([
    [{}, {}, undefined, []],
    [{ notify: 'bell' }, {}, undefined, ['bell']],
    [{ notify: ' OSC9 , bell,,bell ' }, {}, undefined, ['osc9', 'bell']],
    [{ notify: 'none' }, { AUTODECK_NOTIFY: 'bell' }, undefined, []],
    [{ notify: '' }, {}, { notify: ['tmux'] }, []],
    [{}, { AUTODECK_NOTIFY: 'tmux,osc9' }, { notify: ['bell'] }, ['tmux', 'osc9']],
    [{}, {}, { notify: ['bell', 'tmux'] }, ['bell', 'tmux']],
    [{}, {}, { notify: 'osc9' }, ['osc9']],
    [{}, {}, { notify: [] }, []],
  ])('flags %j, env %j, project file %j -> %j', (flags, env, project, channels) => {
    const r = workspace({ project }).resolve(flags, env);
    expect(r.errors).toEqual([]);
    expect(r.value.notify).toEqual(channels);
  });

  it.each([
    [{ notify: 'bell,beep' }, {}, '--notify: "beep" is not one of bell, osc9, tmux, or none'],
    [{ notify: 'none,bell' }, {}, '--notify: "none" cannot be combined with bell'],
    [{}, { AUTODECK_NOTIFY: 'osc-9' }, 'AUTODECK_NOTIFY: "osc-9" is not one of bell, osc9, tmux, or none'],
  ])('refuses flags %j / env %j, naming the setting', (flags, env, line) => {
    const r = workspace().resolve(flags, env);
    expect(r.errors.map((e) => e.setting)).toEqual(['notify']);
    expect(lines(r.errors)).toEqual([`autodeck: ${line}`]);
    expect(r.value.notify).toEqual([]);
  });

  it.each([
    [{ notify: ['bell', 'desktop'] }, '"desktop" is not one of bell, osc9, tmux, or none'],
    [{ notify: ['bell', 1] }, '1 is not one of bell, osc9, tmux, or none'],
    [{ notify: true }, 'true is not a comma-separated list of bell, osc9, tmux, or none'],
  ])('refuses %j in a file, naming notify and the file', (project, message) => {
    const ws = workspace({ project });
    expect(lines(ws.resolve().errors)).toEqual([`autodeck: notify in ${ws.projectFile}: ${message}`]);
  });
});

describe('command line', () => {
  const flagsOf = (argv: string[]): Record<string, unknown> => {
    const line = parseCommandLine(argv);
    if (line.kind !== 'command') throw new Error(`not a command: ${line.kind}`);
    return line.flags;
  };

  it('the parser reads the table flags into what resolveSettings takes', () => {
    const flags = flagsOf(['run', 'T', '--max-iterations', '5', '--timeout', '0.05', '--root', 'a', '--root', 'b', '--agent', 'node "x y.js" {taskDir}', '--json']);
    const ws = workspace();
    const r = resolveSettings({ flags, env: ws.env, cwd: ws.cwd });
    expect(r.errors).toEqual([]);
    expect(r.value).toMatchObject({
      maxIterations: 5, timeoutMinutes: 0.05, roots: [join(ws.cwd, 'a'), join(ws.cwd, 'b')],
      agent: ['node', 'x y.js', '{taskDir}'], agentProfile: 'generic', backend: 'pty',
    });
  });

  it('a flag given twice: the last wins silently; --root keeps every value; an absent flag stays absent', () => {
    const flags = flagsOf(['run', 'T', '--grace', '5', '--grace', '9', '--root', 'a', '--root', 'b', '--json', '--json', '--max-iterations', '3']);
    expect(flags).toMatchObject({ grace: '9', root: ['a', 'b'], json: true, maxIterations: '3' });
    expect(flags).not.toHaveProperty('last');
    expect(flags).not.toHaveProperty('timeout');
    const ws = workspace();
    expect(resolveSettings({ flags, env: ws.env, cwd: ws.cwd }).value).toMatchObject({ graceSeconds: 9, maxIterations: 3 });
  });

  it('has a flag, env name and help line for every setting', () => {
    const help = settingsHelp();
    for (const row of SETTINGS_TABLE) {
      expect(flagsOf(['status', row.flag, 'x'])[row.flagKey]).toEqual(row.kind.multiple ? ['x'] : 'x');
      expect(row.env).toMatch(/^AUTODECK_[A-Z_]+$/);
      expect(help).toContain(`${row.flag} `);
      expect(help).toContain(row.env);
    }
    expect(SETTINGS_TABLE.find((r) => r.name === 'timeoutMinutes')?.env).toBe('AUTODECK_TIMEOUT_MINUTES');
  });
});
