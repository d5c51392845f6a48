import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { cacheFileName, codeCacheDir, loadScriptModule } from '../../src/startup/scriptModule.js';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { asScriptModule } from '../../scripts/script-module.mjs';

// The dashboard bundle as a script module run with V8's code cache: the build step that makes
// the bundle a script (scripts/script-module.mjs) and the loader that runs it with a cache
// kept on disk (src/startup/scriptModule.ts). Real files, real V8 caches.

const LOADER = fileURLToPath(new URL('../../dist/cli/script-module.cjs', import.meta.url));
const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'autodeck-script-module-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A script module whose functions are worth caching, tagged so a run shows which source ran. */
function moduleSource(tag: string): string {
  const fns = Array.from({ length: 200 }, (_, i) => `function f${i}(x){return x*${i}+${i}}`).join(';');
  return asScriptModule(`${fns};const tag=${JSON.stringify(tag)};const total=()=>f1(1)+f199(2);const sep=require("node:path").sep;const url=__importMetaUrl;export{tag,total,sep,url};`);
}

interface Loaded { state: string; tag: string; total: number; sep: string; url: string; saved: boolean[] }

/**
 * Loads the module in a Node process of its own, as the bin does (through the built loader,
 * dist/cli/script-module.cjs), saving the cache when `save`: within one process V8 keeps
 * compiled scripts in memory and never looks at a cache for the same source again.
 */
