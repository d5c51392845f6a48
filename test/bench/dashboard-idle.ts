/**
 * The dashboard at rest, twenty loops of a slow simulated agent
 * (a step every 20 s), heartbeat 10 s, the dashboard in tmux at 160x50 (private server,
 * no user config). Printed in one run:
 *
 *   1. first frame: `tmux new-session` to the table header on `capture-pane`: the first
 *      start (no code cache yet), then the median of later starts, against
 *      ccmanager 3.0.0 started the same way (a git repository, a throwaway HOME). Both
 *      are started by their bin files, as npm links them: through their first lines
 *      (ours is read by sh, which sets glibc's malloc tunable; theirs by env), with the
 *      `node` on PATH;
 *   2. the dashboard process's CPU (% of one core) and resident memory with the 20 loops;
 *   3. bytes it writes to its pane per second (tmux `pipe-pane`): in the seconds in which
 *      no loop signalled (only the clocks tick), and over the whole window.
 *
 * The loops are started through the dashboard's own REST API (`--api-port`), so they run
 * in the dashboard process, as when started with the keys; BENCH_IDLE_START=keys starts
 * them with the keys instead (`s`, Enter, `j` in tmux, no API server in the dashboard: its
 * memory differs, docs/performance.md). ccmanager is installed once
 * into node_modules/.cache/ccmanager-3.0.0 (npm, `allowScripts` naming node-pty).
 *
 * Not part of `npm test`: `npm run bench:dashboard` (with the load bench after it), or
 * `npm run build && node dist/test/bench/dashboard-idle.js`. Environment:
 * BENCH_IDLE_SECONDS (window, default 60), BENCH_IDLE_SETTLE_SECONDS (default 60, see SETTLE_SECONDS),
 * BENCH_IDLE_LAUNCHES (first frames of each program, default 5), BENCH_IDLE_CCMANAGER=0 skips ccmanager,
 * BENCH_IDLE_START=keys (see above).
 * Exit 0 every target met, 1 a target missed, 2 the bench failed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envNumber, machine, progress, sleep, table, verdict } from './report.js';
import { clockTicksPerSecond, cpuTicks, memoryKiB } from './proc.js';
import { median } from './stats.js';
import { DeckWorkspace } from './dashboard-workspace.js';
import { TmuxDashboard, tmuxUsable } from './dashboard-tmux.js';
import { TmuxControl } from '../helpers/tmuxControl.js';

const LOOPS = 20;
const COLS = 160;
const ROWS = 50;
const STEP_SECONDS = 20;
const HEARTBEAT_SECONDS = 10;
const CPU_PERCENT = 1;
const BYTES_PER_SECOND = 1000;
const RSS_MB = 100;
const FIRST_FRAME_MS = 300;
const CCMANAGER_RATIO = 0.35;
const CCMANAGER = '3.0.0';
const HEADER = /^\s*MODULE\s+STATE\s+ITER/;
const PIPE_VAR = 'BENCH_PIPE_FILE';
/**
 * How long the twenty loops run before "at rest" is measured. In its first minute V8 is
 * still compiling the dashboard's hot code on its worker threads (a hundred optimised
 * functions in the first 30 s, a few a minute after two minutes: docs/performance.md),
 * which a dashboard left running for hours pays once. The settling minute's
 * CPU is printed too, for information.
 */
const SETTLE_SECONDS = 60;

const CHECKOUT = fileURLToPath(new URL('../../../', import.meta.url));
const live = new Set<{ kill(): void }>();
const spaces = new Set<DeckWorkspace>();

function cleanup(): void {
  for (const v of live) v.kill();
  live.clear();
  for (const ws of spaces) {
    try {
      ws.rows();
    } catch { /* no database yet */ }
    ws.killAgents();
    ws.remove();
  }
  spaces.clear();
}

