/**
 * One dashboard over three hosts of ten loops each, against the same thirty loops on this
 * machine, in one run. The hosts are sshd servers of the bench's own on loopback ports
 * (test/helpers/sshd.ts: a throwaway host key, an authorized key, a second state folder as
 * each host's autodeck, a login shell with no autodeck on its PATH), each host's loops
 * supervised there (`run --detach --backend tmux`), a simulated agent taking a step every
 * 20 s, heartbeat 10 s; the dashboard in tmux at 160x50 (private server, no user config).
 * Printed:
 *
 *   1. the dashboard's CPU (% of one core; its ssh calls, the processes it starts and waits
 *      for, apart; the ssh connection masters apart) and resident memory, and the bytes it
 *      writes to its pane per second: the thirty loops on this machine (supervised in the
 *      dashboard, started through its REST API), then over the three hosts (`--no-local`,
 *      each read every `--host-poll` seconds);
 *   2. what the looks cost each host (its sshd and everything under it: the remote
 *      `status --json` of each look);
 *   3. keys while hosts fail: one host's sshd killed (unreachable), another's connection
 *      master stopped (stuck: every call through it hangs until its deadline): key to
 *      screen, median and worst of 20 presses, against the same before the failures.
 *
 * Not part of `npm test`: `npm run bench:hosts`. Environment: BENCH_HOSTS_SECONDS (window,
 * default 60), BENCH_HOSTS_SETTLE_SECONDS (default 30), BENCH_HOSTS_POLL (the dashboard's
 * --host-poll, default 2). Exit 0 every target met, 1 a target missed, 2 the bench failed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envNumber, machine, progress, sleep, table, verdict } from './report.js';
import { clockTicksPerSecond, memoryKiB } from './proc.js';
import { median, percentile } from './stats.js';
import { controlSocket } from '../../src/hosts/ssh.js';
import { DeckWorkspace } from './dashboard-workspace.js';
import { TmuxDashboard, tmuxUsable } from './dashboard-tmux.js';
import { BIN } from './workspace.js';
import { TmuxControl } from '../helpers/tmuxControl.js';
import { descendants, sshdAvailable, startRemoteHost, type RemoteHost } from '../helpers/sshd.js';
import { endRemoteLoops } from '../helpers/remoteLoops.js';

const HOSTS = 3;
const PER_HOST = 10;
const LOOPS = HOSTS * PER_HOST;
const COLS = 160;
const ROWS = 50;
const STEP_SECONDS = 20;
const HEARTBEAT_SECONDS = 10;
const KEY_PRESSES = 20;
/** A key's effect on screen while hosts fail: the dashboard's own target for a key. */
const KEY_MS = 100;
const PIPE_VAR = 'BENCH_PIPE_FILE';

const live = new Set<{ kill(): void }>();
const hosts: RemoteHost[] = [];
const cleanups: (() => void)[] = [];

async function cleanup(): Promise<void> {
  for (const v of live) v.kill();
  live.clear();
  for (const h of hosts.splice(0)) {
    try {
      endRemoteLoops(h);
    } catch { /* nothing ran */ }
    await h.stop();
  }
  for (const c of cleanups.splice(0).reverse()) {
    try {
      c();
    } catch { /* keep going */ }
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** /proc/PID/stat: the process's own CPU ticks and those of its children it waited for. */
function ticksWithChildren(pid: number): { own: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
}

/** Ticks of a process tree (each process with its waited-for children); gone processes count nothing. */
function treeTicks(pids: readonly number[]): number {
  let n = 0;
  for (const pid of pids) {
    try {
      const t = ticksWithChildren(pid);
      n += t.own + t.children;
    } catch { /* ended */ }
  }
  return n;
}

/**
 * The ssh connection masters whose sockets are in `controlDir` (or are `socket`), by their
 * command line: a master names itself `ssh: SOCKET [mux]`.
 */
function masters(controlDir: string, socket?: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmd.startsWith('ssh: ') && cmd.includes(socket ?? controlDir) && cmd.includes('[mux]')) out.push(Number(name));
    } catch { /* gone */ }
  }
  return out;
}

interface Window {
  seconds: number;
  cpu: number;
  children: number;
  masters: number;
  rssMB: number;
  bytesPerSecond: number;
  remote: number[];
}

