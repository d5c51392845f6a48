import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { keepBuiltinsLazy, shareNamespaces } from '../../scripts/interop.mjs';

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

// esbuild's __toESM as it writes it unminified and minified, after the helpers it uses.
const TO_ESM = `var __create = Object.create;
var __getProtoOf = Object.getPrototypeOf;
${HELPER}
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));`;
const TO_ESM_MINIFIED = `var __create=Object.create;var __getProtoOf=Object.getPrototypeOf;${MINIFIED}var __toESM=(mod,isNodeMode,target)=>(target=mod!=null?__create(__getProtoOf(mod)):{},__copyProps(isNodeMode||!mod||!mod.__esModule?__defProp(target,"default",{value:mod,enumerable:!0}):target,mod));`;

/** The helper's __toESM, run in a context of its own. */
function toESM(helper: string): (mod: unknown, isNodeMode?: number) => Record<string, unknown> {
  return runInNewContext(`${helper}; __toESM`) as (mod: unknown, isNodeMode?: number) => Record<string, unknown>;
}

/** What a namespace object shows: each key with its enumerable flag and value. */
function shown(ns: object): Array<[string, boolean, unknown]> {
  return Object.getOwnPropertyNames(ns).sort().map((k) => [k, Object.prototype.propertyIsEnumerable.call(ns, k), (ns as Record<string, unknown>)[k]]);
}

describe('shareNamespaces', () => {
  const cjs = () => Object.assign(Object.create(null) as object, { a: 1, b: () => 2 });
  const esmLike = () => Object.defineProperties({}, { __esModule: { value: true }, default: { value: 'd', enumerable: true }, x: { value: 3, enumerable: true } });

  it('hands out a namespace that shows what esbuild\'s own copy shows, in both modes, minified or not', () => {
    for (const helper of [TO_ESM, TO_ESM_MINIFIED]) {
      const before = toESM(keepBuiltinsLazy(helper));
      const after = toESM(shareNamespaces(keepBuiltinsLazy(helper)));
      for (const make of [cjs, esmLike, () => Object.assign(() => 'f', { k: 1 })]) {
        for (const mode of [undefined, 1]) {
          const mod = make();
          expect(shown(after(mod, mode))).toEqual(shown(before(mod, mode)));
          expect(Object.getPrototypeOf(after(mod, mode))).toBe(Object.getPrototypeOf(before(mod, mode)));
        }
      }
      expect(after(undefined)).toEqual(before(undefined));
    }
  });

  it('builds one namespace per module and mode, and a new one once the exports gained a key', () => {
    const share = toESM(shareNamespaces(keepBuiltinsLazy(TO_ESM_MINIFIED)));
    const mod: Record<string, unknown> = { a: 1 };
    const first = share(mod, 1);
    expect(share(mod, 1)).toBe(first);
    expect(share(mod)).not.toBe(first); // the other mode
    expect(share({ a: 1 }, 1)).not.toBe(first); // another module
    mod.a = 5;
    expect(first.a).toBe(5); // getters: live, as esbuild's copy
    mod.late = 2; // still loading when first imported (a require cycle)
    const again = share(mod, 1);
    expect(again).not.toBe(first);
    expect(again.late).toBe(2);
  });

  it('leaves a file without the helper alone, stops on one of another shape, and was applied to every bundle', () => {
    expect(shareNamespaces('export const x = 1;')).toBe('export const x = 1;');
    expect(() => shareNamespaces('var __toESM = (mod, target) => mod;')).toThrow(/__toESM has a shape/);
    const files = [join(DIST, 'dashboard.bundle.js'), ...readdirSync(join(DIST, 'cli')).filter((f) => /\.c?js$/.test(f)).map((f) => join(DIST, 'cli', f)),
      ...readdirSync(join(DIST, 'cli', 'chunks')).map((f) => join(DIST, 'cli', 'chunks', f))];
    const helpers = files.filter((f) => /\b__toESM\s*=/.test(readFileSync(f, 'utf8')));
    expect(helpers.length).toBeGreaterThanOrEqual(3);
    for (const f of helpers) expect(readFileSync(f, 'utf8').includes('__toESMMemo'), f).toBe(true);
  });
});