function load(file: string, cacheDir: string | undefined, save = true): Loaded {
  const code = `
    const { loadScriptModule } = require(${JSON.stringify(LOADER)});
    const loaded = loadScriptModule(process.argv[1], process.argv[2] || undefined);
    loaded.exports.then((e) => {
      const saved = ${save} ? [loaded.saveCache(), loaded.saveCache()] : [];
      process.stdout.write(JSON.stringify({ state: loaded.state, tag: e.tag, total: e.total(), sep: e.sep, url: e.url, saved }));
    });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', code, file, cacheDir ?? ''], { encoding: 'utf8' })) as Loaded;
}

describe('asScriptModule (the build step)', () => {
  it('makes an ES-module bundle an async function returning its exports, strict, awaiting at its top level', async () => {
    const out = asScriptModule('let n=await Promise.resolve(41);function inc(){return n+1}let self=function(){return this};export{inc,self};');
    const fn = new Script(out).runInThisContext() as (r: unknown, u: string) => Promise<{ inc(): number; self(): unknown }>;
    const exp = await fn(undefined, 'file:///x.js');
    expect(exp.inc()).toBe(42);
    const self = exp.self;
    expect(self()).toBeUndefined(); // strict, as the ES module was: `this` is not globalThis
    await expect(fn(undefined, '')).resolves.toBeDefined();
    const sloppy = asScriptModule('undeclared=1;export{};');
    await expect((new Script(sloppy).runInThisContext() as (r: unknown, u: string) => Promise<unknown>)(undefined, '')).rejects.toThrow(ReferenceError);
  });

  it('stops the build on what a script cannot hold or it cannot map', () => {
    expect(() => asScriptModule('import x from "y";export{x};')).toThrow(/not a script once wrapped/);
    expect(() => asScriptModule('const a=1;export{a};export{a as b};')).toThrow(/2 export lists/);
    expect(() => asScriptModule('const a=1;export{a as b};')).toThrow(/renamed exports/);
    expect(() => asScriptModule('const a=1;')).toThrow(/0 export lists/);
  });

  it('was applied to the built dashboard bundle', () => {
    const file = new URL('../../dist/dashboard.bundle.js', import.meta.url);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('(async function(require,__importMetaUrl){"use strict";')).toBe(true);
    expect(/return\{(\w+,)*runDashboard(,\w+)*\};/.test(text), 'returns runDashboard').toBe(true);
    expect(typeof new Script(text).runInThisContext()).toBe('function'); // compiled, not run
  });
});

describe('codeCacheDir', () => {
  it('is the user\'s own cache folder, and off with Node\'s switch for its compile cache', () => {
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/u' })).toBe('/x/cache/autodeck/code');
    expect(codeCacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/home/u' })).toBe('/home/u/.cache/autodeck/code');
    expect(codeCacheDir({ HOME: '/home/u' })).toBe('/home/u/.cache/autodeck/code');
    expect(codeCacheDir({ NODE_DISABLE_COMPILE_CACHE: '1', HOME: '/home/u' })).toBeUndefined();
  });

  it('names one cache per script path and Node build', () => {
    const a = cacheFileName('/usr/lib/node_modules/autodeck/dist/dashboard.bundle.js', 'v24.1.0', 'x64');
    expect(a).toMatch(/^dashboard\.bundle\.js-[0-9a-f]{8}-v24\.1\.0-x64\.v8cache$/);
    expect(cacheFileName('/usr/lib/node_modules/autodeck/dist/dashboard.bundle.js', 'v24.1.0', 'x64')).toBe(a);
    expect(cacheFileName('/home/u/autodeck/dist/dashboard.bundle.js', 'v24.1.0', 'x64')).not.toBe(a);
    expect(cacheFileName('/usr/lib/node_modules/autodeck/dist/dashboard.bundle.js', 'v22.1.0', 'x64')).not.toBe(a);
  });
});

/** A module tagged 'one' in a fresh folder, loaded once so that its cache is written. */
function cached(): { dir: string; file: string; cacheDir: string; cacheFile: string } {
  const dir = tempDir();
  const file = join(dir, 'bundle.js');
  const cacheDir = join(dir, 'cache');
  writeFileSync(file, moduleSource('one'));
  expect(load(file, cacheDir).saved[0]).toBe(true);
  return { dir, file, cacheDir, cacheFile: join(cacheDir, cacheFileName(file, process.version, process.arch)) };
}

describe('loadScriptModule', () => {
  it('runs the module, writes the cache once, and the next start takes it', () => {
    const dir = tempDir();
    const file = join(dir, 'bundle.js');
    writeFileSync(file, moduleSource('one'));
    const cacheDir = join(dir, 'cache', 'autodeck', 'code');

    const first = load(file, cacheDir);
    expect(first.state).toBe('miss');
    expect(first.total).toBe(2 + 597);
    expect(first.sep).toBe('/'); // its require works
    expect(first.url).toBe(pathToFileURL(file).href);
    expect(first.saved).toEqual([true, false]); // once
    const cacheFile = join(cacheDir, cacheFileName(file, process.version, process.arch));
    expect(statSync(cacheFile).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(readFileSync(cacheFile, 'latin1').split('\n')[0]).toMatch(/^autodeck-code-cache 1 \d+ [\d.]+ \d+$/);

    const second = load(file, cacheDir);
    expect(second.state).toBe('hit');
    expect(second.total).toBe(first.total);
    expect(second.saved).toEqual([false, false]); // a cache V8 took is not written again
  });

  it('never runs a cache made from another version of the file, even one of the same length', () => {
    const { file, cacheDir } = cached();
    const before = statSync(file);
    writeFileSync(file, moduleSource('two')); // same length, same inode
    utimesSync(file, before.atime, new Date(before.mtimeMs + 1000));
    expect(statSync(file).size).toBe(before.size);
    const b = load(file, cacheDir);
    expect(b.state).toBe('miss');
    expect(b.tag).toBe('two');
    expect(b.saved[0]).toBe(true);
    expect(load(file, cacheDir).state).toBe('hit');
  });

  it('survives a damaged cache: V8 rejects it, the module runs, and a good one replaces it', () => {
    const { file, cacheDir, cacheFile } = cached();
    const [header] = readFileSync(cacheFile, 'latin1').split('\n');
    writeFileSync(cacheFile, `${header}\n${'garbage'.repeat(100)}`, { mode: 0o600 });
    const damaged = load(file, cacheDir);
    expect(damaged.state).toBe('rejected');
    expect(damaged.tag).toBe('one');
    expect(damaged.saved[0]).toBe(true);
    expect(load(file, cacheDir).state).toBe('hit');
  });

  it('does not read a cache that another user could have written', () => {
    const { file, cacheDir, cacheFile } = cached();
    chmodSync(cacheFile, 0o666);
    expect(load(file, cacheDir, false).state).toBe('miss');
    chmodSync(cacheFile, 0o600);
    expect(load(file, cacheDir, false).state).toBe('hit');
    if (process.getuid?.() === 0) {
      chownSync(cacheFile, 4242, 4242);
      expect(load(file, cacheDir, false).state).toBe('miss');
    }
  });

  it('runs without a cache folder, and when the folder cannot be made', () => {
    const dir = tempDir();
    const file = join(dir, 'bundle.js');
    writeFileSync(file, moduleSource('one'));
    const off = load(file, undefined);
    expect(off.state).toBe('off');
    expect(off.saved).toEqual([false, false]);
    writeFileSync(join(dir, 'blocked'), 'a file where the folder would go');
    const blocked = load(file, join(dir, 'blocked', 'code'));
    expect(blocked.state).toBe('miss');
    expect(blocked.tag).toBe('one');
    expect(blocked.saved).toEqual([false, false]);
    expect(readdirSync(dir).sort()).toEqual(['blocked', 'bundle.js']);
  });

  it('says so when the file is not a script module', () => {
    const dir = tempDir();
    const file = join(dir, 'plain.js');
    writeFileSync(file, '1 + 1');
    expect(() => loadScriptModule(file, undefined)).toThrow(/is not a script module/);
  });
});
