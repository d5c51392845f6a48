import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { lazyBuiltinShim } from '../../scripts/lazy-builtins.mjs';

// Built-ins the dashboard's first frame does not need stand in lazily in its bundle
// (scripts/lazy-builtins.mjs): the real module loads on the first read of an export.

const require = createRequire(import.meta.url);
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

describe('lazyBuiltinShim', () => {
  it('loads the real module only when an export is first read, and then hands out its exports', () => {
    const requested: string[] = [];
    const exports: Record<string, unknown> = {};
    new Function('exports', 'require', lazyBuiltinShim('node:child_process'))(exports, (name: string) => {
      requested.push(name);
      return require(name) as unknown;
    });
    const real = require('node:child_process') as Record<string, unknown>;
    expect(Object.keys(exports)).toEqual(Object.keys(real));
    expect(requested).toEqual([]);
    expect(exports.execFileSync).toBe(real.execFileSync);
    expect(exports.spawn).toBe(real.spawn);
    expect(requested).toEqual(['node:child_process']); // once
  });
});

describe('the dashboard bundle', () => {
  it('loads without loading node:child_process', () => {
    const script = `process.stdout; process.stderr;
      const before = new Set(process.moduleLoadList);
      const { loadScriptModule } = require(${JSON.stringify(`${DIST}cli/script-module.cjs`)});
      loadScriptModule(${JSON.stringify(`${DIST}dashboard.bundle.js`)}, undefined).exports.then((e) => {
        process.stdout.write(JSON.stringify({ run: typeof e.runDashboard, loaded: process.moduleLoadList.filter((m) => !before.has(m)) }));
      });`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, CI: '' } })) as { run: string; loaded: string[] };
    expect(out.run).toBe('function');
    expect(out.loaded.length).toBeGreaterThan(10); // it did load what it needs
    expect(out.loaded.filter((m) => /child_process/.test(m))).toEqual([]);
  });
});
