import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorktree, cwdInWorktree, WorktreeRefused } from '../../src/worktree/create.js';
import { holdsNothing, listLoopWorktrees, removeIfEmpty, stateWords, worktreeState } from '../../src/worktree/state.js';
import { commitAll, initRepo, sh, writeFiles } from '../helpers/gitRepo.js';

// Real git repositories in temporary folders: what a loop worktree is made from, what it
// refuses, and that nothing holding work is ever removed.

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function tmp(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'autodeck-wt-')));
  dirs.push(d);
  return d;
}

function repo(files?: Record<string, string>): string {
  const d = join(tmp(), 'project');
  initRepo(d, files ?? { 'README.md': 'hello\n', 'src/app.txt': 'v1\n', 'AiTasks/first/.index.json': '{"status":"planning"}\n' });
  return d;
}

const ids = (...list: string[]) => () => list.shift() ?? 'ffffff';

describe('a loop worktree', () => {
  it('is a new branch autodeck/<module>-<id> from HEAD, in .autodeck/worktrees, ignored by the repository itself', () => {
    const top = repo();
    const wt = createWorktree({ from: join(top, 'AiTasks', 'first'), name: 'first', id: ids('abc123') });
    expect(wt.branch).toBe('autodeck/first-abc123');
    expect(wt.path).toBe(join(top, '.autodeck', 'worktrees', 'first-abc123'));
    expect(wt.repo).toBe(top);
    expect(wt.base).toBe('refs/heads/main');
    expect(wt.baseCommit).toBe(sh(top, 'rev-parse', 'HEAD').trim());
    expect(readFileSync(join(wt.path, 'src', 'app.txt'), 'utf8')).toBe('v1\n');
    expect(sh(wt.path, 'symbolic-ref', '--short', 'HEAD').trim()).toBe('autodeck/first-abc123');
    // the user's checkout is untouched: still on main, nothing to show in its status
    expect(sh(top, 'symbolic-ref', '--short', 'HEAD').trim()).toBe('main');
    expect(sh(top, 'status', '--porcelain')).toBe('');
    expect(wt.sourceDirty).toBe(false);
    // the agent works where it would have in the checkout
    expect(cwdInWorktree(join(top, 'src'), wt)).toBe(join(wt.path, 'src'));
    expect(cwdInWorktree(top, wt)).toBe(wt.path);
    expect(cwdInWorktree('/elsewhere', wt)).toBe(wt.path);
  });

  it('starts from a named base, and says when the checkout had changes that stay behind', () => {
    const top = repo();
    sh(top, 'branch', 'release');
    writeFiles(top, { 'src/app.txt': 'v2\n' });
    commitAll(top, 'v2 on main');
    writeFiles(top, { 'README.md': 'edited, not committed\n' });
    const wt = createWorktree({ from: top, name: 'first', base: 'release', id: ids('000001') });
    expect(wt.base).toBe('refs/heads/release');
    expect(readFileSync(join(wt.path, 'src', 'app.txt'), 'utf8')).toBe('v1\n');
    expect(readFileSync(join(wt.path, 'README.md'), 'utf8')).toBe('hello\n');
    expect(wt.sourceDirty).toBe(true);
    expect(() => createWorktree({ from: top, name: 'x', base: 'no-such-branch' })).toThrow(/"no-such-branch" is not a branch, tag or commit/);
    expect(() => createWorktree({ from: top, name: 'x', base: '--output=/tmp/x' })).toThrow(WorktreeRefused);
  });

  it('hostile module names become safe branch and folder names (spaces, a leading -, .., .lock, shell characters)', () => {
    const top = repo();
    const names = ['my module', '-rf', '../../etc', 'a..b', 'x.lock', '$(touch pwned)', ';rm -rf ~', 'tab\there', '.hidden', '日本語', ''];
    const made = names.map((name, i) => createWorktree({ from: top, name, id: ids(`00000${i.toString(16)}`) }));
    for (const wt of made) {
      expect(wt.path.startsWith(join(top, '.autodeck', 'worktrees') + '/')).toBe(true);
      expect(sh(top, 'check-ref-format', '--branch', wt.branch).trim()).toBe(wt.branch);
      expect(wt.branch).toMatch(/^autodeck\/[A-Za-z0-9][A-Za-z0-9._-]*-[0-9a-f]{6}$/);
      expect(wt.branch).not.toContain('..');
      expect(existsSync(wt.path)).toBe(true);
    }
    expect(made.map((w) => w.branch)).toEqual([
      'autodeck/my-module-000000', 'autodeck/rf-000001', 'autodeck/etc-000002', 'autodeck/a.b-000003', 'autodeck/x-000004',
      'autodeck/touch-pwned-000005', 'autodeck/rm-rf-000006', 'autodeck/tab-here-000007', 'autodeck/hidden-000008',
      'autodeck/module-000009', 'autodeck/module-00000a',
    ]);
    expect(existsSync(join(top, 'pwned'))).toBe(false);
    expect(existsSync(join(tmpdir(), 'etc-000002'))).toBe(false);
  });

  it('a taken name gets another id', () => {
    const top = repo();
    const a = createWorktree({ from: top, name: 'm', id: ids('aaaaaa') });
    const b = createWorktree({ from: top, name: 'm', id: ids('aaaaaa', 'bbbbbb') });
    expect([a.branch, b.branch]).toEqual(['autodeck/m-aaaaaa', 'autodeck/m-bbbbbb']);
  });

  it('refuses a rebase or a merge in progress, with what to do', () => {
    const top = repo();
    sh(top, 'checkout', '-q', '-b', 'other');
    writeFiles(top, { 'src/app.txt': 'other\n' });
    commitAll(top, 'other');
    sh(top, 'checkout', '-q', 'main');
    writeFiles(top, { 'src/app.txt': 'main\n' });
    commitAll(top, 'main');
    expect(() => sh(top, 'merge', 'other')).toThrow();
    expect(() => createWorktree({ from: top, name: 'm' })).toThrow(/a merge is in progress; finish it or abort it/);
    sh(top, 'merge', '--abort');
    sh(top, 'checkout', '-q', 'other');
    expect(() => sh(top, 'rebase', 'main')).toThrow();
    expect(() => createWorktree({ from: top, name: 'm' })).toThrow(/a rebase is in progress/);
    sh(top, 'rebase', '--abort');
    expect(createWorktree({ from: top, name: 'm' }).branch).toMatch(/^autodeck\/m-/);
  });

  it('refuses no repository, no commit, submodules, and a module inside a submodule', () => {
    const plain = tmp();
    expect(() => createWorktree({ from: plain, name: 'm' })).toThrow(/is not in a git repository/);
    const empty = join(tmp(), 'empty');
    mkdirSync(empty);
    sh(empty, 'init', '-q');
    expect(() => createWorktree({ from: empty, name: 'm' })).toThrow(/has no commit yet/);

    const lib = repo({ 'lib.txt': 'lib\n' });
    const top = repo();
    sh(top, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'vendor/lib');
    commitAll(top, 'a submodule');
    expect(() => createWorktree({ from: top, name: 'm' })).toThrow(/has submodules: a new worktree would have them empty/);
    expect(() => createWorktree({ from: join(top, 'vendor', 'lib'), name: 'm' })).toThrow(/is a submodule of .*: autodeck does not make loop worktrees inside submodules/);
  });

  it('works in a bare-repository layout (the module in one of its linked worktrees); refuses the bare repository itself', () => {
    const base = tmp();
    const origin = join(base, 'origin');
    initRepo(origin, { 'README.md': 'x\n', 'AiTasks/t/.index.json': '{}\n' });
    const bare = join(base, 'project.git');
    sh(base, 'clone', '-q', '--bare', origin, bare);
    const main = join(base, 'main');
    sh(bare, 'worktree', 'add', '-q', main, 'main');
    expect(() => createWorktree({ from: bare, name: 't' })).toThrow(/inside a bare repository/);
    const wt = createWorktree({ from: join(main, 'AiTasks', 't'), name: 't', id: ids('0b0b0b') });
    expect(wt.path).toBe(join(realpathSync(main), '.autodeck', 'worktrees', 't-0b0b0b'));
    expect(existsSync(join(wt.path, 'AiTasks', 't', '.index.json'))).toBe(true);
    const listed = listLoopWorktrees(main);
    expect('worktrees' in listed && listed.worktrees.map((w) => w.path)).toEqual([wt.path]);
  });
});