/** ccmanager 3.0.0's entry point, installed once under node_modules/.cache. */
function ccmanagerCli(): string {
  const dir = join(CHECKOUT, 'node_modules', '.cache', `ccmanager-${CCMANAGER}`);
  const cli = join(dir, 'node_modules', 'ccmanager', 'dist', 'cli.js');
  if (existsSync(cli)) return cli;
  progress(`installing ccmanager@${CCMANAGER} into ${dir}`);
  mkdirSync(dir, { recursive: true });
  // npm 11 runs an install script only when allowScripts names the package: node-pty builds.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'ccmanager-bench', private: true, allowScripts: { 'node-pty': true } }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `ccmanager@${CCMANAGER}`], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  return cli;
}

/** A `node` argv ([bin file, ...args]) as a user's shell runs it: the bin file itself. */
function installed(argv: string[]): [string, string[]] {
  return [argv[0]!, argv.slice(1)];
}

async function waitScreen(view: TmuxDashboard, test: (lines: string[]) => boolean, ms: number, what: string): Promise<number> {
  return (await view.waitFor(() => (test(view.screen()) ? true : undefined), ms, what)).at;
}

/**
 * One launch in a fresh tmux server at 160x50: ms from new-session to `ready` on screen.
 * The pane is read through a tmux control-mode client (a round trip to the server per
 * look), not one `tmux capture-pane` process per look: on two cores, spawning those back
 * to back took a core from the program being timed (measured: docs/performance.md).
 */
