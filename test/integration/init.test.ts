import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { BIN } from '../helpers/cli.js';
import { isAutodeckHook, mergeGitignore, mergeHooks } from '../../src/commands/init.js';
import { hookCommands, shellQuote } from '../../src/hooks/commands.js';
import { registeredCommands } from '../../src/hooks/claudeHooks.js';
import { SKILL_PATH, SKILL_VERSION, skillFile } from '../../src/skill/autodeckAuto.js';
import { createHash } from 'node:crypto';

// `autodeck init` on throwaway projects (git repositories), through the built CLI.

function initArgv(extra: string[]): string[] {
  return [BIN, 'init', ...extra];
}

function runInit(w: Workspace, cwd = w.dir, env: NodeJS.ProcessEnv = {}, extra: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, initArgv(extra), { cwd, env: { ...w.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

const STATE_EVENTS = ['UserPromptSubmit', 'PreToolUse', 'Notification', 'PreCompact', 'SessionStart', 'SessionEnd'];
const read = (p: string) => readFileSync(p, 'utf8');

let ws: Workspace;
afterEach(() => ws?.cleanup());

describe('autodeck init', () => {
  it('in a fresh project: creates .gitignore and .claude/settings.json with every hook', async () => {
    ws = makeWorkspace();
    const r = await runInit(ws);
    expect(r.code, r.stderr).toBe(0);
    expect(read(join(ws.dir, '.gitignore'))).toBe('.auto-signal\n.auto-signal.tmp\n.auto-stop\n.autodeck.lock\n');
    const settings = JSON.parse(read(join(ws.dir, '.claude', 'settings.json'))) as { hooks: Record<string, unknown[]> };
    expect(Object.keys(settings.hooks)).toEqual(['Stop', ...STATE_EVENTS, 'PermissionRequest']);
    const stop = settings.hooks.Stop!;
    expect(stop).toEqual([{ hooks: [{ type: 'command', command: expect.stringMatching(/hook stop$/) }] }]);
    for (const e of STATE_EVENTS) expect(registeredCommands(settings, e)).toEqual([expect.stringMatching(/hook state$/)]);
    // not on PATH here: this Node and this bin, by absolute path
    expect(registeredCommands(settings, 'Stop')[0]).toBe(`test -z "$AUTODECK_SESSION" || ${shellQuote(process.execPath)} ${shellQuote(BIN)} hook stop`);
    // Claude Code's own sessions: the permission hook, the other way round (not in autodeck's loops), with a day to wait for a person
    expect(settings.hooks.PermissionRequest).toEqual([{ hooks: [{
      type: 'command', timeout: 86_400,
      command: `test -n "$AUTODECK_SESSION" || test ! -f ${shellQuote(BIN)} || ${shellQuote(process.execPath)} ${shellQuote(BIN)} hook permission`,
    }] }]);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual([
      '.gitignore: added .auto-signal', '.gitignore: added .auto-signal.tmp', '.gitignore: added .auto-stop', '.gitignore: added .autodeck.lock',
      ...['Stop', ...STATE_EVENTS, 'PermissionRequest'].map((e) => expect.stringMatching(new RegExp(`^\\.claude/settings\\.json: added the ${e} hook: `))),
      `.claude/skills/autodeck-auto/SKILL.md: added the /autodeck-auto skill (v${SKILL_VERSION})`,
      `recorded ${ws.dir} as a project you trust: autodeck may accept Claude Code's folder-trust dialog here`,
      'to take these back: autodeck init --undo',
    ]);
    expect(read(join(ws.dir, SKILL_PATH))).toBe(skillFile());
    // in the user's own state folder, never in the project (a project cannot vouch for itself)
    expect(read(join(ws.env.XDG_STATE_HOME!, 'autodeck', 'trusted-projects'))).toBe(`${ws.dir}\n`);
  });

  it("installs the skill once; keeps a person's edited copy and says so; --force replaces it; an older unedited copy is updated", async () => {
    ws = makeWorkspace();
    expect((await runInit(ws)).code).toBe(0);
    const path = join(ws.dir, SKILL_PATH);
    expect(await runInit(ws)).toMatchObject({ code: 0, stdout: 'nothing to change\n' });

    const edited = read(path).replace('Never ask the person anything', 'Ask me before merging');
    writeFileSync(path, edited);
    const kept = await runInit(ws);
    expect(kept).toMatchObject({ code: 0, stdout: `${SKILL_PATH}: kept your edited copy (autodeck's differs); "autodeck init --force" replaces it\n` });
    expect(read(path)).toBe(edited);

    const forced = await runInit(ws, ws.dir, {}, ['--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/replaced your edited copy/);
    expect(forced.stdout).toMatch(/to take these back: autodeck init --undo\n$/);
    expect(read(path)).toBe(skillFile());

    // an earlier autodeck's own copy: its stamp still matches its text
    const oldBody = 'old words of the skill\n';
    writeFileSync(path, `${oldBody}\n<!-- autodeck-skill v0 sha256:${createHash('sha256').update(oldBody).digest('hex')} -->\n`);
    const updated = await runInit(ws);
    expect(updated.stdout).toBe(`${SKILL_PATH}: updated the /autodeck-auto skill (v0 -> v${SKILL_VERSION})\nto take these back: autodeck init --undo\n`);
    expect(read(path)).toBe(skillFile());
  });

  it('merges into existing settings, keeping every other key and hook, and a second run changes nothing', async () => {
    ws = makeWorkspace();
    mkdirSync(join(ws.dir, '.claude'));
    const existing = {
      model: 'opus', permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './check-bash.sh', timeout: 5 }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }],
        PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'prettier --write' }] }],
      },
      env: { FOO: '1' },
    };
    writeFileSync(join(ws.dir, '.claude', 'settings.json'), `${JSON.stringify(existing, null, 4)}\n`);
    writeFileSync(join(ws.dir, '.gitignore'), 'node_modules/\n.auto-stop\n');

    const first = await runInit(ws);
    expect(first.code, first.stderr).toBe(0);
    const text = read(join(ws.dir, '.claude', 'settings.json'));
    expect(text).toMatch(/^{\n {4}"model"/); // its indentation kept
    const merged = JSON.parse(text) as typeof existing & { hooks: Record<string, unknown[]> };
    expect(merged).toMatchObject({ model: 'opus', permissions: { allow: ['Bash(npm test)'] }, env: { FOO: '1' } });
    expect(merged.hooks.PostToolUse).toEqual(existing.hooks.PostToolUse);
    expect(merged.hooks.PreToolUse![0]).toEqual(existing.hooks.PreToolUse[0]);
    expect(registeredCommands(merged, 'PreToolUse')).toEqual(['./check-bash.sh', expect.stringMatching(/hook state$/)]);
    expect(registeredCommands(merged, 'Stop')).toEqual(['say done', expect.stringMatching(/hook stop$/)]);
    expect(read(join(ws.dir, '.gitignore'))).toBe('node_modules/\n.auto-stop\n.auto-signal\n.auto-signal.tmp\n.autodeck.lock\n');
    expect(first.stdout).not.toMatch(/added \.auto-stop/);

    const before = { settings: text, ignore: read(join(ws.dir, '.gitignore')) };
    const second = await runInit(ws);
    expect(second).toMatchObject({ code: 0, stdout: 'nothing to change\n' });
    expect(read(join(ws.dir, '.claude', 'settings.json'))).toBe(before.settings);
    expect(read(join(ws.dir, '.gitignore'))).toBe(before.ignore);
  });

  it('appends to a .gitignore without a trailing newline, byte for byte', async () => {
    ws = makeWorkspace();
    writeFileSync(join(ws.dir, '.gitignore'), '# mine\r\ndist');
    expect((await runInit(ws)).code).toBe(0);
    expect(read(join(ws.dir, '.gitignore'))).toBe('# mine\r\ndist\r\n.auto-signal\r\n.auto-signal.tmp\r\n.auto-stop\r\n.autodeck.lock\r\n');
  });

  it('works from a subfolder: the project is the git top level', async () => {
    ws = makeWorkspace();
    const r = await runInit(ws, ws.root);
    expect(r.code).toBe(0);
    expect(existsSync(join(ws.dir, '.claude', 'settings.json'))).toBe(true);
    expect(existsSync(join(ws.root, '.claude'))).toBe(false);
  });

  it.each([
    ['not JSON', '{ "hooks": { , }', /settings\.json is not valid JSON/],
    ['not an object', '["a"]', /settings\.json is not a JSON object/],
    ['hooks that are not an object', '{"hooks": []}', /"hooks" is not an object/],
    ['an event that is not a list', '{"hooks": {"Stop": {"command": "x"}}}', /"hooks\.Stop" is not an array/],
  ])('a settings file that is %s: exit 2, one line, nothing touched', async (_, content, message) => {
    ws = makeWorkspace();
    mkdirSync(join(ws.dir, '.claude'));
    writeFileSync(join(ws.dir, '.claude', 'settings.json'), content);
    const r = await runInit(ws);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(read(join(ws.dir, '.claude', 'settings.json'))).toBe(content);
    expect(existsSync(join(ws.dir, '.gitignore'))).toBe(false);
  });

  it('uses the bare name when autodeck on PATH is this autodeck', async () => {
    ws = makeWorkspace();
    const binDir = join(ws.dir, 'pathbin');
    mkdirSync(binDir);
    symlinkSync(BIN, join(binDir, 'autodeck'));
    const r = await runInit(ws, ws.dir, { PATH: `${binDir}:${process.env.PATH ?? ''}` });
    expect(r.code, r.stderr).toBe(0);
    const settings = JSON.parse(read(join(ws.dir, '.claude', 'settings.json'))) as unknown;
    expect(registeredCommands(settings, 'Stop')).toEqual(['test -z "$AUTODECK_SESSION" || autodeck hook stop']);
  });

  it('the registered command is inert in a shell without AUTODECK_SESSION, and answers under it', async () => {
    ws = makeWorkspace();
    expect((await runInit(ws)).code).toBe(0);
    const settings = JSON.parse(read(join(ws.dir, '.claude', 'settings.json'))) as unknown;
    const command = registeredCommands(settings, 'Stop')[0]!;
    const inert = spawnSync('sh', ['-c', command], { cwd: ws.dir, env: { ...ws.env, AUTODECK_DB: ws.db }, input: '{}', encoding: 'utf8' });
    expect(inert).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(existsSync(ws.db)).toBe(false);
    const live = spawnSync('sh', ['-c', command], {
      cwd: ws.dir, env: { ...ws.env, AUTODECK_SESSION: 'auto-x-000000', AUTODECK_DB: ws.db }, input: '{}', encoding: 'utf8',
    });
    expect(live).toMatchObject({ status: 0, stdout: '' }); // no loop for it: allowed
  });
});

