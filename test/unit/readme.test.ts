import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { SETTINGS_TABLE } from '../../src/config/settings.js';
import { keyListMarkdown } from '../../src/keymap.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('documents every setting with its flag', () => {
    const missing = SETTINGS_TABLE.filter((r) => !readme.includes(`| ${r.name} | \`${r.flag}\``)).map((r) => r.name);
    expect(missing).toEqual([]);
  });
  it("lists the dashboard's keys exactly as the command table has them", () => {
    // To update: node -e "import('./dist/src/keymap.js').then((m) => console.log(m.keyListMarkdown()))"
    expect(readme).toContain(keyListMarkdown());
  });
  it('names the two set-up commands, and .ci/run runs the test one', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm ci && npm test');
    expect(readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8')).toMatch(/^npm ci && npm test$/m);
  });
});
