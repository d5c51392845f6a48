import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLAUDE_CODE_NEWEST, CLAUDE_CODE_OLDEST } from '../../src/agents/claudeVersion.js';

/**
 * The real Claude Code CLI, pinned, installed from the npm registry into a cache folder
 * under node_modules (gitignored, kept between runs on one machine), one folder per
 * version. Observed facts: test/fixtures/screens/claude/README.md and docs/claude-code.md.
 *
 * The real-binary tests run on both ends of the supported range, OLDEST and NEWEST
 * (src/agents/claudeVersion.ts). `AUTODECK_CLAUDE_VERSION` narrows them: `oldest`,
 * `newest`, `both` (the default: CI tests both ends), or an exact version such as `2.1.250`.
 */

export { CLAUDE_CODE_NEWEST, CLAUDE_CODE_OLDEST };
const PACKAGE = '@anthropic-ai/claude-code';

const PROJECT = fileURLToPath(new URL('../../', import.meta.url));
export const CLAUDE_CODE_CACHE = join(PROJECT, 'node_modules', '.cache', 'autodeck-claude-code');
const INSTALL_TIMEOUT_MS = 3 * 60_000;
/** A lock older than this belongs to an install that died. */
const STALE_LOCK_MS = INSTALL_TIMEOUT_MS + 60_000;

export type ClaudeCodeInstall = { version: string } & ({ bin: string; reason?: undefined } | { bin?: undefined; reason: string });

/** The versions the real-binary tests run on, from `AUTODECK_CLAUDE_VERSION` (one line of error when it is not one). */
export function claudeVersionsUnderTest(env: NodeJS.ProcessEnv = process.env): string[] {
  const chosen = (env.AUTODECK_CLAUDE_VERSION ?? '').trim();
  if (chosen === '' || chosen === 'both') return [CLAUDE_CODE_OLDEST, CLAUDE_CODE_NEWEST];
  if (chosen === 'oldest') return [CLAUDE_CODE_OLDEST];
  if (chosen === 'newest') return [CLAUDE_CODE_NEWEST];
  if (/^\d+\.\d+\.\d+$/.test(chosen)) return [chosen];
  throw new Error(`AUTODECK_CLAUDE_VERSION=${chosen}: expected oldest, newest, both or a version like ${CLAUDE_CODE_NEWEST}`);
}

const pending = new Map<string, Promise<ClaudeCodeInstall>>();

/**
 * The path of the runnable `claude` program of `version`, installing it when missing;
 * undefined when it cannot be had here (the reason: `claudeCodeUnavailable()`).
 */
export async function ensureClaudeCode(version = CLAUDE_CODE_OLDEST): Promise<string | undefined> {
  return (await installClaudeCode(version)).bin;
}

/** Why ensureClaudeCode() returned undefined (one line), once it has. */
export async function claudeCodeUnavailable(version = CLAUDE_CODE_OLDEST): Promise<string | undefined> {
  return (await installClaudeCode(version)).reason;
}

export function installClaudeCode(version = CLAUDE_CODE_OLDEST): Promise<ClaudeCodeInstall> {
  let p = pending.get(version);
  if (!p) {
    p = install(version).catch((err: unknown) => ({ version, reason: `Claude Code ${version} unavailable: ${oneLine(err)}` }));
    pending.set(version, p);
  }
  return p;
}

/** Every version under test, installed one after the other (one npm at a time on a shared machine). */
export async function installClaudeCodes(env: NodeJS.ProcessEnv = process.env): Promise<ClaudeCodeInstall[]> {
  const out: ClaudeCodeInstall[] = [];
  for (const v of claudeVersionsUnderTest(env)) out.push(await installClaudeCode(v));
  return out;
}

/** A describe title: what runs, on which version, and why it is skipped when it is. */
export function claudeTitle(what: string, install: ClaudeCodeInstall): string {
  return `${what} (Claude Code ${install.version})${install.reason ? ` (skipped: ${install.reason})` : ''}`;
}

/** The package that carries the native binary for this machine (as its install.cjs picks it). */
function platformPackage(): string {
  let key = `${process.platform}-${process.arch}`;
  if (process.platform === 'linux') {
    const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
    if (report && report.header?.glibcVersionRuntime === undefined) key += '-musl';
  }
  return `${PACKAGE}-${key}`;
}

/** The binary inside an install prefix: the platform package's, else the wrapper's once its postinstall replaced the stub. */
function binaryIn(prefix: string): string | undefined {
  const exe = process.platform === 'win32' ? 'claude.exe' : 'claude';
  const candidates = [join(prefix, 'node_modules', platformPackage(), exe), join(prefix, 'node_modules', PACKAGE, 'bin', 'claude.exe')];
  for (const c of candidates) {
    try {
      // the wrapper's bin/claude.exe is a small stub until postinstall links the real one over it
      if (statSync(c).size > 1024 * 1024) return c;
    } catch { /* missing */ }
  }
  return undefined;
}

