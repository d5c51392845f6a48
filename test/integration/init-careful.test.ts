import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/cli.js';
import { registeredCommands } from '../../src/hooks/claudeHooks.js';
import { readJsonc } from '../../src/init/jsonEdit.js';
import { SKILL_PATH } from '../../src/skill/autodeckAuto.js';

// `autodeck init` where a newcomer may run it: outside a project, in the home folder, in a
// project with settings of its own (comments, one-line lists, four spaces) that the person
// goes on editing after init; and `init --undo`, which must take back exactly what init did.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Place {
  base: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

function place(): Place {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'autodeck-init-')));
  dirs.push(base);
  const home = join(base, 'home');
  mkdirSync(home);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', HOME: home, XDG_STATE_HOME: join(base, 'state'), XDG_CONFIG_HOME: join(base, 'config'), NO_COLOR: '1' };
  return { base, home, env };
}

function init(p: Place, cwd: string, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'init', ...args], { cwd, env: p.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
  child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

const read = (path: string): string => readFileSync(path, 'utf8');
/** Every file under `dir`, with its content: what a person would see changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) {
        out[`${rel}${e.name}/`] = '';
        walk(join(d, e.name), `${rel}${e.name}/`);
      } else out[`${rel}${e.name}`] = read(join(d, e.name));
    }
  };
  walk(dir, '');
  return out;
}

/** A project's own settings, as a person writes them: comments, a one-line list, four spaces, a trailing comma. */
const OWN_SETTINGS = `{
    // the model for this repository
    "model": "opus",
    "permissions": { "allow": ["Bash(npm test)", "Read"] },
    "hooks": {
        "Stop": [{ "hooks": [{ "type": "command", "command": "say done" }] }],
        "PostToolUse": [
            { "matcher": "Edit", "hooks": [{ "type": "command", "command": "prettier --write" }] }
        ]
    }, /* kept as it is */
}
`;

describe('init refuses where it has no project', () => {
  it('outside a git repository or project folder, and in the home folder (a git repository of dotfiles too): exit 2, nothing written', async () => {
    const p = place();
    const loose = join(p.base, 'Downloads');
    mkdirSync(loose);
    const r = await init(p, loose);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`autodeck init: ${loose} is not in a git repository or a project folder (none of .git, .hg, .jj, .svn, package.json, pyproject.toml, Cargo.toml, go.mod found); run it at your project's top (cd ~/src/my-project), or to write them to your user settings for every project instead: autodeck init --user`);
    const home = await init(p, p.home);
    expect(home.code).toBe(2);
    expect(home.stderr).toMatch(/is your home folder, whose \.claude\/settings\.json is your user settings for every project/);
    mkdirSync(join(p.home, '.git'));
    mkdirSync(join(p.home, 'notes'));
    expect((await init(p, join(p.home, 'notes'))).code).toBe(2);
    expect(readdirSync(p.home).sort()).toEqual(['.git', 'notes']);
    expect(readdirSync(loose)).toEqual([]);
    expect(existsSync(join(p.base, 'state'))).toBe(false);
  });

  it('a folder with a project manifest is a project without git', async () => {
    const p = place();
    const proj = join(p.base, 'proj');
    mkdirSync(proj);
    writeFileSync(join(proj, 'package.json'), '{}\n');
    const r = await init(p, proj);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(proj, '.claude', 'settings.json'))).toBe(true);
  });

  it('--user says it writes the user settings for every project, writes ~/.claude only, and --undo --user takes it back', async () => {
    const p = place();
    mkdirSync(join(p.home, '.claude'));
    const own = '{\n  "theme": "dark"\n}\n';
    writeFileSync(join(p.home, '.claude', 'settings.json'), own);
    const r = await init(p, p.home, ['--user']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('autodeck init --user: your user settings (~/.claude/settings.json) apply to every project; the hooks do nothing in sessions autodeck did not start');
    expect(r.stdout).toMatch(/^~\/\.claude\/settings\.json: added the Stop hook: /m);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('to take these back: autodeck init --undo --user');
    const settings = read(join(p.home, '.claude', 'settings.json'));
    expect(settings.startsWith('{\n  "theme": "dark",\n  "hooks": {\n')).toBe(true);
    expect(existsSync(join(p.home, SKILL_PATH))).toBe(true);
    expect(existsSync(join(p.home, '.gitignore'))).toBe(false);

    const undo = await init(p, p.home, ['--undo', '--user']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(read(join(p.home, '.claude', 'settings.json'))).toBe(own);
    expect(readdirSync(join(p.home, '.claude'))).toEqual(['settings.json']);
  });
});

