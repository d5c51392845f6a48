import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTINGS_TABLE } from '../../src/config/settings.js';
import { keyListMarkdown } from '../../src/keymap.js';
import { stateTableMarkdown } from '../../src/deck/states.js';
import { columnsFor } from '../../src/deck/layout.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const configuration = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');

describe('README', () => {
  it('is for a newcomer: at most about 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('names the two set-up commands, and .ci/run runs the test one', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm ci && npm test');
    expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8')).toMatch(/^npm ci && npm test$/m);
  });

  it("lists the dashboard's keys exactly as the key table has them", () => {
    // To update: node -e "import('./dist/src/keymap.js').then((m) => console.log(m.keyListMarkdown()))"
    expect(readme).toContain(keyListMarkdown());
  });

  it('has the table of states and their groups exactly as the dashboard has it', () => {
    // To update: node -e "import('./dist/src/deck/states.js').then((m) => console.log(m.stateTableMarkdown()))"
    expect(readme).toContain(stateTableMarkdown());
  });

  it('explains every column of the widest table', () => {
    for (const c of columnsFor('wide', 200)) expect(readme, c.title).toContain(`| \`${c.title}\` |`);
  });

  it('links only to files that exist', () => {
    for (const [, target] of readme.matchAll(/\]\(((?!https?:)[^)#]+)(#[^)]*)?\)/g)) expect(existsSync(join(ROOT, target!)), target).toBe(true);
  });
});

describe('docs', () => {
  it('document every setting with its flag', () => {
    const missing = SETTINGS_TABLE.filter((r) => !configuration.includes(`| ${r.name} | \`${r.flag}\``)).map((r) => r.name);
    expect(missing).toEqual([]);
  });

  it('say the rule itself: no issue numbers, no spec sections, no seed', () => {
    const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f));
    for (const file of ['README.md', ...docs]) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      expect(text, file).not.toMatch(/\bSPEC\b|\bissues? \d+|\bissue-\d|\bthe spec\b|\bseed\b/i);
    }
  });

  it('link only to files that exist', () => {
    for (const f of readdirSync(join(ROOT, 'docs')).filter((x) => x.endsWith('.md'))) {
      const text = readFileSync(join(ROOT, 'docs', f), 'utf8');
      for (const [, target] of text.matchAll(/\]\(((?!https?:)[^)#]+)(#[^)]*)?\)/g)) expect(existsSync(join(ROOT, 'docs', target!)), `${f}: ${target}`).toBe(true);
    }
  });
});
