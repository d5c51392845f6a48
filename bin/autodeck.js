#!/bin/sh
':' //; [ "${GLIBC_TUNABLES+set}" ] || export GLIBC_TUNABLES=glibc.malloc.arena_max=1 AUTODECK_MALLOC_TUNED=1; exec node "$0" "$@"
'use strict';
// The line above is read by sh (':' is a no-op there, and for JavaScript a string and a
// comment): glibc reads GLIBC_TUNABLES only when a process starts, so the shell sets it for
// the node it execs. One malloc arena instead of one per thread: V8's compiler threads each
// kept their own arena of freed memory, 2-11 MB of the dashboard's on Node 22 and 24
// (docs/performance.md). A GLIBC_TUNABLES of the user's own is left alone;
// other C libraries ignore it. It is this process's only: the agents, tmux and hooks it
// starts get the user's environment.
if (process.env.AUTODECK_MALLOC_TUNED) {
  delete process.env.GLIBC_TUNABLES;
  delete process.env.AUTODECK_MALLOC_TUNED;
}
// CommonJS (bin/package.json): a CommonJS entry starts without Node's ESM loader, which
// costs ~10 ms on Node 20 before the first line runs; the ES-module bundles are import()ed.
const { enableCompileCache } = require('node:module');

// The two calls made most often, by programs, each load one bundled CommonJS file
// (dist/cli/): the Stop hook Claude Code runs on every turn, and `status` (scripts, tmux
// every few seconds). No flag parsing here: `hook` takes no flags (`--help` and `-h` go to
// the full CLI), and the status bundle hands back any call it does not take itself.
const first = process.argv[2];
if (first === 'hook' && !process.argv.includes('--help') && !process.argv.includes('-h')) {
  // no compile cache: the hook loads little, and on Node 24 the cache made it slower
  require('../dist/cli/hook.cjs').hookEntry(process.argv.slice(3));
} else {
  // Node >= 22.1 keeps the compiled code of the modules it loads on disk (in the temp
  // folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off); a no-op on Node 20. It must be on
  // before the CLI loads, so the CLI is loaded after it.
  enableCompileCache?.();
  const status = first === 'status' ? require('../dist/cli/status.cjs').statusEntry(process.argv.slice(2)) : Promise.resolve(false);
  status.then((taken) => (taken ? undefined : full())).catch((err) => {
    process.stderr.write(`autodeck: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}

async function full() {
  // The words first: touching process.stdin costs the hook and `status` their start-up time.
  const likely = first === undefined || first === 'demo' || first.startsWith('-');
  // The dashboard lives for days with a small heap (about 30 MB live with 20 loops), but V8
  // sizes its heap for the machine: the young generation grew to 32 MB and the old space to
  // half again what it holds, 150 MB resident in all. Held small by flags V8 reads as it
  // grows the heap (so they work set at run time, without a second start), see
  // docs/performance.md: the young generation from the start (set later, it has grown
  // already), the old space's growth once started (from the start, every few MB of loading
  // cost a full collection).
  const v8 = likely && !process.env.AUTODECK_V8_DEFAULTS ? require('node:v8') : undefined;
  v8?.setFlagsFromString('--semi-space-growth-factor=1');
  // The dashboard is one bundled file (React in production mode). When it is likely wanted,
  // it is loaded first, and takes the dashboard's own call itself; anything else goes to the
  // full CLI (which still uses the bundle loaded here to open a dashboard, for `demo`).
  const early = likely && process.stdout.isTTY && process.stdin.isTTY ? loadBundle() : undefined;
  // Start-up is over 3 s in: the dashboard's code cache is written (when V8 did not take the
  // one there was), then the old space's growth is held. In that order: V8 refuses a code
  // cache made under other flags than the ones it is read with.
  if (likely) {
    setTimeout(() => {
      saveCodeCache();
      v8?.setFlagsFromString('--heap-growing-percent=30');
    }, 3000).unref();
  }

  if (early) {
    const bundle = await early;
    // Node 20 only (V8 11): its first turn of the event loop after the start waited 30-50 ms
    // for V8's background optimizing compiler (perf: the main thread on a condition
    // variable; gone with --no-concurrent-recompilation). Taken here, with less queued, it
    // costs ~15 ms and the first frame came ~30 ms sooner. On Node 22 it changed nothing and
    // on Node 24 it cost ~10 ms (docs/performance.md).
    if (Number(process.versions.v8.split('.')[0]) < 12) await new Promise((r) => setImmediate(r));
    if (await bundle.dashboardEntry(process.argv.slice(2), bundle.runDashboard)) return;
  }
  const { runCli } = await import('../dist/cli/cli.js');
  runCli({ loadDashboard: async () => (await (early ?? loadBundle())).runDashboard });
}

let saveCodeCache = () => false;

/**
 * Ink reads CI / CONTINUOUS_INTEGRATION once, when it loads, and then draws only the last
 * frame: a dashboard in a terminal whose shell exports CI=true would look frozen. They are
 * hidden while the bundle loads and put back at once, so the agents still inherit them.
 * So is `fetch`: Ink's layout engine (yoga, WebAssembly in base64) loads itself with fetch
 * when there is one, and the first call of Node's fetch loads its HTTP stack (undici), about
 * 50 ms of the first frame (measured, docs/performance.md); without it, yoga decodes its
 * bytes in place. Nothing else runs fetch while the bundle loads (webhooks come later).
 */
async function loadBundle() {
  const saved = { CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  const fetch = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  if (fetch?.configurable) Object.defineProperty(globalThis, 'fetch', { value: undefined, configurable: true, writable: true });
  try {
    // A script run with V8's code cache (src/startup/scriptModule.ts): on Node 20, which has
    // no compile cache, the bundle's load took ~155 ms as an ES module and ~85 ms this way.
    const { loadScriptModule, codeCacheDir } = require('../dist/cli/script-module.cjs');
    const loaded = loadScriptModule(require('node:path').join(__dirname, '../dist/dashboard.bundle.js'), codeCacheDir(process.env));
    saveCodeCache = () => loaded.saveCache();
    return await loaded.exports;
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
    if (fetch?.configurable) Object.defineProperty(globalThis, 'fetch', fetch);
  }
}
