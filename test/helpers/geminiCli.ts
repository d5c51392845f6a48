import { mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileOf, installNpmAgent, type NpmAgentInstall, type NpmAgentSpec } from './npmAgent.js';

/**
 * The real Gemini CLI (`@google/gemini-cli`), pinned: one bundled JavaScript program
 * (`bundle/gemini.js`) with a few optional native helpers (node-pty), all from the npm
 * registry. Observed facts: test/fixtures/screens/gemini/README.md.
 */

export const GEMINI_VERSION = '0.61.0';
const PKG = '@google/gemini-cli';

export const GEMINI_SPEC: NpmAgentSpec = {
  title: 'Gemini CLI',
  pkg: PKG,
  version: GEMINI_VERSION,
  cache: 'autodeck-gemini',
  binIn: (prefix) => fileOf(join(prefix, 'node_modules', PKG, 'bundle', 'gemini.js'), 1024),
  env: { GEMINI_CLI_NO_RELAUNCH: 'true' },
};

export function installGemini(): Promise<NpmAgentInstall> {
  return installNpmAgent(GEMINI_SPEC);
}

export const FAKE_GEMINI_KEY = 'autodeck-fake-gemini-key';
export const GEMINI_MODEL = 'gemini-2.5-pro';

/**
 * The environment for the real CLI against the fake API: the key and base URL, the proxy
 * variables at the fake (which refuses every tunnel), nothing of this process's own.
 */
export function geminiEnv(opts: { home: string; port: number; apiKey?: boolean }): Record<string, string> {
  const fake = `http://127.0.0.1:${opts.port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: opts.home,
    SHELL: '/bin/bash',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    TZ: process.env.TZ ?? 'UTC',
    GOOGLE_GEMINI_BASE_URL: fake,
    HTTPS_PROXY: fake,
    HTTP_PROXY: fake,
    https_proxy: fake,
    http_proxy: fake,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
  if (opts.apiKey !== false) env.GEMINI_API_KEY = FAKE_GEMINI_KEY;
  return env;
}

export interface GeminiConfigOptions {
  /** false: the folder is not in trustedFolders.json (Gemini asks at start). */
  trusted?: boolean;
  /** false: no auth type chosen (Gemini asks how to sign in). */
  authChosen?: boolean;
  /** Extra settings, merged at the top level. */
  settings?: Record<string, unknown>;
}

/**
 * `<home>/.gemini/settings.json` (API-key auth chosen, a pinned model, usage statistics and
 * update checks off) and `trustedFolders.json` with the project trusted.
 */
export function writeGeminiConfig(home: string, cwd: string, opts: GeminiConfigOptions = {}): void {
  const dir = join(home, '.gemini');
  mkdirSync(dir, { recursive: true });
  const settings: Record<string, unknown> = {
    ...(opts.authChosen === false ? {} : { security: { auth: { selectedType: 'gemini-api-key' } } }),
    privacy: { usageStatisticsEnabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    model: { name: GEMINI_MODEL },
    ...opts.settings,
  };
  writeFileSync(join(dir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  if (opts.trusted !== false) writeFileSync(join(dir, 'trustedFolders.json'), `${JSON.stringify({ [realpathSync(cwd)]: 'TRUST_FOLDER' }, null, 2)}\n`);
}

/** Every session file under `<home>/.gemini/tmp/<project>/chats`, oldest first. */
export function geminiSessions(home: string): { file: string; text: string }[] {
  const root = join(home, '.gemini', 'tmp');
  const out: string[] = [];
  let projects: string[] = [];
  try {
    projects = readdirSync(root);
  } catch {
    return [];
  }
  for (const p of projects) {
    const chats = join(root, p, 'chats');
    let names: string[] = [];
    try {
      names = readdirSync(chats);
    } catch {
      continue;
    }
    for (const n of names) if (/^session-.*\.jsonl?$/.test(n) && statSync(join(chats, n)).isFile()) out.push(join(chats, n));
  }
  return out.sort().map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}