/** Samples the dashboard for `seconds`: CPU (its own, its waited-for children's, the masters'), memory, pane bytes, each host's tree. */
async function measure(view: TmuxDashboard, pipeFile: string, seconds: number, controlDir?: string): Promise<Window> {
  const pid = view.pid;
  const hz = clockTicksPerSecond();
  const remoteTrees = (): number[] => hosts.map((h) => (h.sshdPid ? treeTicks([h.sshdPid, ...descendants(h.sshdPid)]) : 0));
  const start = { at: Date.now(), t: ticksWithChildren(pid), m: controlDir ? treeTicks(masters(controlDir)) : 0, bytes: statSync(pipeFile).size, remote: remoteTrees() };
  let peak = 0;
  for (let i = 0; i < seconds; i++) {
    await sleep(1000);
    peak = Math.max(peak, memoryKiB(pid).rss);
  }
  const end = { at: Date.now(), t: ticksWithChildren(pid), m: controlDir ? treeTicks(masters(controlDir)) : 0, bytes: statSync(pipeFile).size, remote: remoteTrees() };
  const wall = (end.at - start.at) / 1000;
  const pct = (ticks: number): number => (ticks / hz / wall) * 100;
  return {
    seconds: wall, cpu: pct(end.t.own - start.t.own), children: pct(end.t.children - start.t.children), masters: pct(end.m - start.m),
    rssMB: peak / 1024, bytesPerSecond: (end.bytes - start.bytes) / wall, remote: end.remote.map((r, i) => pct(r - start.remote[i]!)),
  };
}

/** Key to screen: `j` / `k` alternately, each timed from send-keys to the selection mark moving (control-mode looks). */
async function keyLatencies(view: TmuxDashboard, env: NodeJS.ProcessEnv): Promise<number[]> {
  const control = new TmuxControl(view.socket, 'deck', env as Record<string, string>);
  try {
    const selected = async (): Promise<string> => (await control.command('capture-pane -p -t deck')).find((l) => l.startsWith('›')) ?? '';
    const out: number[] = [];
    for (let i = 0; i < KEY_PRESSES; i++) {
      const before = await selected();
      const t0 = performance.now();
      await control.command(`send-keys -t deck ${i % 2 === 0 ? 'j' : 'k'}`);
      for (;;) {
        if ((await selected()) !== before) break;
        if (performance.now() - t0 > 5000) throw new Error(`a key got no answer in 5 s; the selected row: ${before}`);
      }
      out.push(performance.now() - t0);
      await sleep(150);
    }
    return out;
  } finally {
    control.close();
  }
}

async function waitScreen(view: TmuxDashboard, test: (lines: string[]) => boolean, ms: number, what: string): Promise<void> {
  await view.waitFor(() => (test(view.screen()) ? true : undefined), ms, what);
}

async function startLoopsWithApi(ws: DeckWorkspace, port: number): Promise<void> {
  const tokenFile = join(ws.dir, 'state', 'autodeck', 'api-token');
  for (let i = 0; !existsSync(tokenFile); i++) {
    if (i > 200) throw new Error('the dashboard made no API token');
    await sleep(50);
  }
  const token = readFileSync(tokenFile, 'utf8').trim();
  for (const taskDir of ws.modules) {
    const res = await fetch(`http://127.0.0.1:${port}/api/sessions/auto/task-auto`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ taskDir, maxIterations: 1000, timeoutMinutes: 1440 }),
    });
    if (res.status !== 201) throw new Error(`starting ${taskDir}: HTTP ${res.status} ${await res.text()}`);
  }
}

const pct = (n: number): string => `${n.toFixed(2)} %`;