describe('init in a project with its own settings', () => {
  function project(p: Place): string {
    const proj = join(p.base, 'repo');
    mkdirSync(join(proj, '.git'), { recursive: true });
    mkdirSync(join(proj, '.claude'));
    writeFileSync(join(proj, '.claude', 'settings.json'), OWN_SETTINGS);
    writeFileSync(join(proj, '.gitignore'), 'node_modules/\n.auto-stop\n');
    chmodSync(join(proj, '.claude', 'settings.json'), 0o600);
    return proj;
  }

  it('edits in place: every line the person wrote is still there in order, comments too; a one-line list stays one line', async () => {
    const p = place();
    const proj = project(p);
    const r = await init(p, proj);
    expect(r.code, r.stderr).toBe(0);
    const after = read(join(proj, '.claude', 'settings.json'));
    // the person's lines, in order, each unchanged but for a comma added at the end (the
    // one-line Stop list takes the new entry: below)
    const mine = OWN_SETTINGS.trimEnd().split('\n').filter((l) => !l.includes('"Stop"'));
    const lines = after.split('\n');
    let at = 0;
    for (const l of mine) {
      const found = lines.findIndex((x, i) => i >= at && (x === l || x === `${l},`));
      expect(found, `${l}\n---\n${after}`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
    // the Stop list was one line: still one line, with the autodeck hook in it
    expect(after).toMatch(/^ {8}"Stop": \[\{ "hooks": \[\{ "type": "command", "command": "say done" \}\] \}, \{"hooks": \[\{"type": "command", "command": "test -z \\"\$AUTODECK_SESSION\\" \|\| .* hook stop"\}\]\}\],$/m);
    // a new list in four spaces, at its neighbours' indentation
    expect(after).toMatch(/\n {8}"UserPromptSubmit": \[\n {12}\{\n {16}"hooks": \[\n/);
    const value = readJsonc(after);
    expect('value' in value && registeredCommands(value.value, 'PostToolUse')).toEqual(['prettier --write']);
    expect(statSync(join(proj, '.claude', 'settings.json')).mode & 0o777).toBe(0o600); // its mode kept
    expect(r.stdout).not.toMatch(/\.gitignore: added \.auto-stop/);
  });

  it('--undo after the person changed things meanwhile: takes back exactly what init added, keeps every change of theirs', async () => {
    const p = place();
    const proj = project(p);
    const before = snapshot(proj);
    expect((await init(p, proj)).code).toBe(0);
    const settingsPath = join(proj, '.claude', 'settings.json');

    // meanwhile the person edits: another model, a setting of their own, a hook of their own,
    // removes one of autodeck's hooks by hand, adds to .gitignore
    const edits = (t: string): string => t
      .replace('"model": "opus"', '"model": "sonnet"')
      .replace('// the model for this repository\n', '// the model for this repository\n    "verbose": true,\n')
      .replace('{ "matcher": "Edit", "hooks"', '{ "matcher": "Write", "hooks": [{ "type": "command", "command": "lint" }] },\n            { "matcher": "Edit", "hooks"');
    let text = edits(read(settingsPath));
    const withoutSessionEnd = text.replace(/,\n {8}"SessionEnd": \[\n[\s\S]*?\n {8}\]/, '');
    expect(withoutSessionEnd).not.toBe(text);
    text = withoutSessionEnd;
    // and a hook of their own with a comment, between two of autodeck's
    const between = text.replace(/\n( {8})"PreCompact": \[/, '\n$1// mine, between autodeck\'s hooks\n$1"SubagentStop": [],\n$1"PreCompact": [');
    expect(between).not.toBe(text);
    text = between;
    writeFileSync(settingsPath, text);
    writeFileSync(join(proj, '.gitignore'), `${read(join(proj, '.gitignore'))}dist/\n`);

    const undo = await init(p, proj, ['--undo']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('.claude/settings.json: the SessionEnd hook init added is gone already');
    expect(undo.stdout).toContain('.claude/settings.json: removed the Stop hook');
    expect(undo.stdout).toContain('.gitignore: removed .autodeck.lock');
    expect(undo.stdout).toContain(`${SKILL_PATH}: removed the /autodeck-auto skill`);
    // exactly the person's own text with their edits: byte for byte
    expect(read(settingsPath)).toBe(edits(OWN_SETTINGS).replace('        ]\n    }, /* kept', '        ],\n        // mine, between autodeck\'s hooks\n        "SubagentStop": []\n    }, /* kept'));
    expect(read(join(proj, '.gitignore'))).toBe('node_modules/\n.auto-stop\ndist/\n'); // .auto-stop was theirs
    const after = snapshot(proj);
    delete after['.claude/settings.json'];
    delete after['.gitignore'];
    delete before['.claude/settings.json'];
    delete before['.gitignore'];
    expect(after).toEqual(before); // the skill and its folders gone, nothing else made or left
    // a second undo has nothing to take back
    const again = await init(p, proj, ['--undo']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^autodeck init --undo: no record of an init of \.claude\/settings\.json/);
  });

  it('--undo in a fresh project leaves it as it was; an edited skill is kept; init works again after', async () => {
    const p = place();
    const proj = join(p.base, 'fresh');
    mkdirSync(join(proj, '.git'), { recursive: true });
    const before = snapshot(proj);
    expect((await init(p, proj)).code).toBe(0);
    expect((await init(p, proj, ['--undo'])).code).toBe(0);
    expect(snapshot(proj)).toEqual(before);

    expect((await init(p, proj)).code).toBe(0);
    writeFileSync(join(proj, SKILL_PATH), 'my own skill\n');
    const undo = await init(p, proj, ['--undo']);
    expect(undo.stdout).toContain(`${SKILL_PATH}: kept (edited since init wrote it)`);
    expect(read(join(proj, SKILL_PATH))).toBe('my own skill\n');
    expect(existsSync(join(proj, '.claude', 'settings.json'))).toBe(false);
    expect(existsSync(join(proj, '.gitignore'))).toBe(false);
  });
});