async function install(version: string): Promise<ClaudeCodeInstall> {
  const installDir = join(CLAUDE_CODE_CACHE, version);
  const lockDir = `${installDir}.lock`;
  let bin = binaryIn(installDir);
  if (!bin) {
    mkdirSync(CLAUDE_CODE_CACHE, { recursive: true });
    const deadline = Date.now() + STALE_LOCK_MS;
    // One installer at a time (test files run in parallel); the others wait for its result.
    for (;;) {
      if (takeLock(lockDir)) break;
      await new Promise((r) => setTimeout(r, 500));
      bin = binaryIn(installDir);
      if (bin) break;
      if (Date.now() > deadline) return { version, reason: `Claude Code ${version}: timed out waiting for another install (${lockDir})` };
    }
    if (!bin) {
      try {
        bin = binaryIn(installDir) ?? (await npmInstall(version, installDir));
      } finally {
        rmSync(lockDir, { recursive: true, force: true });
      }
    }
  }
  const printed = await run(bin, ['--version'], 30_000).catch((err: unknown) => {
    throw new Error(`${bin} --version failed: ${oneLine(err)}`);
  });
  if (!printed.includes(version)) throw new Error(`${bin} --version printed ${JSON.stringify(printed.trim())}`);
  return { version, bin };
}

function takeLock(lockDir: string): boolean {
  try {
    mkdirSync(lockDir);
    writeFileSync(join(lockDir, 'pid'), String(process.pid));
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lockDir).mtimeMs > STALE_LOCK_MS) rmSync(lockDir, { recursive: true, force: true });
    } catch { /* gone meanwhile */ }
    return false;
  }
}

/** Installs into a temp prefix, then renames it into place: a half install is never seen. */
async function npmInstall(version: string, installDir: string): Promise<string> {
  const tmp = `${installDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    await run(npm, ['install', '--prefix', tmp, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `${PACKAGE}@${version}`], INSTALL_TIMEOUT_MS).catch(
      (err: unknown) => {
        throw new Error(`npm install ${PACKAGE}@${version} failed: ${oneLine(err)}`);
      },
    );
    if (!binaryIn(tmp)) throw new Error(`npm installed ${PACKAGE}@${version} but no binary for ${platformPackage()}`);
    rmSync(installDir, { recursive: true, force: true });
    renameSync(tmp, installDir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return binaryIn(installDir)!;
}

function run(file: string, args: string[], timeout: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, DISABLE_AUTOUPDATER: '1' } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message} ${String(stderr).trim().split('\n').slice(-2).join(' ')}`));
      else resolve(String(stdout));
    });
  });
}

function oneLine(err: unknown): string {
  const s = err instanceof Error ? err.message : String(err);
  return s.replace(/\s+/g, ' ').trim().slice(0, 400);
}

export interface ClaudeEnvOptions {
  home: string;
  /** The fake API's port on 127.0.0.1. */
  port: number;
  /** Authenticate as a subscriber (CLAUDE_CODE_OAUTH_TOKEN) instead of an API key. */
  oauth?: boolean;
  apiKey?: string;
}

/** A fake key; its last 20 characters are what `.claude.json` pre-approves. */
export const FAKE_API_KEY = 'sk-ant-api03-autodeck-fake-key-0123456789abcdefghij';
export const FAKE_OAUTH_TOKEN = 'sk-ant-oat01-autodeck-fake-token-0123456789abcdefghij';

/**
 * The environment for the real CLI against the fake API: nothing leaves loopback, and
 * nothing of this process's own environment leaks in (it may itself run under Claude Code).
 */
export function claudeEnv(opts: ClaudeEnvOptions): Record<string, string> {
  const fake = `http://127.0.0.1:${opts.port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: opts.home,
    SHELL: '/bin/bash',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    TZ: process.env.TZ ?? 'UTC',
    ANTHROPIC_BASE_URL: fake,
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    HTTPS_PROXY: fake,
    HTTP_PROXY: fake,
    NO_PROXY: '127.0.0.1,localhost',
  };
  if (opts.oauth) env.CLAUDE_CODE_OAUTH_TOKEN = FAKE_OAUTH_TOKEN;
  else env.ANTHROPIC_API_KEY = opts.apiKey ?? FAKE_API_KEY;
  return env;
}

export interface ClaudeConfigOptions {
  /** false: the folder-trust dialog shows at start. */
  trusted?: boolean;
  /** false: the "Do you want to use this API key?" dialog shows at start. */
  approveKey?: boolean;
}

/** `<home>/.claude.json` that skips the first-run dialogs for `cwd`. */
export function writeClaudeConfig(home: string, cwd: string, apiKey: string = FAKE_API_KEY, opts: ClaudeConfigOptions = {}): void {
  mkdirSync(home, { recursive: true });
  const config = {
    hasCompletedOnboarding: true,
    theme: 'dark',
    customApiKeyResponses: { approved: opts.approveKey === false ? [] : [apiKey.slice(-20)], rejected: [] },
    projects: {
      [realpathSync(cwd)]: { hasTrustDialogAccepted: opts.trusted !== false, hasCompletedProjectOnboarding: true, allowedTools: [] },
    },
  };
  writeFileSync(join(home, '.claude.json'), JSON.stringify(config, null, 2));
}

/** `~/.claude/projects/<cwd with / and . as ->`: where the session transcripts go. */
export function transcriptDir(home: string, cwd: string): string {
  return join(home, '.claude', 'projects', realpathSync(cwd).replace(/[/.]/g, '-'));
}

/** The session transcripts (JSONL) written for `cwd` so far. */
export function readTranscripts(home: string, cwd: string): { file: string; text: string }[] {
  const dir = transcriptDir(home, cwd);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => ({ file: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }));
}