async function main(): Promise<number> {
  const tmux = tmuxUsable();
  if (!tmux.ok) throw new Error(`this bench needs tmux: ${tmux.why}`);
  const sshd = sshdAvailable();
  if (!sshd.ok) throw new Error(`this bench needs sshd: ${sshd.reason}`);
  const seconds = Math.round(envNumber('BENCH_HOSTS_SECONDS', 60, 5));
  const settle = envNumber('BENCH_HOSTS_SETTLE_SECONDS', 30, 0);
  const poll = envNumber('BENCH_HOSTS_POLL', 2, 0.2);

  // ---- the thirty loops on this machine, in the dashboard ----
  const local = new DeckWorkspace(LOOPS, 'sim', STEP_SECONDS);
  cleanups.push(() => {
    local.killAgents();
    local.remove();
  });
  const port = await freePort();
  const localPipe = join(local.dir, 'pane-bytes');
  writeFileSync(localPipe, '');
  const localView = new TmuxDashboard(BIN, local.dashboardArgs(['--api-port', String(port), '--heartbeat', String(HEARTBEAT_SECONDS), '--timeout', '1440', '--max-iterations', '1000']).slice(1),
    { cwd: local.dir, env: { ...local.env(), [PIPE_VAR]: localPipe }, confDir: local.dir, cols: COLS, rows: ROWS, tag: 'local' });
  live.add(localView);
  await waitScreen(localView, (l) => l.some((x) => /^\s*MODULE\s+STATE/.test(x)), 20_000, 'the table');
  localView.pipeTo(PIPE_VAR);
  progress(`this machine: starting ${LOOPS} loops through the dashboard's API`);
  await startLoopsWithApi(local, port);
  await waitScreen(localView, (l) => new RegExp(`▶ ${LOOPS} running`).test(l[0] ?? ''), 60_000, `${LOOPS} loops running`);
  progress(`this machine: settling ${settle} s, measuring ${seconds} s`);
  await sleep(settle * 1000);
  const here = await measure(localView, localPipe, seconds);
  localView.kill();
  live.delete(localView);
  local.killAgents();

  // ---- three hosts of ten loops, over ssh ----
  const base = realTmp('autodeck-hostsbench-');
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  progress(`starting ${HOSTS} hosts (sshd on loopback ports) with ${PER_HOST} loops each, supervised there`);
  for (let i = 1; i <= HOSTS; i++) {
    const dir = join(base, `h${i}`);
    mkdirSync(dir);
    const h = await startRemoteHost(dir, { name: `host${i}`, settings: { heartbeatSeconds: HEARTBEAT_SECONDS } });
    hosts.push(h);
    const dirs = Array.from({ length: PER_HOST }, (_, k) => h.module(`bench-${i}-${String(k + 1).padStart(2, '0')}`, { scenario: { stepSeconds: STEP_SECONDS, steps: 100_000 } }));
    // supervised on the host, as a start from the dashboard leaves it (here directly, not over ssh)
    execFileSync(process.execPath, [BIN, 'run', '--detach', '--backend', 'tmux', '--max-iterations', '1000', '--timeout', '1440', '--', ...dirs],
      { env: { ...h.env, PATH: `${h.env.PATH}:${process.env.PATH ?? ''}` }, cwd: h.home, stdio: ['ignore', 'ignore', 'pipe'] });
  }
  const sshConfig = join(base, 'ssh_config');
  writeFileSync(sshConfig, hosts.map((h) => readFileSync(h.sshCommand.split(' ')[2]!, 'utf8')).join('\n'));
  const runtime = join(base, 'run');
  mkdirSync(runtime);
  const controlDir = join(runtime, 'autodeck-ssh');
  const empty = new DeckWorkspace(0, 'sim');
  cleanups.push(() => empty.remove());
  const hostsPipe = join(base, 'pane-bytes');
  writeFileSync(hostsPipe, '');
  const hostArgs = ['--no-local', ...hosts.flatMap((h) => ['--host', h.name]), '--ssh-command', `ssh -F ${sshConfig}`, '--host-poll', String(poll)];
  const env = { ...empty.env(), XDG_RUNTIME_DIR: runtime, [PIPE_VAR]: hostsPipe };
  const hostsView = new TmuxDashboard(BIN, empty.dashboardArgs(hostArgs).slice(1), { cwd: empty.dir, env, confDir: base, cols: COLS, rows: ROWS, tag: 'hosts' });
  live.add(hostsView);
  await waitScreen(hostsView, (l) => new RegExp(`▶ ${LOOPS} running`).test(l[0] ?? ''), 120_000, `${LOOPS} loops of ${HOSTS} hosts running`);
  hostsView.pipeTo(PIPE_VAR);
  progress(`${HOSTS} hosts: settling ${settle} s, measuring ${seconds} s`);
  await sleep(settle * 1000);
  const over = await measure(hostsView, hostsPipe, seconds, controlDir);
  progress('keys, all hosts answering');
  const keysBefore = await keyLatencies(hostsView, env);

  // ---- one host gone, another's connection stuck ----
  progress(`${hosts[0]!.name}: sshd killed; ${hosts[1]!.name}: its connection master stopped`);
  await hosts[0]!.stop();
  const stuckSocket = controlSocket({ command: ['ssh', '-F', sshConfig], controlDir }, { destination: hosts[1]!.name });
  const stuck = masters(controlDir, stuckSocket);
  if (stuck.length === 0) throw new Error(`no connection master for ${hosts[1]!.name} at ${stuckSocket}`);
  for (const pid of stuck) process.kill(pid, 'SIGSTOP');
  cleanups.push(() => {
    for (const pid of stuck) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch { /* ended */ }
    }
  });
  await waitScreen(hostsView, (l) => l[0]?.includes(`${hosts[0]!.name} ✗ no answer`) === true, 60_000, `${hosts[0]!.name} unreachable in the header`);
  const keysDown = await keyLatencies(hostsView, env);
  // the stuck call ends at its deadline (20 s); then the connection is replaced
  let stuckRecovered = false;
  for (let i = 0; i < 60 && !stuckRecovered; i++) {
    stuckRecovered = masters(controlDir, stuckSocket).some((pid) => !stuck.includes(pid));
    if (!stuckRecovered) await sleep(1000);
  }

  const rows: string[][] = [];
  let met = true;
  const check = (what: string, value: string, target: string, ok: boolean | undefined): void => {
    if (ok === false) met = false;
    rows.push([what, value, target, ok === undefined ? '' : verdict(ok)]);
  };
  check(`CPU, ${LOOPS} loops on this machine (supervised in the dashboard)`, pct(here.cpu), '(info)', undefined);
  check(`CPU, ${HOSTS} hosts x ${PER_HOST} loops (read every ${poll} s)`, pct(over.cpu), '(info)', undefined);
  check('  its ssh calls (processes it started, waited for)', pct(over.children), '(info)', undefined);
  check('  the ssh connection masters', pct(over.masters), '(info)', undefined);
  check('  in all', pct(over.cpu + over.children + over.masters), `< ${pct(here.cpu)} + 1 %`, over.cpu + over.children + over.masters < here.cpu + 1);
  check('resident memory (peak in the window): this machine', `${here.rssMB.toFixed(0)} MB`, '(info)', undefined);
  check('resident memory (peak in the window): hosts', `${over.rssMB.toFixed(0)} MB`, `< ${here.rssMB.toFixed(0)} MB + 20`, over.rssMB < here.rssMB + 20);
  check('terminal output: this machine', `${here.bytesPerSecond.toFixed(0)} B/s`, '(info)', undefined);
  check('terminal output: hosts', `${over.bytesPerSecond.toFixed(0)} B/s`, `< ${(here.bytesPerSecond * 1.5 + 200).toFixed(0)} B/s`, over.bytesPerSecond < here.bytesPerSecond * 1.5 + 200);
  over.remote.forEach((r, i) => check(`  cost on ${hosts[i]!.name} (its sshd and the looks' remote status)`, pct(r), '(info)', undefined));
  const keys = (l: number[]): string => `${median(l).toFixed(0)} / ${percentile(l, 90).toFixed(0)} / ${Math.max(...l).toFixed(0)} ms`;
  check(`key to screen, hosts answering (median / p90 / worst of ${KEY_PRESSES})`, keys(keysBefore), '(info)', undefined);
  check(`key to screen, ${hosts[0]!.name} unreachable, ${hosts[1]!.name} stuck (median / p90 / worst)`, keys(keysDown), `median < ${KEY_MS} ms`, median(keysDown) < KEY_MS);
  check(`${hosts[1]!.name}'s stuck connection replaced by a new one`, stuckRecovered ? 'yes' : 'no, within a minute', 'yes', stuckRecovered);

  console.log(`autodeck over several hosts: ${machine({ clockTicks: true })}`);
  console.log(`${LOOPS} loops of the simulated agent, a step every ${STEP_SECONDS} s, heartbeat ${HEARTBEAT_SECONDS} s; ${seconds} s windows after ${settle} s; the dashboard in ${tmux.version} at ${COLS}x${ROWS}\n`);
  console.log(table([['', 'measured', 'target', ''], ...rows], ['l', 'r', 'r', 'l']));
  return met ? 0 : 1;
}

function realTmp(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

for (const s of ['SIGINT', 'SIGTERM'] as const) {
  process.on(s, () => {
    void cleanup().finally(() => process.exit(2));
  });
}
main().then(async (code) => {
  await cleanup();
  process.exitCode = code;
}, async (err: unknown) => {
  await cleanup();
  console.error(`bench failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 2;
});
