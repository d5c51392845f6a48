/**
 * Claude Code's own sessions on another host (docs/claude-sessions.md, "On other hosts"):
 * `npm run bench:claude-hosts` (after a build). The host is an sshd of the bench's own on a
 * loopback port (test/helpers/sshd.ts), its `claude` the real newest Claude Code of the
 * test cache; the dashboard's model reads it over ssh on the default --host-poll (2 s).
 * Prints:
 *  - what one look costs, through the shared connection (10 each): without `--claude`;
 *    with `--claude` when nothing changed (the token: no `claude agents`); with `--claude`
 *    listing (`claude agents --json --all` there);
 *  - how long a session appearing, changing its status and ending there (its files written
 *    as Claude Code writes them, for a live process, at a random point of the poll) takes
 *    to reach the dashboard's rows (the target: 3 s; the poll itself is 2 s of it);
 *  - how many of ten quiet looks after that asked Claude Code there (the target: 0).
 * Exit 0 every target met; 1 a target missed; 2 the bench could not run.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLAUDE_CODE_NEWEST } from '../../src/agents/claudeVersion.js';
import { splitAgentCommand } from '../../src/agents/command.js';
import { HostsModel } from '../../src/hosts/model.js';
import { HostPoller } from '../../src/hosts/poller.js';
import { runCall, type CallOptions, type CallResult } from '../../src/hosts/call.js';
import { ensureControlDir } from '../../src/hosts/controlDir.js';
import { parseHostSpec } from '../../src/hosts/spec.js';
import { SSH_DEFAULTS, type SshConfig } from '../../src/hosts/ssh.js';
import { emptyLocal } from '../helpers/hostsModel.js';
import { sshdAvailable, startRemoteHost, type RemoteHost } from '../helpers/sshd.js';
import { median } from './stats.js';
import { standIn } from './proc.js';
import { machine, progress, sleep } from './report.js';

const POLL_MS = 2000;
const TARGET_MS = 3000;
const dir = mkdtempSync(join(tmpdir(), 'autodeck-bench-claude-hosts-'));

interface Look {
  claude: boolean;
  unchanged: boolean;
  ms: number;
}

async function main(): Promise<number> {
  const sshd = sshdAvailable();
  if (!sshd.ok) throw new Error(sshd.reason);
  const bin = join(process.cwd(), 'node_modules', '.cache', 'autodeck-claude-code', CLAUDE_CODE_NEWEST, 'node_modules', '.bin', 'claude');
  if (!existsSync(bin)) throw new Error(`no Claude Code ${CLAUDE_CODE_NEWEST} in the test cache (run an e2e test once to install it)`);
  console.log(machine({ clockTicks: false }));
  const host = await startRemoteHost(dir, { name: 'benchbox' });
  try {
    return await measure(host, bin);
  } finally {
    await host.stop();
  }
}

async function measure(host: RemoteHost, bin: string): Promise<number> {
  // the host's `claude`: the real one, on its login PATH
  symlinkSync(bin, join(dir, 'remote', 'bin', 'claude'));
  const config = join(host.home, '.claude');
  mkdirSync(join(config, 'sessions'), { recursive: true });
  const runtime = join(dir, 'run');
  mkdirSync(runtime);
  const ssh: SshConfig = { command: splitAgentCommand(host.sshCommand), controlDir: ensureControlDir(join(runtime, 'autodeck-ssh')), ...SSH_DEFAULTS };
  const spec = parseHostSpec(host.name);
  if (!spec.ok) throw new Error(spec.message);
  const looks: Look[] = [];
  const call = async (argv: readonly string[], o: CallOptions): Promise<CallResult> => {
    const r = await runCall(argv, o);
    const remote = argv.at(-1) ?? '';
    if (remote.includes(' status ')) looks.push({ claude: remote.includes('--claude'), unchanged: r.stdout.includes('"claudeUnchanged":true'), ms: r.ms });
    return r;
  };

  // 1. what a look costs
  const p = new HostPoller(spec.value, { ssh, baseMs: 3_600_000, localVersion: '0', call });
  const stand = standIn();
  const sessionFile = writeSession(config, stand, 'idle', 0);
  const base = ['status', '--json', '--events-since', '0', '--modules'];
  const costs: Record<string, number[]> = { plain: [], unchanged: [], listing: [] };
  let token = '';
  for (let i = 0; i < 10; i++) {
    costs.plain!.push((await p.run(base, 30_000)).ms);
    const full = await p.run([...base, '--claude'], 30_000);
    costs.listing!.push(full.ms);
    token = (JSON.parse(full.stdout) as { claudeToken: string }).claudeToken;
    const same = await p.run([...base, '--claude', '--claude-since', token], 30_000);
    if (!same.stdout.includes('"claudeUnchanged":true')) throw new Error('a look with the token listed again though nothing changed');
    costs.unchanged!.push(same.ms);
  }
  p.close();
  stand.kill();
  rmSync(sessionFile, { force: true });
  const ms = (xs: number[]): string => `p50 ${median(xs).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`;
  console.log(`one look at the host (10 each): without --claude ${ms(costs.plain!)}; --claude, nothing changed ${ms(costs.unchanged!)}; --claude, listing ${ms(costs.listing!)}`);

  // 2. change to row, on the dashboard's poll
  const model = new HostsModel(emptyLocal(), [spec.value], { ssh, baseMs: POLL_MS, showLocal: false, localVersion: '0', detachKey: 'C-q', call });
  try {
    const status = (sessionId: string): string | undefined => model.getSnapshot().rows.find((r) => r.claude?.session.sessionId === sessionId)?.claude?.session.status;
    const until = (ok: () => boolean): Promise<number> => {
      const start = performance.now();
      return new Promise((resolve, reject) => {
        let stop = (): void => undefined;
        const limit = setTimeout(() => {
          stop();
          reject(new Error('a change never reached the rows (30 s)'));
        }, 30_000);
        const check = (): void => {
          if (!ok()) return;
          stop();
          clearTimeout(limit);
          resolve(performance.now() - start);
        };
        stop = model.subscribe(check);
      });
    };
    await sleep(2 * POLL_MS);
    const appear: number[] = [];
    const change: number[] = [];
    const end: number[] = [];
    for (let i = 0; i < 5; i++) {
      progress(`change ${i + 1} of 5`);
      const s = standIn();
      const id = `c0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      await sleep(Math.random() * POLL_MS);
      let waited = until(() => status(id) === 'idle');
      const file = writeSession(config, s, 'idle', i, id);
      appear.push(await waited);
      await sleep(Math.random() * POLL_MS);
      waited = until(() => status(id) === 'busy');
      writeSession(config, s, 'busy', i, id);
      change.push(await waited);
      await sleep(Math.random() * POLL_MS);
      // killed hard: the file stays, the pid is gone
      waited = until(() => status(id) === undefined);
      s.kill();
      end.push(await waited);
      rmSync(file, { force: true });
    }
    await sleep(2 * POLL_MS + 1000);
    const from = looks.length;
    await sleep(10 * POLL_MS + 1000);
    const quiet = looks.slice(from);
    const asked = quiet.filter((l) => l.claude && !l.unchanged).length;
    const line = (what: string, xs: number[]): string => `${what} p50 ${median(xs).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`;
    console.log(`change to row over ssh (Claude Code ${CLAUDE_CODE_NEWEST}, --host-poll ${POLL_MS / 1000} s, 5 each; target ${TARGET_MS} ms): ${line('appears', appear)}; ${line('status', change)}; ${line('ends', end)}`);
    console.log(`${quiet.length} quiet looks after: Claude Code asked there ${asked} times (target 0); a quiet look ${ms(quiet.map((l) => l.ms))}`);
    return Math.max(...appear, ...change, ...end) > TARGET_MS || asked > 0 ? 1 : 0;
  } finally {
    model.close();
  }
}

/** The session file Claude Code keeps for a running session; its path. */
function writeSession(config: string, p: { pid: number; procStart: string }, status: string, i: number, sessionId = `d0000000-0000-4000-8000-${String(i).padStart(12, '0')}`): string {
  const file = join(config, 'sessions', `${p.pid}.json`);
  writeFileSync(file, JSON.stringify({ pid: p.pid, sessionId, cwd: '/tmp', startedAt: Date.now(), procStart: p.procStart, version: CLAUDE_CODE_NEWEST, kind: 'interactive', entrypoint: 'cli', status, updatedAt: Date.now() }));
  return file;
}

main().then((code) => {
  rmSync(dir, { recursive: true, force: true });
  process.exitCode = code;
}, (err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
  rmSync(dir, { recursive: true, force: true });
  process.exitCode = 2;
});
