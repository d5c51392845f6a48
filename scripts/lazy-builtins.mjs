// Built-ins the dashboard's first frame does not need, loaded on their first use instead of
// when the bundle loads (start-up: docs/performance.md): Ink's
// terminal-size imports node:child_process (3-5 ms to load on Node 20) for a fallback it
// seldom runs. Their import (or require) gets a stand-in module with a getter per export
// name, each loading the real module on first read.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** CommonJS source of a stand-in for built-in `name`: one getter per export (as this Node names them) loading the real module. */
export function lazyBuiltinShim(name) {
  const keys = Object.keys(require(name));
  if (keys.length === 0) throw new Error(`${name} has no exports to stand in for`);
  return `let real;const load=()=>real??=require(${JSON.stringify(name)});` +
    `for(const key of ${JSON.stringify(keys)})Object.defineProperty(exports,key,{get:()=>load()[key],enumerable:true});`;
}

/** esbuild plugin: imports and requires of `names` (from any module but a stand-in) get the stand-in. */
export const lazyBuiltins = (names) => ({
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^[\w:/-]+$/ }, (args) =>
      names.includes(args.path) && args.namespace !== 'lazy-builtin' ? { path: args.path, namespace: 'lazy-builtin' } : undefined);
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({ contents: lazyBuiltinShim(args.path), loader: 'js' }));
  },
});