describe('what a worktree holds, and removing only an empty one', () => {
  it('clean with nothing new: removed by git worktree remove; its branch is kept', () => {
    const top = repo();
    const wt = createWorktree({ from: top, name: 'm', id: ids('111111') });
    const s = worktreeState(wt.path);
    expect(s).toMatchObject({ exists: true, changed: 0, untracked: 0, ahead: 0, merged: false, branch: 'autodeck/m-111111' });
    expect(stateWords(s)).toBe('clean, nothing new');
    expect(holdsNothing(s)).toBe(true);
    const r = removeIfEmpty(top, wt.path);
    expect(r.removed).toBe(true);
    expect(existsSync(wt.path)).toBe(false);
    expect(sh(top, 'branch', '--list', 'autodeck/m-111111').trim()).toBe('autodeck/m-111111');
  });

  it('an uncommitted edit, an untracked file, a commit: each keeps the worktree', () => {
    const top = repo();
    const edited = createWorktree({ from: top, name: 'edited', id: ids('222222') });
    writeFileSync(join(edited.path, 'src', 'app.txt'), 'changed\n');
    const added = createWorktree({ from: top, name: 'added', id: ids('333333') });
    writeFileSync(join(added.path, 'new.txt'), 'new\n');
    const committed = createWorktree({ from: top, name: 'committed', id: ids('444444') });
    writeFiles(committed.path, { 'src/app.txt': 'v2\n' });
    commitAll(committed.path, 'work');
    writeFiles(committed.path, { 'more.txt': 'x\n' });
    commitAll(committed.path, 'more work');

    const kept = [edited, added, committed].map((w) => removeIfEmpty(top, w.path));
    expect(kept.map((k) => k.removed)).toEqual([false, false, false]);
    expect(kept.map((k) => (k.removed ? '' : k.why))).toEqual(['dirty (1 changed), nothing new', 'dirty (1 untracked), nothing new', 'clean, 2 ahead']);
    for (const w of [edited, added, committed]) expect(existsSync(w.path)).toBe(true);
    expect(readFileSync(join(edited.path, 'src', 'app.txt'), 'utf8')).toBe('changed\n');

    // once main has the commits, the worktree is merged: nothing is lost by removing it
    sh(top, 'merge', '-q', '--ff-only', committed.branch);
    const merged = worktreeState(committed.path);
    expect(stateWords(merged)).toBe('clean, merged');
    expect(removeIfEmpty(top, committed.path).removed).toBe(true);
  });

  it('a worktree whose base ref moved on compares with the base as it is now; an ignored file is no work', () => {
    const top = repo({ 'README.md': 'x\n', '.gitignore': 'build/\n' });
    const wt = createWorktree({ from: top, name: 'm', id: ids('555555') });
    writeFiles(top, { 'later.txt': 'main moved\n' });
    commitAll(top, 'main moves on');
    writeFiles(wt.path, { 'build/out.bin': 'generated\n' });
    expect(stateWords(worktreeState(wt.path))).toBe('clean, nothing new');
  });

  it('lists the loop worktrees of a repository, not the user\'s own', () => {
    const top = repo();
    const mine = createWorktree({ from: top, name: 'm', id: ids('666666') });
    sh(top, 'worktree', 'add', '-q', '-b', 'feature', join(tmp(), 'feature'));
    const listed = listLoopWorktrees(top);
    expect('worktrees' in listed && listed.worktrees.map((w) => [w.path, w.ref])).toEqual([[mine.path, `refs/heads/${mine.branch}`]]);
    expect('repo' in listed && listed.repo).toBe(top);
  });
});
