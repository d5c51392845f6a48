import { execFile } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * An agent CLI from the npm registry, pinned, installed into a cache folder under
 * node_modules (gitignored, kept between runs on one machine): one installer at a time
 * (a lock folder), into a temporary prefix renamed into place, so a half install is never
 * seen. Where it cannot be installed (no registry), the reason is given and the tests
 * that need it are skipped with it.
 */

export interface NpmAgentSpec {
  /** For messages and the cache folder: `Codex CLI`. */
  title: string;
  /** The npm package: `@openai/codex`. */
  pkg: string;
  version: string;
  /** The cache folder's name under node_modules/.cache. */
  cache: string;
  /** The program to run inside an install prefix, when the install is whole. */
  binIn(prefix: string): string | undefined;
  /** Environment for `<bin> --version` (updaters off). */
  env?: Record<string, string>;
}

export type NpmAgentInstall = { bin: string; prefix: string; reason?: undefined } | { bin?: undefined; prefix?: undefined; reason: string };

const PROJECT = fileURLToPath(new URL('../../', import.meta.url));
const INSTALL_TIMEOUT_MS = 4 * 60_000;
/** A lock older than this belongs to an install that died. */
const STALE_LOCK_MS = INSTALL_TIMEOUT_MS + 60_000;

const pending = new Map<string, Promise<NpmAgentInstall>>();

export function cacheDir(spec: NpmAgentSpec): string {
  return join(PROJECT, 'node_modules', '.cache', spec.cache, spec.version);
}

/** The installed program, installing it on first use; the reason when it cannot be had. */
export function installNpmAgent(spec: NpmAgentSpec): Promise<NpmAgentInstall> {
  const key = `${spec.pkg}@${spec.version}`;
  let p = pending.get(key);
  if (!p) {
    p = install(spec).catch((err: unknown) => ({ reason: `${spec.title} ${spec.version} unavailable: ${oneLine(err)}` }));
    pending.set(key, p);
  }
  return p;
}

/** A file of at least `minBytes` (a real binary, not an installer's stub), or undefined. */
export function fileOf(path: string, minBytes = 1): string | undefined {
  try {
    return statSync(path).size >= minBytes ? path : undefined;
  } catch {
    return undefined;
  }
}

async function install(spec: NpmAgentSpec): Promise<NpmAgentInstall> {
  const dir = cacheDir(spec);
  const lock = `${dir}.lock`;
  let bin = spec.binIn(dir);
  if (!bin) {
    mkdirSync(join(dir, '..'), { recursive: true });
    const deadline = Date.now() + STALE_LOCK_MS;
    for (;;) {
      if (takeLock(lock)) break;
      await new Promise((r) => setTimeout(r, 500));
      bin = spec.binIn(dir);
      if (bin) break;
      if (Date.now() > deadline) return { reason: `${spec.title} ${spec.version}: timed out waiting for another install (${lock})` };
    }
    if (!bin) {
      try {
        bin = spec.binIn(dir) ?? (await npmInstall(spec, dir));
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
  }
  const printed = await run(bin, ['--version'], 60_000, spec.env).catch((err: unknown) => {
    throw new Error(`${bin} --version failed: ${oneLine(err)}`);
  });
  if (!printed.includes(spec.version)) throw new Error(`${bin} --version printed ${JSON.stringify(printed.trim())}`);
  return { bin, prefix: dir };
}

function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(process.pid));
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
    } catch { /* gone meanwhile */ }
    return false;
  }
}

async function npmInstall(spec: NpmAgentSpec, dir: string): Promise<string> {
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const what = `${spec.pkg}@${spec.version}`;
  try {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    await run(npm, ['install', '--prefix', tmp, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', what], INSTALL_TIMEOUT_MS).catch((err: unknown) => {
      throw new Error(`npm install ${what} failed: ${oneLine(err)}`);
    });
    if (!spec.binIn(tmp)) throw new Error(`npm installed ${what} but its program for ${process.platform}-${process.arch} is missing`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return spec.binIn(dir)!;
}

function run(file: string, args: string[], timeout: number, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message} ${String(stderr).trim().split('\n').slice(-2).join(' ')}`));
      else resolve(String(stdout));
    });
  });
}

function oneLine(err: unknown): string {
  const s = err instanceof Error ? err.message : String(err);
  return s.replace(/\s+/g, ' ').trim().slice(0, 400);
}
