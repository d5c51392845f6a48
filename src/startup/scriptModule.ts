import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { xdgCacheHome } from '../paths.js';
import { startupMark } from '../trace.js';

// A bundle built as a script module (scripts/script-module.mjs): one async function
// `(require, __importMetaUrl) => exports`, run with V8's code cache kept on disk. Node's own
// compile cache covers only files its module loaders read, and only on Node >= 22.1; this
// covers the dashboard bundle on every line, with the functions its first frame compiled,
// not only those compiled before it ran (docs/performance.md: the bundle's
// load on Node 20 went from ~155 to ~85 ms).
//
// The cache is code V8 will run, so it lives in the user's own cache folder (0700), never in
// a shared temp folder, and a cache file another user owns or could write is not read. V8
// checks its own version, flags and the source's length; the header line checks the rest:
// which file (size, mtime, inode) it was made from.

export type CacheState = 'hit' | 'miss' | 'rejected' | 'off';

export interface LoadedScriptModule {
  /** What the script's function returned (a promise for an async one). */
  readonly exports: unknown;
  /** hit: V8 took the cache; miss: there was none for this file; rejected: V8 refused it; off: no cache folder. */
  readonly state: CacheState;
  /**
   * Writes the code cache with every function compiled so far, unless it was a hit. Call it
   * after the work worth caching (the first frame) and before any V8 flag changes: V8
   * rejects a cache made under other flags. False when nothing was written.
   */
  saveCache(): boolean;
}

const HEADER = 'autodeck-code-cache 1';

/** Where code caches live: $XDG_CACHE_HOME/autodeck/code (or ~/.cache/...); undefined turns them off. */
export function codeCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined; // Node's own switch for its compile cache
  return join(xdgCacheHome(env), 'autodeck', 'code');
}

/** One cache file per script path and Node build: two installs, or two Node versions, do not overwrite each other's. */
export function cacheFileName(file: string, nodeVersion: string, arch: string): string {
  let h = 0x811c9dc5; // FNV-1a: a name, not a check (the header line is the check)
  for (let i = 0; i < file.length; i++) h = Math.imul(h ^ file.charCodeAt(i), 0x01000193) >>> 0;
  return `${basename(file)}-${h.toString(16).padStart(8, '0')}-${nodeVersion}-${arch}.v8cache`;
}

/** The header line that ties a cache to one version of the source file. */
export function sourceKey(st: { size: number; mtimeMs: number; ino: number }): string {
  return `${HEADER} ${st.size} ${st.mtimeMs} ${st.ino}`;
}

/** The file's text and its key, both from one open file: a file replaced meanwhile cannot pair old text with a new key. */
function readSource(file: string): { source: string; key: string } {
  const fd = openSync(file, 'r');
  try {
    return { key: sourceKey(fstatSync(fd)), source: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

/** The cached code in `cacheFile` if it was made from the source `key` names and only this user could have written it. */
export function readCache(cacheFile: string, key: string, uid: number | undefined): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(cacheFile, 'r');
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (uid !== undefined && (st.uid !== uid || (st.mode & 0o022) !== 0)) return undefined;
    const data = readFileSync(fd);
    const nl = data.indexOf(10);
    if (nl < 0 || data.toString('latin1', 0, nl) !== key) return undefined;
    return data.subarray(nl + 1);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Writes `data` under the `key` line, through a temporary file and a rename: a reader never sees half a cache. */
export function writeCache(dir: string, cacheFile: string, key: string, data: Buffer): boolean {
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(tmp, Buffer.concat([Buffer.from(`${key}\n`, 'latin1'), data]), { mode: 0o600 });
    renameSync(tmp, cacheFile);
    return true;
  } catch {
    try { unlinkSync(tmp); } catch { /* never made */ }
    return false;
  }
}

/**
 * Runs the script module `file` (its function called with a require and an import.meta.url
 * of its own), through the code cache in `cacheDir` when there is one.
 */
export function loadScriptModule(file: string, cacheDir: string | undefined): LoadedScriptModule {
  const { source, key } = readSource(file);
  const cacheFile = cacheDir === undefined ? undefined : join(cacheDir, cacheFileName(file, process.version, process.arch));
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile, key, process.getuid?.());
  const script = new Script(source, { filename: file, cachedData });
  const state: CacheState = cacheDir === undefined ? 'off' : cachedData === undefined ? 'miss' : script.cachedDataRejected ? 'rejected' : 'hit';
  startupMark(`${basename(file)} compiled (code cache: ${state})`);
  const run = script.runInThisContext() as (require: NodeRequire, importMetaUrl: string) => unknown;
  if (typeof run !== 'function') throw new Error(`${file} is not a script module (it does not evaluate to a function)`);
  const exports = run(createRequire(file), pathToFileURL(file).href);
  // Held only until the cache is written: the dashboard lives for days.
  let toSave: Script | undefined = state === 'miss' || state === 'rejected' ? script : undefined;
  return {
    exports,
    state,
    saveCache() {
      if (toSave === undefined) return false;
      const data = toSave.createCachedData();
      toSave = undefined;
      return writeCache(cacheDir!, cacheFile!, key, data);
    },
  };
}
