import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  defaultDbPath, defaultRoots, gitTopLevel, isSessionId, projectConfigPath, sessionName, slug, userConfigPath,
  xdgConfigHome, xdgStateHome,
} from '../../src/paths.js';

const base = mkdtempSync(join(tmpdir(), 'autodeck-paths-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
// Tests of "outside git" need a temp folder that is not itself inside a checkout.
const tmpOutsideGit = gitTopLevel(tmpdir()) === undefined;

describe('gitTopLevel', () => {
  it('finds a .git folder above a nested folder', () => {
    const top = join(base, 'repo');
    mkdirSync(join(top, '.git'), { recursive: true });
    mkdirSync(join(top, 'a', 'b'), { recursive: true });
    expect(gitTopLevel(join(top, 'a', 'b'))).toBe(top);
    expect(gitTopLevel(top)).toBe(top);
  });

  it('accepts a .git file (worktrees, submodules)', () => {
    const top = join(base, 'worktree');
    mkdirSync(join(top, 'x'), { recursive: true });
    writeFileSync(join(top, '.git'), 'gitdir: /elsewhere\n');
    expect(gitTopLevel(join(top, 'x'))).toBe(top);
  });

  it.runIf(tmpOutsideGit)('is undefined outside git', () => {
    const d = join(base, 'plain', 'deep');
    mkdirSync(d, { recursive: true });
    expect(gitTopLevel(d)).toBeUndefined();
  });
});

describe('XDG folders', () => {
  const HOME = '/home/u';
  it.each([
    ['set and absolute', { HOME, XDG_STATE_HOME: '/s', XDG_CONFIG_HOME: '/c' }, '/s', '/c'],
    ['unset', { HOME }, '/home/u/.local/state', '/home/u/.config'],
    ['empty', { HOME, XDG_STATE_HOME: '', XDG_CONFIG_HOME: '' }, '/home/u/.local/state', '/home/u/.config'],
    ['relative (ignored per the spec)', { HOME, XDG_STATE_HOME: 'st', XDG_CONFIG_HOME: './c' }, '/home/u/.local/state', '/home/u/.config'],
  ])('%s', (_, env, state, config) => {
    expect(xdgStateHome(env)).toBe(state);
    expect(xdgConfigHome(env)).toBe(config);
  });

  it('places the database and the user config under them', () => {
    expect(defaultDbPath({ HOME, XDG_STATE_HOME: '/s' })).toBe('/s/autodeck/state.db');
    expect(defaultDbPath({ HOME })).toBe('/home/u/.local/state/autodeck/state.db');
    expect(userConfigPath({ HOME, XDG_CONFIG_HOME: '/c' })).toBe('/c/autodeck/config.json');
  });
});

describe('defaultRoots and the project file', () => {
  it('uses AiTasks at the git top level', () => {
    const top = join(base, 'proj');
    mkdirSync(join(top, '.git'), { recursive: true });
    mkdirSync(join(top, 'src', 'deep'), { recursive: true });
    expect(defaultRoots(join(top, 'src', 'deep'))).toEqual([join(top, 'AiTasks')]);
    expect(projectConfigPath(join(top, 'src'))).toBe(join(top, '.autodeck.json'));
  });

  it.runIf(tmpOutsideGit)('uses the current folder outside git', () => {
    const d = join(base, 'nogit');
    mkdirSync(d, { recursive: true });
    expect(defaultRoots(d)).toEqual([join(d, 'AiTasks')]);
  });
});

describe('sessionName', () => {
  const sha6 = (s: string) => createHash('sha1').update(s).digest('hex').slice(0, 6);

  it.each([
    ['My Task!', 'my-task'],
    ['  --Fix__the  BUG--  ', 'fix-the-bug'],
    ['Überprüfung', 'berpr-fung'],
    ['***', 'module'],
    ['', 'module'],
    ['a'.repeat(39) + '-b', 'a'.repeat(39)], // cut at 40 would leave a trailing dash
    ['x'.repeat(60), 'x'.repeat(40)],
  ])('slug(%j) = %j', (name, expected) => {
    expect(slug(name)).toBe(expected);
  });

  it('is auto-<slug>-<6 hex of sha1(real path)>', () => {
    const p = '/work/AiTasks/my-task';
    expect(sessionName('My Task', p)).toBe(`auto-my-task-${sha6(p)}`);
    expect(sessionName('My Task', p)).toMatch(/^auto-my-task-[0-9a-f]{6}$/);
  });

  it('tells apart modules of the same name under different roots', () => {
    expect(sessionName('t', '/a/t')).not.toBe(sessionName('t', '/b/t'));
  });
});

describe('isSessionId', () => {
  it('takes [A-Za-z0-9._-]{1,64} and nothing else', () => {
    for (const ok of ['s1', 'my.session-2', 'A_b.C-9', 'auto', 'x'.repeat(64), '...']) expect(isSessionId(ok), ok).toBe(true);
    for (const bad of ['', 'a/b', 'sp ace', 'x'.repeat(65), 'a:b', 'é', 'a\nb', 'a%2Fb']) expect(isSessionId(bad), bad).toBe(false);
  });
});
