import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { claudeEnv, writeClaudeConfig } from './claudeCode.js';
import { CLAUDE_CODE_NEWEST } from '../../src/agents/claudeVersion.js';
import { compareVersions, parseVersion } from '../../src/agents/claudeVersion.js';
import { waitFor } from './wait.js';
import type { Workspace } from './workspace.js';

/**
 * Claude Code's background sessions in a throwaway HOME (docs/claude-sessions.md): `claude
 * --bg` starts a daemon there (one per config folder) that outlives the call; `cleanup`
 * stops it and kills, by pid, every process whose HOME is this one, so nothing is left.
 */

export interface ClaudeAgent {
  pid?: number;
  id?: string;
  sessionId: string;
  kind: string;
  name: string;
  cwd: string;
  status?: string;
  waitingFor?: string;
  state?: string;
  [k: string]: unknown;
}

export interface ClaudeBg {
  home: string;
  /** The project folder sessions run in (trusted in .claude.json). */
  cwd: string;
  /** The environment of every `claude` started here; autodeck under test gets the same. */
  env: NodeJS.ProcessEnv;
  bin: string;
  version: string;
  run(args: string[], opts?: { cwd?: string; timeoutMs?: number }): Promise<{ code: number; stdout: string; stderr: string }>;
  /** `claude --bg … <prompt>`: the short id it printed. */
  bg(prompt: string, extra?: string[]): Promise<string>;
  agents(all?: boolean): Promise<ClaudeAgent[]>;
  /** Waits until the session with this short id (or full id) satisfies `ok`. */
  waitAgent(id: string, ok: (a: ClaudeAgent) => boolean, what: string, timeoutMs?: number): Promise<ClaudeAgent>;
  cleanup(): Promise<void>;
}

export interface ClaudeBgOptions {
  ws: Workspace;
  bin: string;
  version: string;
  port: number;
  /** Authenticate as a subscriber (usage-limit texts with a reset time). */
  oauth?: boolean;
  /** A second HOME in the same workspace (a second daemon): `<name>/home`, its `claude` in `<name>/bin`. */
  name?: string;
  /** The project folder (default: `proj` in the workspace). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Releases before this one do not hand a background session the caller's
 * ANTHROPIC_BASE_URL / key (the daemon's environment only, stripped of them): there they
 * reach it only through the `env` block of Claude Code's settings (observed on 2.1.197).
 */
const BG_INHERITS_PROVIDER_ENV = CLAUDE_CODE_NEWEST;

export function startClaudeBg(o: ClaudeBgOptions): ClaudeBg {
  const base = join(o.ws.dir, o.name ?? 'claude');
  const home = join(base, 'home');
  const cwd = o.cwd ?? join(o.ws.dir, 'proj');
  const binDir = join(base, 'bin');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  mkdirSync(binDir, { recursive: true });
  symlinkSync(o.bin, join(binDir, 'claude'));
  writeClaudeConfig(home, cwd);
  const provider = claudeEnv({ home, port: o.port, ...(o.oauth ? { oauth: true } : {}) });
  const env: NodeJS.ProcessEnv = {
    ...provider, XDG_STATE_HOME: join(o.ws.dir, 'state'), XDG_CONFIG_HOME: join(o.ws.dir, 'config'),
    ...o.env, PATH: `${binDir}${delimiter}${provider.PATH}`,
  };
  if (compareVersions(parseVersion(o.version)!, parseVersion(BG_INHERITS_PROVIDER_ENV)!) < 0) {
    // the test's own HOME: the only way the base URL reaches a background session of this release
    const keys = ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'];
    const block = Object.fromEntries(keys.filter((k) => provider[k] !== undefined).map((k) => [k, provider[k]]));
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ env: block }, null, 2));
  }

  const run: ClaudeBg['run'] = (args, opts = {}) =>
    new Promise((resolve) => {
      execFile(o.bin, args, { cwd: opts.cwd ?? cwd, env, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      });
    });

  const agents: ClaudeBg['agents'] = async (all = true) => {
    const r = await run(['agents', '--json', ...(all ? ['--all'] : [])]);
    if (r.code !== 0) throw new Error(`claude agents --json exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as ClaudeAgent[];
  };

  return {
    home, cwd, env, bin: o.bin, version: o.version, run, agents,
    async bg(prompt, extra = []) {
      const r = await run(['--bg', ...extra, prompt]);
      const m = /backgrounded\s*·\s*([0-9a-f]{6,})/.exec(r.stdout);
      if (r.code !== 0 || !m) throw new Error(`claude --bg failed (${r.code}): ${r.stdout} ${r.stderr}`);
      return m[1]!;
    },
    async waitAgent(id, ok, what, timeoutMs = 150_000) {
      return waitFor(async () => {
        const a = (await agents(true)).find((x) => x.id === id || x.sessionId === id);
        return a && ok(a) ? a : undefined;
      }, `${what} (${id})`, timeoutMs, 500);
    },
    async cleanup() {
      await run(['daemon', 'stop', '--any'], { timeoutMs: 30_000 }).catch(() => undefined);
      await killUnderHome(home);
    },
  };
}

/** Every process whose environment says HOME=`home`: this test's daemon, its sessions, their hooks. */
export function processesUnderHome(home: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (env.includes(`HOME=${home}`)) pids.push(Number(name));
    } catch { /* gone, or not ours to read */ }
  }
  return pids;
}

/** The Claude Code daemons among them (`claude daemon run …`). */
export function daemonsUnderHome(home: string): number[] {
  return processesUnderHome(home).filter((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const at = argv.indexOf('daemon');
      return at >= 0 && argv[at + 1] === 'run';
    } catch {
      return false;
    }
  });
}

/** Kills them by pid (TERM, then KILL what is left) and waits until none is left. */
export async function killUnderHome(home: string): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    for (const pid of processesUnderHome(home)) {
      try {
        process.kill(pid, sig);
      } catch { /* gone */ }
    }
  };
  signal('SIGTERM');
  try {
    await waitFor(() => processesUnderHome(home).length === 0, 'the test HOME\'s processes to end', 5_000, 100);
  } catch {
    signal('SIGKILL');
    await waitFor(() => processesUnderHome(home).length === 0, 'the test HOME\'s processes to be killed', 10_000, 100);
  }
}