async function launch(file: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; confDir: string }, ready: (l: string[]) => boolean, tag: string, linger?: () => Promise<void>): Promise<number> {
  const view = new TmuxDashboard(file, args, { ...opts, cols: COLS, rows: ROWS, tag });
  live.add(view);
  const control = new TmuxControl(view.socket, 'deck', opts.env as Record<string, string>);
  try {
    const deadline = view.startedAt + 20_000;
    for (;;) {
      const lines = await control.command('capture-pane -p -t deck');
      const at = performance.now();
      if (ready(lines)) {
        await linger?.();
        return at - view.startedAt;
      }
      if (view.hasExited) throw new Error(`the dashboard in tmux ended while waiting for the first frame of ${tag}`);
      if (at > deadline) throw new Error(`timed out waiting for the first frame of ${tag} (tmux); the pane:\n${lines.join('\n').trimEnd()}`);
      await sleep(2);
    }
  } finally {
    control.close();
    view.kill();
    live.delete(view);
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

/**
 * The twenty loops started as a person starts them: `s` on the selected row, Enter on the
 * start dialog (its fields prefilled from the dashboard's --max-iterations and --timeout),
 * `j` to the next row. The header's running count says each one started.
 */
async function startLoopsWithKeys(view: TmuxDashboard): Promise<void> {
  for (let i = 1; i <= LOOPS; i++) {
    view.write('s');
    await waitScreen(view, (l) => l.some((x) => x.includes('max iterations')), 10_000, 'the start dialog');
    view.write('\r');
    await waitScreen(view, (l) => new RegExp(`▶ ${i} running`).test(l[0] ?? ''), 20_000, `${i} loops running in the header`);
    view.write('j');
  }
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

interface Sample {
  at: number;
  bytes: number;
  ticks: number;
  rssKiB: number;
  signals: number[];
}

async function main(): Promise<number> {
  const tmux = tmuxUsable();
  if (!tmux.ok) throw new Error(`this bench needs tmux: ${tmux.why}`);
  const seconds = Math.round(envNumber('BENCH_IDLE_SECONDS', 60, 10));
  const settle = envNumber('BENCH_IDLE_SETTLE_SECONDS', SETTLE_SECONDS, 0);
  const launches = Math.round(envNumber('BENCH_IDLE_LAUNCHES', 5, 1));
  const withCcm = process.env.BENCH_IDLE_CCMANAGER !== '0';
  const byApi = process.env.BENCH_IDLE_START !== 'keys';
  const ws = new DeckWorkspace(LOOPS, 'sim', STEP_SECONDS);
  spaces.add(ws);
  const base = { cwd: ws.dir, env: ws.env(), confDir: ws.dir };

  // ---- first frames, the two programs alternating ----
  const ccm = withCcm ? ccmanagerCli() : undefined;
  const ccmDir = mkdtempSync(join(tmpdir(), 'autodeck-ccmbench-'));
  const ccmEnv: NodeJS.ProcessEnv = { ...process.env, HOME: ccmDir, XDG_CONFIG_HOME: join(ccmDir, 'config') };
  delete ccmEnv.TMUX;
  const repo = join(ccmDir, 'repo');
  mkdirSync(repo);
  const git = (args: string[]): void => void execFileSync('git', args, { cwd: repo, env: ccmEnv, stdio: 'ignore' });
  git(['init', '-q']);
  git(['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'init']);
  const ours: number[] = [];
  const theirs: number[] = [];
  let cold = NaN;
  try {
    // The first start after an install has no code cache yet (src/startup/scriptModule.ts):
    // timed on its own, then left running until it has written the cache, as a first run
    // that lasts 3 s does. The launches after it start as a user's later starts do.
    progress('first frame, first start (no code cache)');
    const cacheDir = join(base.env.XDG_CACHE_HOME!, 'autodeck', 'code');
    cold = await launch(...installed(ws.dashboardArgs()), base, (l) => l.some((x) => HEADER.test(x)), 'autodeck', async () => {
      for (let t = 0; t < 100 && !(existsSync(cacheDir) && readdirSync(cacheDir).some((f) => f.endsWith('.v8cache'))); t++) await sleep(100);
    });
    for (let i = 0; i < launches; i++) {
      progress(`first frame ${i + 1}/${launches}`);
      ours.push(await launch(...installed(ws.dashboardArgs()), base, (l) => l.some((x) => HEADER.test(x)), 'autodeck'));
      if (ccm) theirs.push(await launch(ccm, [], { cwd: repo, env: ccmEnv, confDir: ccmDir }, (l) => l.some((x) => x.includes('CCManager')), 'ccmanager'));
    }
  } finally {
    rmSync(ccmDir, { recursive: true, force: true });
  }

  // ---- twenty slow loops, started with the keys (or through the dashboard's API) ----
  const port = byApi ? await freePort() : 0;
  const pipeFile = join(ws.dir, 'pane-bytes');
  writeFileSync(pipeFile, '');
  const apiArgs = byApi ? ['--api-port', String(port)] : [];
  const view = new TmuxDashboard(...installed(ws.dashboardArgs([...apiArgs, '--heartbeat', String(HEARTBEAT_SECONDS), '--timeout', '1440', '--max-iterations', '1000'])),
    { ...base, env: { ...base.env, [PIPE_VAR]: pipeFile }, cols: COLS, rows: ROWS, tag: 'load' });
  live.add(view);
  await waitScreen(view, (l) => l.some((x) => HEADER.test(x)), 20_000, 'the table header');
  view.pipeTo(PIPE_VAR);
  progress(`starting ${LOOPS} loops ${byApi ? 'through the API' : 'with the keys'} (a step every ${STEP_SECONDS} s, heartbeat ${HEARTBEAT_SECONDS} s)`);
  if (byApi) await startLoopsWithApi(ws, port);
  else await startLoopsWithKeys(view);
  // The header counts them: with the detail pane (shown by default at 50 rows) not every row is in view.
  await waitScreen(view, (l) => new RegExp(`▶ ${LOOPS} running`).test(l[0] ?? ''), 60_000, `${LOOPS} loops running in the header`);
  progress(`settling ${settle} s, then measuring ${seconds} s`);
  const pid = view.pid;
  const settleFrom = { at: Date.now(), ticks: cpuTicks(pid) };
  await sleep(settle * 1000);
  const take = (): Sample => ({
    at: Date.now(), bytes: statSync(pipeFile).size, ticks: cpuTicks(pid), rssKiB: memoryKiB(pid).rss,
    signals: ws.rows().map((r) => (r.lastSignalAt ? Date.parse(r.lastSignalAt) : 0)),
  });
  const samples: Sample[] = [take()];
  for (let i = 0; i < seconds; i++) {
    await sleep(1000);
    samples.push(take());
  }
  const running = ws.rows().filter((r) => r.status === 'running').length;
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const wall = (last.at - first.at) / 1000;
  /** % of one core the dashboard used between two samples. */
  const cpuBetween = (a: { at: number; ticks: number }, b: { at: number; ticks: number }): number =>
    ((b.ticks - a.ticks) / clockTicksPerSecond() / ((b.at - a.at) / 1000)) * 100;
  const cpu = cpuBetween(first, last);
  const rssMB = last.rssKiB / 1024;
  const peakMB = Math.max(...samples.map((s) => s.rssKiB)) / 1024;
  // A second is clocks-only when no loop signalled in it or just before (the screen may lag a little).
  let quietBytes = 0;
  let quietSeconds = 0;
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    const signalled = b.signals.some((t) => t > a.at - 500 && t <= b.at);
    if (signalled) continue;
    quietBytes += b.bytes - a.bytes;
    quietSeconds += (b.at - a.at) / 1000;
  }
  const quiet = quietSeconds > 0 ? quietBytes / quietSeconds : NaN;
  const total = (last.bytes - first.bytes) / wall;
  const ff = median(ours);
  const ccmFf = theirs.length > 0 ? median(theirs) : NaN;

  const rows: string[][] = [];
  let met = true;
  const check = (what: string, value: string, target: string, ok: boolean | undefined): void => {
    if (ok === false) met = false;
    rows.push([what, value, target, ok === undefined ? '' : verdict(ok)]);
  };
  check('first frame, first start after install (no code cache yet)', `${cold.toFixed(0)} ms`, '(info)', undefined);
  check(`first frame, later starts, median of ${ours.length} (${ours.map((v) => v.toFixed(0)).join(', ')} ms)`, `${ff.toFixed(0)} ms`, `< ${FIRST_FRAME_MS} ms`, ff < FIRST_FRAME_MS);
  if (theirs.length > 0) {
    check(`ccmanager ${CCMANAGER} first frame, same way (${theirs.map((v) => v.toFixed(0)).join(', ')} ms)`, `${ccmFf.toFixed(0)} ms`, '(info)', undefined);
    check('  ours / ccmanager', `${(ff / ccmFf).toFixed(2)}x`, `< ${CCMANAGER_RATIO}x`, ff / ccmFf < CCMANAGER_RATIO);
  } else check(`ccmanager ${CCMANAGER} first frame`, 'skipped (BENCH_IDLE_CCMANAGER=0)', '', undefined);
  if (settle > 0) check(`CPU while settling (${settle} s from the loops' start: V8 still compiling)`, `${cpuBetween(settleFrom, first).toFixed(2)} % of a core`, '(info)', undefined);
  check(`CPU at rest, ${wall.toFixed(0)} s after that, ${running}/${LOOPS} loops running`, `${cpu.toFixed(2)} % of a core`, `< ${CPU_PERCENT} %`, cpu < CPU_PERCENT);
  check('resident memory at the end (peak in the window)', `${rssMB.toFixed(0)} MB (${peakMB.toFixed(0)} MB)`, `< ${RSS_MB} MB`, rssMB < RSS_MB);
  check(`terminal output, clocks only (${quietSeconds.toFixed(0)} s without a signal)`, `${quiet.toFixed(0)} B/s`, `< ${BYTES_PER_SECOND} B/s`, quiet < BYTES_PER_SECOND);
  check('terminal output, whole window (steps and heartbeats too)', `${total.toFixed(0)} B/s`, '(info)', undefined);

  console.log(`autodeck dashboard at rest: ${machine({ clockTicks: true })}`);
  console.log(`${LOOPS} loops of the simulated agent (started ${byApi ? 'through the dashboard\'s API' : 'with the keys'}), a step every ${STEP_SECONDS} s, heartbeat ${HEARTBEAT_SECONDS} s, the dashboard in ${tmux.version} at ${COLS}x${ROWS}\n`);
  console.log(table([['', 'measured', 'target', ''], ...rows], ['l', 'r', 'r', 'l']));
  view.kill();
  live.delete(view);
  return met ? 0 : 1;
}

for (const s of ['SIGINT', 'SIGTERM'] as const) {
  process.on(s, () => {
    cleanup();
    process.exit(2);
  });
}
main().then((code) => {
  cleanup();
  process.exitCode = code;
}, (err: unknown) => {
  cleanup();
  console.error(`bench failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 2;
});
