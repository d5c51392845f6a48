// esbuild's CommonJS interop (`__toESM`, through `__copyProps`) copies a module's exports as
// getters, and reads each export's property descriptor to copy its `enumerable`. Node 22 and
// 24 define some exports of their built-ins as lazy data properties that load their module
// when the descriptor is read: copying `node:util` (for parseArgs) loaded parseArgs, diff,
// web locks and worker threads, ~35 of Node's internal modules and 5-17 ms of start-up
// (docs/performance.md). propertyIsEnumerable answers the same without
// loading anything. The rewrite is checked: a bundle that defines the helper in another
// shape stops the build, so an esbuild upgrade cannot drop it unnoticed.

const DESCRIPTOR_READ = /enumerable:\s*!\(desc\s*=\s*__getOwnPropDesc\(from,\s*key\)\)\s*\|\|\s*desc\.enumerable/g;
const DEFINES_HELPER = /\b__copyProps\s*=\s*\(/;

/** `source` with esbuild's export copier asking propertyIsEnumerable instead of reading descriptors. */
export function keepBuiltinsLazy(source) {
  if (!DEFINES_HELPER.test(source)) return source;
  let rewritten = 0;
  const out = source.replace(DESCRIPTOR_READ, () => {
    rewritten++;
    return 'enumerable: Object.prototype.propertyIsEnumerable.call(from, key)';
  });
  if (rewritten !== 1) throw new Error(`esbuild's __copyProps has a shape scripts/interop.mjs does not know (${rewritten} matches): update the rewrite`);
  return out;
}

// esbuild's `__toESM` builds a namespace object for every import of a CommonJS module, at
// each importing module, by copying every export as a getter: the dashboard bundle imports
// react 74 times and node:fs and node:path 27 times each, ~10,000 property definitions and
// 6-10 ms of the first frame on Node 20 (docs/performance.md). The copies
// are alike and cannot be changed (getters and a read-only `default`), so one per module
// (and mode) is kept and handed out again, unless the module's exports have gained or lost
// a key since (a CommonJS module still loading when first imported, in a require cycle).

const DEFINES_TO_ESM = /\bvar __toESM\s*=/;
const TO_ESM = /\bvar __toESM\s*=\s*\(mod,\s*isNodeMode,\s*target\)\s*=>/g;
const MEMO = 'var __toESMMemo=[new WeakMap,new WeakMap],__toESM=(mod,isNodeMode)=>{' +
  'if(mod==null||typeof mod!="object"&&typeof mod!="function")return __toESMCopy(mod,isNodeMode);' +
  'let memo=__toESMMemo[isNodeMode?1:0],seen=memo.get(mod),keys=__getOwnPropNames(mod).length;' +
  'return seen&&seen.keys===keys?seen.ns:(memo.set(mod,seen={ns:__toESMCopy(mod,isNodeMode),keys}),seen.ns)};' +
  'var __toESMCopy=(mod,isNodeMode,target)=>';

/** `source` with esbuild's `__toESM` handing out one namespace object per module and mode. */
export function shareNamespaces(source) {
  if (!DEFINES_TO_ESM.test(source)) return source;
  let rewritten = 0;
  const out = source.replace(TO_ESM, () => {
    rewritten++;
    return MEMO;
  });
  if (rewritten !== 1) throw new Error(`esbuild's __toESM has a shape scripts/interop.mjs does not know (${rewritten} matches): update the rewrite`);
  return out;
}
