// esbuild's CommonJS interop (`__toESM`, through `__copyProps`) copies a module's exports as
// getters, and reads each export's property descriptor to copy its `enumerable`. Node 22 and
// 24 define some exports of their built-ins as lazy data properties that load their module
// when the descriptor is read: copying `node:util` (for parseArgs) loaded parseArgs, diff,
// web locks and worker threads, ~35 of Node's internal modules and 5-17 ms of start-up
// (docs/performance.md, twelfth pass). propertyIsEnumerable answers the same without
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
