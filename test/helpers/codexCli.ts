import { mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileOf, installNpmAgent, type NpmAgentInstall, type NpmAgentSpec } from './npmAgent.js';

/**
 * The real Codex CLI (`@openai/codex`), pinned. The npm package is a small Node wrapper
 * (`bin/codex.js`) whose native binary comes in an optional dependency per platform, an
 * npm alias of the same package (`@openai/codex-linux-x64` is
 * `npm:@openai/codex@<version>-linux-x64`): one `npm install` from the registry brings both.
 * Observed facts: test/fixtures/screens/codex/README.md.
 */

export const CODEX_VERSION = '0.171.0';
const PKG = '@openai/codex';

/** The platform package and the Rust target triple its binary is built for (as bin/codex.js picks them). */
function platformTarget(): { pkg: string; triple: string } | undefined {
  const key = `${process.platform}-${process.arch}`;
  const triples: Record<string, string> = {
    'linux-x64': 'x86_64-unknown-linux-musl', 'linux-arm64': 'aarch64-unknown-linux-musl',
    'darwin-x64': 'x86_64-apple-darwin', 'darwin-arm64': 'aarch64-apple-darwin',
  };
  const triple = triples[key];
  return triple ? { pkg: `${PKG}-${key}`, triple } : undefined;
}

export const CODEX_SPEC: NpmAgentSpec = {
  title: 'Codex CLI',
  pkg: PKG,
  version: CODEX_VERSION,
  cache: 'autodeck-codex',
  binIn(prefix) {
    const target = platformTarget();
    if (!target) return undefined;
    const native = join(prefix, 'node_modules', target.pkg, 'vendor', target.triple, 'bin', 'codex');
    // the wrapper, as a user runs it, once the native binary beside it is whole
    return fileOf(native, 1024 * 1024) ? fileOf(join(prefix, 'node_modules', PKG, 'bin', 'codex.js')) : undefined;
  },
};

export function installCodex(): Promise<NpmAgentInstall> {
  return installNpmAgent(CODEX_SPEC);
}

/** The key the fake provider expects (any value: the fake does not check it). */
export const FAKE_OPENAI_KEY = 'sk-autodeck-fake-openai-key';
export const CODEX_KEY_ENV = 'AUTODECK_FAKE_OPENAI_KEY';
export const CODEX_MODEL = 'gpt-5.1-codex';

/**
 * The environment for the real CLI against the fake API: nothing leaves loopback (the
 * proxy variables point at the fake, which refuses every tunnel), nothing of this process's
 * own environment leaks in.
 */
export function codexEnv(opts: { home: string; port: number }): Record<string, string> {
  const fake = `http://127.0.0.1:${opts.port}`;
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: opts.home,
    SHELL: '/bin/bash',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    TZ: process.env.TZ ?? 'UTC',
    [CODEX_KEY_ENV]: FAKE_OPENAI_KEY,
    HTTPS_PROXY: fake,
    HTTP_PROXY: fake,
    ALL_PROXY: fake,
    https_proxy: fake,
    http_proxy: fake,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    OTEL_SDK_DISABLED: 'true',
  };
}

export interface CodexConfigOptions {
  /** The fake's base URL (`http://127.0.0.1:<port>/v1`). */
  baseUrl: string;
  /** false: the project is not marked trusted (Codex asks at start). */
  trusted?: boolean;
  /** `notify`: a program (argv) Codex runs at each turn's end with a JSON argument. */
  notify?: string[];
  /** Extra top-level TOML lines. */
  extra?: string[];
}

const tomlString = (s: string) => JSON.stringify(s);

/**
 * `<home>/.codex/config.toml`: the fake as the model provider (Responses API), the
 * project trusted, update checks, analytics and feedback off, few retries (quick tests).
 */
export function writeCodexConfig(home: string, cwd: string, opts: CodexConfigOptions): string {
  const dir = join(home, '.codex');
  mkdirSync(dir, { recursive: true });
  const lines = [
    `model = ${tomlString(CODEX_MODEL)}`,
    'model_provider = "autodeck_fake"',
    'check_for_update_on_startup = false',
    ...(opts.notify ? [`notify = [${opts.notify.map(tomlString).join(', ')}]`] : []),
    ...(opts.extra ?? []),
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    '[model_providers.autodeck_fake]',
    'name = "autodeck fake"',
    `base_url = ${tomlString(opts.baseUrl)}`,
    'wire_api = "responses"',
    `env_key = ${tomlString(CODEX_KEY_ENV)}`,
    'request_max_retries = 2',
    'stream_max_retries = 2',
    '',
  ];
  if (opts.trusted !== false) lines.push(`[projects.${tomlString(realpathSync(cwd))}]`, 'trust_level = "trusted"', '');
  const file = join(dir, 'config.toml');
  writeFileSync(file, lines.join('\n'));
  return file;
}

/** Every rollout file Codex wrote under `<home>/.codex/sessions`, oldest first. */
export function codexRollouts(home: string): { file: string; text: string }[] {
  const root = join(home, '.codex', 'sessions');
  const out: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (/^rollout-.*\.jsonl$/.test(n)) out.push(p);
    }
  };
  walk(root);
  return out.sort().map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}