describe('the merge, pure', () => {
  const commands = { stop: 'autodeck hook stop', state: 'autodeck hook state' };

  it('updates an autodeck hook whose path moved instead of adding a second one', () => {
    const settings = { hooks: { Stop: [{ hooks: [{ type: 'command', command: "node '/old place/bin/autodeck.js' hook stop" }] }] } };
    const r = mergeHooks(settings, commands);
    expect(registeredCommands(r.settings, 'Stop')).toEqual(['autodeck hook stop']);
    expect(r.changes[0]).toBe('updated the Stop hook: autodeck hook stop');
    expect(registeredCommands(settings, 'Stop')).toEqual(["node '/old place/bin/autodeck.js' hook stop"]); // the input is not changed
  });

  it('returns the same object when nothing changes', () => {
    const once = mergeHooks({}, commands).settings;
    const twice = mergeHooks(once, commands);
    expect(twice.changes).toEqual([]);
    expect(twice.settings).toBe(once);
  });

  it.each([
    ['autodeck hook stop', 'stop', true],
    ['test -z "$AUTODECK_SESSION" || autodeck hook stop', 'stop', true],
    ["'/usr/bin/node' '/a b/bin/autodeck.js' hook stop", 'stop', true],
    ['/usr/local/bin/autodeck hook state', 'state', true],
    ['autodeck hook state', 'stop', false],
    ['my-autodeck hook stop', 'stop', false],
    ['autodeck hook stopper', 'stop', false],
  ] as const)('%s is an autodeck %s hook: %s', (command, kind, want) => {
    expect(isAutodeckHook(command, kind)).toBe(want);
  });

  it('quotes paths for a shell', () => {
    expect(shellQuote('/usr/bin/node')).toBe('/usr/bin/node');
    expect(shellQuote("/it's here/$(rm -rf ~)/x")).toBe(`'/it'\\''s here/$(rm -rf ~)/x'`);
    const cmd = hookCommands({ PATH: '' }, "/we'ird $dir/bin/autodeck.js", '/opt/node 20/bin/node').stop;
    expect(cmd).toBe(`test -z "$AUTODECK_SESSION" || '/opt/node 20/bin/node' '/we'\\''ird $dir/bin/autodeck.js' hook stop`);
    const echoed = spawnSync('sh', ['-c', cmd.replace(/^.*\|\| /, 'printf "%s\\n" ')], { encoding: 'utf8' });
    expect(echoed.stdout).toBe("/opt/node 20/bin/node\n/we'ird $dir/bin/autodeck.js\nhook\nstop\n");
  });

  it('.gitignore: only the missing lines, everything else kept', () => {
    expect(mergeGitignore(undefined)).toEqual({ text: '.auto-signal\n.auto-signal.tmp\n.auto-stop\n.autodeck.lock\n', added: ['.auto-signal', '.auto-signal.tmp', '.auto-stop', '.autodeck.lock'] });
    expect(mergeGitignore('a\n  .auto-signal  \n.auto-signal.tmp\n.auto-stop\n.autodeck.lock')).toEqual({ text: 'a\n  .auto-signal  \n.auto-signal.tmp\n.auto-stop\n.autodeck.lock', added: [] });
    expect(mergeGitignore('x').text).toBe('x\n.auto-signal\n.auto-signal.tmp\n.auto-stop\n.autodeck.lock\n');
  });
});
