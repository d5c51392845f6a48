import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { keepBuiltinsLazy } from '../../scripts/interop.mjs';

// The bundles' post-pass (scripts/interop.mjs): esbuild's export copier no longer reads the
// property descriptors of Node's built-ins, which on Node 22 and 24 loads their lazy exports.

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

// esbuild's helper as it writes it unminified (the CLI's bundles) and minified (the dashboard's).
const HELPER = `var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};`;
const MINIFIED = 'var __defProp=Object.defineProperty,__getOwnPropDesc=Object.getOwnPropertyDescriptor,__getOwnPropNames=Object.getOwnPropertyNames,__hasOwnProp=Object.prototype.hasOwnProperty;var __copyProps=(to,from,except,desc)=>{if(from&&typeof from=="object"||typeof from=="function")for(let key of __getOwnPropNames(from))!__hasOwnProp.call(to,key)&&key!==except&&__defProp(to,key,{get:()=>from[key],enumerable:!(desc=__getOwnPropDesc(from,key))||desc.enumerable});return to};';

/** Runs a helper's __copyProps over `from` and returns each copied key with its enumerable flag and value. */
function copied(helper: string, from: object): Array<[string, boolean, unknown]> {
  const to = runInNewContext(`${helper}; __copyProps({}, from)`, { from }) as object;
  return Object.getOwnPropertyNames(to).map((k) => [k, Object.prototype.propertyIsEnumerable.call(to, k), (to as Record<string, unknown>)[k]]);
}

describe('keepBuiltinsLazy', () => {
  const from = Object.defineProperties({ a: 1 }, {
    hidden: { value: 2, enumerable: false },
    viaGetter: { get: () => 3, enumerable: true },
  });

  it('copies the same keys, flags and values as esbuild helper did, minified or not', () => {
    for (const helper of [HELPER, MINIFIED]) {
      const after = keepBuiltinsLazy(helper);
      expect(after).not.toContain('__getOwnPropDesc(from');
      expect(copied(after, from)).toEqual(copied(helper, from));
      expect(copied(after, from)).toEqual([['a', true, 1], ['hidden', false, 2], ['viaGetter', true, 3]]);
    }
  });

  it('leaves a file without the helper alone, and stops on a helper of another shape', () => {
    expect(keepBuiltinsLazy('export const x = 1;')).toBe('export const x = 1;');
    expect(() => keepBuiltinsLazy(HELPER.replace('desc.enumerable', 'true'))).toThrow(/__copyProps has a shape/);
  });

  it('was applied to every built bundle', () => {
    const files = [join(DIST, 'dashboard.bundle.js'), ...readdirSync(join(DIST, 'cli')).filter((f) => /\.c?js$/.test(f)).map((f) => join(DIST, 'cli', f)),
      ...readdirSync(join(DIST, 'cli', 'chunks')).map((f) => join(DIST, 'cli', 'chunks', f))];
    const helpers = files.filter((f) => /\b__copyProps\s*=/.test(readFileSync(f, 'utf8')));
    expect(helpers.length).toBeGreaterThanOrEqual(3); // the dashboard, the hook, status, the CLI's shared chunk
    for (const f of helpers) expect(readFileSync(f, 'utf8'), f).not.toMatch(/__getOwnPropDesc\(from,\s*key\)/);
  });

  // Node 20's built-ins have no lazy exports: there this could not fail (npm run test:node24 runs it).
  it.skipIf(Number(process.versions.node.split('.')[0]) < 22)('loading the status bundle loads none of node:util lazy exports it does not use', () => {
    const script = `require(${JSON.stringify(join(DIST, 'cli', 'status.cjs'))});
      process.stdout.write(JSON.stringify(process.moduleLoadList))`;
    const loaded = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as string[];
    expect(loaded.filter((m) => /internal\/util\/diff|internal\/locks|internal\/worker$/.test(m))).toEqual([]);
  });
});
