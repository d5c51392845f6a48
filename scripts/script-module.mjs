// The dashboard bundle as a script module (src/startup/scriptModule.ts loads it): esbuild's
// ES-module output, with no import left (built-ins and the native modules come through
// require, import.meta.url through __importMetaUrl), made one async function
// `(require, __importMetaUrl) => exports`. A script, unlike an ES module, can be compiled by
// vm.Script with V8's code cache on every Node line; the function is async because the
// bundle awaits at its top level (yoga's WebAssembly). Checked here: the result compiles as
// a script, so any import or export left over stops the build.
import { Script } from 'node:vm';

const EXPORTS = /\bexport\s*\{([\w\s,$]*)\};?/g;

/** `source` (an ES-module bundle with no imports and one `export { ... }` list) as a script module. */
export function asScriptModule(source, filename = 'bundle.js') {
  const lists = [...source.matchAll(EXPORTS)];
  if (lists.length !== 1) throw new Error(`${filename}: ${lists.length} export lists, expected 1 (scripts/script-module.mjs)`);
  const [list] = lists;
  const names = list[1].split(',').map((n) => n.trim()).filter(Boolean);
  if (names.some((n) => !/^[\w$]+$/.test(n))) throw new Error(`${filename}: renamed exports are not supported: ${list[1]}`);
  const body = source.slice(0, list.index) + `return{${names.join(',')}};` + source.slice(list.index + list[0].length);
  // "use strict": an ES module's code is strict, a function's is not unless it says so
  const out = `(async function(require,__importMetaUrl){"use strict";${body}\n})`;
  try {
    new Script(out, { filename });
  } catch (err) {
    throw new Error(`${filename} is not a script once wrapped (an import or export left?): ${err.message}`);
  }
  return out;
}
