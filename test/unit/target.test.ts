import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isTemplateLine, TARGET_SECTIONS, targetHasContent, targetTemplate } from '../../src/protocol/target.js';
import { createModule, moduleNameError, newIndex, titleError } from '../../src/protocol/create.js';
import { readModuleInfo, startRefusal } from '../../src/protocol/modules.js';

const base = mkdtempSync(join(tmpdir(), 'autodeck-target-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const TITLES = ['demo-task', 'Fix the login page', 'a <b> & "c" -- d', 'TODO', '# hash', 'É ünïcode ✓', '<!-- not closed', 'x'.repeat(200)];

describe('the .target.md template and its detector', () => {
  it.each(TITLES)('the template titled %j counts as not filled', (title) => {
    const text = targetTemplate(title);
    expect(targetHasContent(text)).toBe(false);
    expect(text.split('\n')[0]).toBe(`# ${title}`);
    for (const { heading } of TARGET_SECTIONS) expect(text).toContain(`\n## ${heading}\n`);
  });

  it('every line of the template, comments aside, is a template line', () => {
    const lines = targetTemplate('T').replace(/<!--[\s\S]*?-->/g, '').split('\n');
    expect(lines.every(isTemplateLine)).toBe(true);
    // the guidance is there to be read, as comments
    expect(targetTemplate('T').match(/<!-- .+ -->/g)).toHaveLength(TARGET_SECTIONS.length + 1);
  });

  it.each([
    ['a sentence under Goal', (t: string) => t.replace('## Goal\n', '## Goal\n\nThe login page accepts SSO.\n')],
    ['a bullet under Acceptance criteria', (t: string) => t.replace('## Acceptance criteria\n', '## Acceptance criteria\n\n- npm test passes\n')],
    ['a line at the end', (t: string) => `${t}Keep the API stable.\n`],
    ['a line where a comment was', (t: string) => t.replace(/<!-- What should[^\n]*-->/, 'Ship it.')],
  ])('one line of real content makes it filled: %s', (_what, edit) => {
    expect(targetHasContent(edit(targetTemplate('T')))).toBe(true);
  });

  it('placeholders and empty bullets are still template', () => {
    for (const extra of ['- [ ]', '-', 'TODO', 'TBD', '...', '<goal>', '- <criterion>', '<!-- more guidance -->']) {
      expect(targetHasContent(`${targetTemplate('T')}${extra}\n`), extra).toBe(false);
    }
  });
});

describe('module names and titles for autodeck new', () => {
  it('takes one segment of letters, digits, . _ -, starting with a letter or digit', () => {
    for (const ok of ['demo-task', 'a', 'A1', 'v1.2_fix', '9lives', 'x'.repeat(64)]) expect(moduleNameError(ok), ok).toBeUndefined();
    const bad: [string, RegExp][] = [
      ['', /empty/], ['..', /letters, digits/], ['.', /letters, digits/], ['.hidden', /letters, digits/], ['-flag', /letters, digits/],
      ['a/b', /without "\/"/], ['a\\b', /without "\/"/], ['/abs', /without "\/"/], ['sp ace', /letters, digits/], ['é', /letters, digits/],
      ['a\nb', /letters, digits/], ['x'.repeat(65), /at most 64/],
    ];
    for (const [name, message] of bad) expect(moduleNameError(name), JSON.stringify(name)).toMatch(message);
  });

  it('takes one line of printable text as a title', () => {
    for (const ok of ['Fix it', 'É ✓', 'x'.repeat(200)]) expect(titleError(ok)).toBeUndefined();
    for (const bad of ['', '   ', 'a\nb', 'a\tb', '\u001b[31mred', 'x'.repeat(201)]) expect(titleError(bad), JSON.stringify(bad)).toBeDefined();
  });

  it('writes a draft index with the title and the time', () => {
    expect(newIndex('T', new Date('2026-11-23T10:00:00Z'))).toEqual({ title: 'T', status: 'draft', created_at: '2026-11-23T10:00:00.000Z' });
  });
});

describe('createModule', () => {
  it('makes the root, the folder and both files; the module is a draft refused until filled', () => {
    const root = join(base, 'made', 'AiTasks');
    const r = createModule(root, 'm', ' Title ', new Date('2026-11-23T10:00:00Z'));
    expect(r).toEqual({ ok: true, dir: join(root, 'm'), files: ['.index.json', '.target.md'] });
    expect(readModuleInfo(join(root, 'm'))).toEqual({ status: 'draft', title: 'Title' });
    expect(startRefusal(join(root, 'm'))).toBe('fill .target.md first');
    writeFileSync(join(root, 'm', '.target.md'), `${readFileSync(join(root, 'm', '.target.md'), 'utf8')}Do the thing.\n`);
    expect(startRefusal(join(root, 'm'))).toBeUndefined();
  });

  it('leaves a folder or file already there alone', () => {
    const root = join(base, 'taken');
    mkdirSync(join(root, 'dir'), { recursive: true });
    writeFileSync(join(root, 'dir', '.target.md'), 'mine\n');
    writeFileSync(join(root, 'file'), 'a file\n');
    for (const name of ['dir', 'file']) expect(createModule(root, name, 'T', new Date())).toEqual({ ok: false, exists: true, dir: join(root, name) });
    expect(readFileSync(join(root, 'dir', '.target.md'), 'utf8')).toBe('mine\n');
    expect(readdirSync(join(root, 'dir'))).toEqual(['.target.md']);
  });

  it('removes the half-made folder when a file cannot be written, and says why', () => {
    const root = join(base, 'full');
    const failing = (path: string, text: string) => {
      if (path.endsWith('.index.json')) throw new Error('ENOSPC: no space left on device');
      writeFileSync(path, text);
    };
    expect(() => createModule(root, 'm', 'T', new Date(), failing)).toThrow(/ENOSPC/);
    expect(readdirSync(root)).toEqual([]);
  });
});
