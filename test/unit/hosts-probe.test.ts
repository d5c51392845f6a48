import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseCandidate, compareVersions, MIN_REMOTE_VERSION, parseProbe, parseVersion, probeWords, versionNote } from '../../src/hosts/probe.js';
import { remoteLine } from '../../src/hosts/ssh.js';

// The probe for a remote autodeck, run here by a real /bin/sh in a throwaway HOME laid out
// as nvm, ~/.local/bin and an npm prefix leave it, with a PATH that has neither node nor
// autodeck (what ssh's login shell gets).

let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

/** A program at `path` that answers --version with `version` only when `helper` is on PATH (as autodeck needs node). */
function program(path: string, version: string, helper = 'fake-node'): void {
  const dir = path.slice(0, path.lastIndexOf('/'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, `#!/bin/sh\n[ "$1" = --version ] && exec ${helper} ${version}\nexit 9\n`);
  writeFileSync(join(dir, helper), '#!/bin/sh\necho "$1"\n');
  chmodSync(path, 0o755);
  chmodSync(join(dir, helper), 0o755);
}

/** The probe as ssh's login shell would run it: its command line through sh -c. */
function probe(configured?: string, env: Record<string, string> = {}): string {
  return execFileSync('/bin/sh', ['-c', remoteLine(probeWords(configured))], { encoding: 'utf8', env: { HOME: home!, PATH: '/usr/bin:/bin', ...env } });
}

describe('the probe for autodeck on a host', () => {
  it('finds autodeck under nvm and ~/.local/bin though PATH has neither, and its node', () => {
    home = mkdtempSync(join(tmpdir(), 'autodeck-probe-'));
    program(join(home, '.nvm/versions/node/v20.1.0/bin/autodeck'), '0.1.0');
    program(join(home, '.nvm/versions/node/v22.3.0/bin/autodeck'), '0.3.0');
    program(join(home, '.local/bin/autodeck'), '0.2.0');
    const found = parseProbe(probe());
    expect(found).toEqual(expect.arrayContaining([
      { path: join(home, '.nvm/versions/node/v20.1.0/bin/autodeck'), dir: join(home, '.nvm/versions/node/v20.1.0/bin'), version: '0.1.0' },
      { path: join(home, '.nvm/versions/node/v22.3.0/bin/autodeck'), dir: join(home, '.nvm/versions/node/v22.3.0/bin'), version: '0.3.0' },
      { path: join(home, '.local/bin/autodeck'), dir: join(home, '.local/bin'), version: '0.2.0' },
    ]));
    expect(chooseCandidate(found)).toEqual({ ok: true, program: { path: join(home, '.nvm/versions/node/v22.3.0/bin/autodeck'), pathDir: join(home, '.nvm/versions/node/v22.3.0/bin') }, version: '0.3.0' });
  });

  it('reads npm\'s prefix from ~/.npmrc (with ~) and the environment', () => {
    home = mkdtempSync(join(tmpdir(), 'autodeck-probe-'));
    writeFileSync(join(home, '.npmrc'), 'fund=false\nprefix = ~/npm global\n');
    program(join(home, 'npm global/bin/autodeck'), '0.1.0');
    program(join(home, 'other/bin/autodeck'), '0.1.1');
    const found = parseProbe(probe(undefined, { NPM_CONFIG_PREFIX: join(home, 'other') }));
    expect(found.map((c) => c.path)).toEqual([join(home, 'other/bin/autodeck'), join(home, 'npm global/bin/autodeck')]);
  });

  it('looks only at the configured path when there is one, ~ meaning the remote home', () => {
    home = mkdtempSync(join(tmpdir(), 'autodeck-probe-'));
    program(join(home, '.local/bin/autodeck'), '0.2.0');
    program(join(home, 'opt dir/autodeck'), '0.1.0');
    expect(parseProbe(probe('~/opt dir/autodeck')).map((c) => c.path)).toEqual([join(home, 'opt dir/autodeck')]);
    expect(parseProbe(probe('/nonexistent/autodeck'))).toEqual([]);
    expect(chooseCandidate([], '/nonexistent/autodeck')).toMatchObject({ ok: false, kind: 'no-autodeck', message: expect.stringContaining('/nonexistent/autodeck') });
  });

  it('says "not installed" with where it looked when there is none', () => {
    home = mkdtempSync(join(tmpdir(), 'autodeck-probe-'));
    const found = parseProbe(probe());
    expect(found).toEqual([]);
    expect(chooseCandidate(found)).toMatchObject({ ok: false, kind: 'no-autodeck', message: expect.stringMatching(/not installed.*nvm/) });
  });

  it('tells a program that does not answer from one that is too old', () => {
    home = mkdtempSync(join(tmpdir(), 'autodeck-probe-'));
    const broken = join(home, '.local/bin/autodeck');
    mkdirSync(join(home, '.local/bin'), { recursive: true });
    writeFileSync(broken, '#!/bin/sh\nexit 127\n');
    chmodSync(broken, 0o755);
    const found = parseProbe(probe());
    expect(found).toEqual([{ path: broken, dir: join(home, '.local/bin'), version: '' }]);
    expect(chooseCandidate(found)).toMatchObject({ ok: false, kind: 'no-autodeck', message: expect.stringContaining('did not answer --version') });
    expect(chooseCandidate([{ path: '/a', dir: '/', version: '0.0.9' }])).toMatchObject({ ok: false, kind: 'too-old', message: expect.stringContaining(MIN_REMOTE_VERSION) });
  });
});

describe('versions', () => {
  it('compares x.y.z, a v or a pre-release allowed, the unreadable oldest', () => {
    expect(parseVersion('v1.2.3-beta.1')).toEqual([1, 2, 3]);
    expect(parseVersion('1.2')).toBeUndefined();
    expect(compareVersions('0.10.0', '0.9.9')).toBeGreaterThan(0);
    expect(compareVersions('1.0.0', '1.0.0')).toBe(0);
    expect(compareVersions('junk', '0.0.1')).toBeLessThan(0);
    expect(versionNote('0.2.0', '0.1.0')).toBe('autodeck 0.2.0 there, 0.1.0 here');
    expect(versionNote('0.1.0', '0.1.0')).toBeUndefined();
  });

  it('ignores lines that are not the probe\'s and repeats of a path', () => {
    expect(parseProbe('Welcome to the box!\nautodeck-candidate\t/a\t/\t0.1.0\nautodeck-candidate\t/a\t/\t0.1.0\n')).toEqual([{ path: '/a', dir: '/', version: '0.1.0' }]);
  });
});
