// Every bundle, built from tsc's output in dist/ (`npm run build`):
// - dist/dashboard.bundle.js: the dashboard, React in production mode, one file, a script
//   module that src/startup/scriptModule.ts runs with V8's code cache;
// The CLI as bundles:
// - dist/cli/hook.js and dist/cli/status.js: one file each, everything they need inlined, for
//   the bin's fast paths (Claude Code's Stop hook, `status` in scripts and tmux), and
//   dist/cli/script-module.cjs, the loader of the dashboard bundle;
// - dist/cli/cli.js with its chunks: every other command, split at the CLI's dynamic
//   imports so each command loads only its own code (no command table for the hook, no supervisor,
//   chokidar or node-pty for `status`...).
// The native modules stay outside. AUTODECK_BUNDLE_META=FILE writes esbuild's metafile.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { escapeNonAscii } from './ascii.mjs';
import { keepBuiltinsLazy, shareNamespaces } from './interop.mjs';
import { asScriptModule } from './script-module.mjs';
import { lazyBuiltins } from './lazy-builtins.mjs';

/**
 * Node's built-in modules are loaded with require() in the ES-module bundles, not import.
 * Importing a built-in from an ES module builds its ES facade, which reads every export
 * once, lazy getters included: on Node 24 `node:http`'s facade loads the whole fetch stack
 * (undici, ~55 ms) and `node:crypto`'s its web crypto, before the first frame. A require()
 * leaves them lazy; esbuild's interop reads an export only when the code uses it.
 */
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
/** Imports of these modules become require() calls: Node's built-ins, and `also` (for the script module, the native modules). */
const importsByRequire = (also = []) => ({
  name: 'imports-by-require',
  setup(b) {
    b.onResolve({ filter: /^[\w:/-]+$/ }, (args) =>
      (builtins.has(args.path) || also.includes(args.path)) && (args.kind === 'import-statement' || args.kind === 'dynamic-import')
        ? { path: args.path, namespace: 'by-require' } : undefined);
    b.onLoad({ filter: /.*/, namespace: 'by-require' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
});

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', 'node-pty'],
  // bundled CommonJS (which, shell-quote...) requires node built-ins through this
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
  metafile: true,
  plugins: [importsByRequire()],
};

rmSync('dist/cli', { recursive: true, force: true });
const results = await Promise.all([
  build({
    ...common, entryPoints: ['dist/components/dashboard.js'], outfile: 'dist/dashboard.bundle.js',
    // Start-up: a script module (scripts/script-module.mjs), so that V8's code cache
    // covers it on every Node line: no import left, require and import.meta.url come in as
    // the function's parameters.
    banner: {},
    plugins: [lazyBuiltins(['node:child_process', 'child_process']), importsByRequire(common.external)],
    external: [...common.external, './devtools.js'], // Ink's React devtools hook, never used
    define: { 'process.env.NODE_ENV': '"production"', 'Intl.Segmenter': 'LazyGraphemeSegmenter', 'import.meta.url': '__importMetaUrl' },
    // Start-up: Ink's text libraries build grapheme segmenters as they load; this
    // one loads ICU only for text that needs it (src/term/graphemes.ts).
    inject: ['dist/src/term/graphemes.js'],
    // Start-up: V8 parses the whole file before the first line runs, so
    // whitespace and dead branches go (names stay, so stack traces still read); and one
    // string-width instead of two (wrap-ansi's own older copy built a second Intl.Segmenter
    // and emoji regex at load), which also measures wrapped text as Ink does.
    minifyWhitespace: true,
    minifySyntax: true,
    alias: { 'string-width': './node_modules/string-width/index.js' },
  }),
  // CommonJS: the bin's fast paths load them with require(), which skips Node's ESM loader
  // (its start-up alone is ~10 ms on Node 20) and loads the database driver directly.
  build({
    ...common, format: 'cjs', outExtension: { '.js': '.cjs' },
    entryPoints: { hook: 'dist/src/entries/hook.js', status: 'dist/src/entries/status.js', 'script-module': 'dist/src/startup/scriptModule.js' }, outdir: 'dist/cli',
    define: { 'import.meta.url': '__importMetaUrl' },
    banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  }),
  build({ ...common, entryPoints: { cli: 'dist/src/cli.js' }, outdir: 'dist/cli', splitting: true, chunkNames: 'chunks/[name]-[hash]' }),
]);
// Every output ASCII only, regex literals included (see ascii.mjs), its interop helper
// leaving Node's lazy built-in exports unloaded and handing out one namespace per module
// (see interop.mjs); the dashboard's made a script module (see script-module.mjs).
for (const file of results.flatMap((r) => Object.keys(r.metafile.outputs))) {
  const text = readFileSync(file, 'utf8');
  const lazy = shareNamespaces(keepBuiltinsLazy(escapeNonAscii(text)));
  const out = file === 'dist/dashboard.bundle.js' ? asScriptModule(lazy, file) : lazy;
  if (out !== text) writeFileSync(file, out);
}
if (process.env.AUTODECK_BUNDLE_META) {
  const outputs = Object.assign({}, ...results.map((r) => r.metafile.outputs));
  const inputs = Object.assign({}, ...results.map((r) => r.metafile.inputs));
  writeFileSync(process.env.AUTODECK_BUNDLE_META, JSON.stringify({ inputs, outputs }));
}
