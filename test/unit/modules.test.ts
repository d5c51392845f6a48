import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverModules, parseFrontMatter, readModuleInfo, resolveModule, startRefusal, targetHasContent } from '../../src/protocol/modules.js';

function tree(files: Record<string, string>): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'autodeck-mod-')));
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), content);
  }
  return dir;
}

describe('lifecycle status', () => {
  it.each([
    ['.index.json first', { '.index.json': '{"status":"executing"}', '.index.md': '---\nstatus: review\n---\n' }, 'executing'],
    ['then .index.md front matter', { '.index.md': '---\ntitle: "X"\nstatus: review\n---\n# X\n', '.working/.status.json': '{"status":"draft"}' }, 'review'],
    ['then .working/.status.json', { '.working/.status.json': '{"status":"re-planning"}' }, 're-planning'],
    ['an unknown word is unknown', { '.index.json': '{"status":"done-ish"}' }, 'unknown'],
    ['broken JSON falls through', { '.index.json': '{', '.working/.status.json': '{"status":"blocked"}' }, 'blocked'],
    ['nothing at all', { '.target.md': '# T' }, 'unknown'],
  ])('%s', (_, files, status) => {
    expect(readModuleInfo(tree(files)).status).toBe(status);
  });
  it('front matter needs both fences', () => {
    expect(parseFrontMatter('---\nstatus: review\n')).toEqual({});
    expect(parseFrontMatter('status: review\n')).toEqual({});
  });
});

describe('.target.md content', () => {
  it.each([
    ['# Target\n\n## Goal\n\n## Constraints\n', false],
    ['# Target\n<!-- describe the goal -->\n- [ ]\n', false],
    ['# Target\n\n<goal>\n', false],
    ['# Target\n\nMake the login page.\n', true],
    ['- [ ] write tests\n', true],
  ])('%j has content: %s', (text, expected) => {
    expect(targetHasContent(text)).toBe(expected);
  });
  it('a draft with an empty target is refused, a cancelled module always', () => {
    expect(startRefusal(tree({ '.index.json': '{"status":"draft"}', '.target.md': '# Target\n\n## Goal\n' }))).toBe('fill .target.md first');
    expect(startRefusal(tree({ '.index.json': '{"status":"draft"}', '.target.md': '# Target\nDo it.\n' }))).toBeUndefined();
    expect(startRefusal(tree({ '.index.json': '{"status":"cancelled"}' }))).toMatch(/cancelled/);
  });
});

describe('discovery and resolution', () => {
  const ws = tree({
    'AiTasks/b-mod/.index.json': '{}',
    'AiTasks/a mod/.target.md': '# T\nx\n',
    'AiTasks/not-a-module/readme.txt': '',
    'AiTasks/c/.working/.status.json': '{"status":"draft"}',
    'elsewhere/x/.index.json': '{}',
  });
  const root = join(ws, 'AiTasks');
  it('lists modules directly under the roots, sorted by name, each once', () => {
    symlinkSync(join(root, 'b-mod'), join(root, 'z-link'));
    const found = discoverModules([root, root, join(ws, 'missing')]);
    expect(found.map((m) => m.name)).toEqual(['a mod', 'b-mod', 'c']);
  });
  it('sorts names without regard to case, then lower case first', () => {
    const ws2 = tree({ 'R/beta/.index.json': '{}', 'R/Alpha/.index.json': '{}', 'R/alpha/.index.json': '{}', 'R/Gamma/.index.json': '{}', 'R/delta/.index.json': '{}' });
    expect(discoverModules([join(ws2, 'R')]).map((m) => m.name)).toEqual(['alpha', 'Alpha', 'beta', 'delta', 'Gamma']);
  });
  it('follows a link to a module folder elsewhere, by its real path; files and dangling links are no modules', () => {
    const ws3 = tree({ 'R/own/.index.json': '{}', 'R/.index.json': '{}', 'R/file.txt': 'x', 'out/linked/.index.md': '---\nstatus: draft\n---\n' });
    const r = join(ws3, 'R');
    symlinkSync(join(ws3, 'out', 'linked'), join(r, 'alias'));
    symlinkSync(join(ws3, 'R', 'file.txt'), join(r, 'to-file'));
    symlinkSync(join(ws3, 'gone'), join(r, 'dangling'));
    // the root reached through a link of its own: modules still come out under real paths
    symlinkSync(r, join(ws3, 'root-link'));
    for (const given of [r, join(ws3, 'root-link')]) {
      expect(discoverModules([given])).toEqual([
        { name: 'linked', dir: join(ws3, 'out', 'linked'), root: r },
        { name: 'own', dir: join(r, 'own'), root: r },
      ]);
    }
  });
  it('resolves relative paths to real paths under a root', () => {
    const r = resolveModule('AiTasks/a mod', [root], ws);
    expect(r).toEqual({ ok: true, module: { name: 'a mod', dir: join(root, 'a mod'), root } });
  });
  it.each([
    ['a missing folder', 'AiTasks/nope', /no such task module/],
    ['a folder that is no module', 'AiTasks/not-a-module', /not a task module/],
    ['a module outside the roots', 'elsewhere/x', /not directly under a root/],
  ])('refuses %s', (_, p, message) => {
    const r = resolveModule(p, [root], ws);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });
});
