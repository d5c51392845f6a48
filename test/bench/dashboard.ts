/**
 * The dashboard benchmark: `autodeck` (the Ink dashboard, supervisor in-process) in a
 * real pseudo-terminal (node-pty, 120x40, TERM=xterm-256color) whose bytes feed a headless
 * xterm, so figures are what a person at a terminal gets:
 *
 *   1. first frame: spawn to the first screen showing the table header, over 20 modules;
 *   2. signal-to-screen latency: the bench writes `.auto-signal` files for loops of a
 *      quiet agent (started with the keys) and watches the row change on the emulator's
 *      screen; cross-checked with the dashboard in tmux and `capture-pane` when tmux is there;
 *   3. the dashboard process's CPU and memory with 20 simulated loops writing signals, and its
 *      memory again once every agent's scrollback is full;
 *   4. bytes written to the terminal per second, idle (and, for information, under load).
 *
 * Not part of `npm test`: `npm run build && node dist/test/bench/dashboard.js`.
 * Environment: BENCH_DASHBOARD_SECONDS (load window, default 60), BENCH_DASHBOARD_IDLE_SECONDS
 * (idle window, default 30), BENCH_DASHBOARD_SAMPLES (latency samples, default 40),
 * BENCH_DASHBOARD_LAUNCHES (default 5), BENCH_DASHBOARD_LOOPS (latency loops, default 8),
 * BENCH_DASHBOARD_SETTLE_SECONDS (default 3), BENCH_DASHBOARD_TMUX (0: skip the tmux cross-check),
 * BENCH_DASHBOARD_TMUX_SAMPLES (default 12).
 * Exit 0 every target met, 1 a target missed, 2 the bench failed.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { envNumber, machine, progress, sleep, table, verdict } from './report.js';
import { clockTicksPerSecond, cpuTicks, memoryKiB } from './proc.js';
import { summarize } from './stats.js';
import { DashboardTerm, COLS, ROWS, type Seen } from './dashboard-term.js';
import { DeckWorkspace } from './dashboard-workspace.js';
import { TmuxDashboard, tmuxUsable } from './dashboard-tmux.js';

const MODULES = 20;
const MAX_ITERATIONS = 1000;
const FIRST_FRAME_MS = 500;
const LATENCY_MEDIAN_MS = 100;
const LATENCY_P95_MS = 250;
const CPU_PERCENT = 2;
const RSS_MB = 150;
const IDLE_BYTES_PER_SECOND = 1000;
const SAMPLE_TIMEOUT_MS = 5000;
/** The pace the CPU and memory targets are measured at: brisk for a real agent, whose steps take minutes. */
const SIM_STEP_SECONDS = 30;
/** A stress pace, reported without a target: twenty loops signalling every 3 s. */
const STRESS_STEP_SECONDS = 3;
/** Lines each agent prints in the last run, more than the 1,000-line scrollback it fills. */
const FLOOD_LINES = 1500;
/**
 * The window opens this long after the loops start, once twenty agents have printed those
 * lines at once (30,000 lines in a few seconds). The peak includes the burst and is judged too.
 */
const FLOOD_SETTLE_SECONDS = 20;

interface Paced {
  step: number;
  flood: number;
  load: Window;
  signals: number;
  stillRunning: number;
  shownRunning: number;
}


const benchStart = performance.now();
const elapsed = (): string => `${((performance.now() - benchStart) / 1000).toFixed(0)} s`;

/** What the dashboard needs to be driven by keys and read: the pty+xterm one or the tmux one. */
interface View {
  screen(): string[];
  screenText(): string;
  rowLine(name: string): string | undefined;
  write(data: string): void;
  waitFor<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<Seen<T>>;
  waitText(text: string, timeoutMs: number): Promise<Seen<true>>;
  waitExit(ms: number): Promise<boolean>;
  readonly hasExited: boolean;
  kill(): void;
}

// ---- everything alive, so an interrupted or failed bench leaves nothing behind ----

const liveTerms = new Set<DashboardTerm>();
const liveTmux = new Set<TmuxDashboard>();
const liveSpaces = new Set<DeckWorkspace>();

function killEverything(): number {
  for (const t of liveTerms) {
    t.kill();
    t.dispose();
  }
  for (const t of liveTmux) t.kill();
  let agents = 0;
  for (const ws of liveSpaces) {
    try {
      ws.rows();
    } catch { /* the database may be gone */ }
    agents += ws.killAgents();
    ws.remove();
  }
  liveTerms.clear();
  liveTmux.clear();
  liveSpaces.clear();
  return agents;
}

function launch(ws: DeckWorkspace, extra: string[]): DashboardTerm {
  const t = new DashboardTerm(process.execPath, ws.dashboardArgs(extra), { cwd: ws.dir, env: ws.env() });
  liveTerms.add(t);
  return t;
}

const HEADER = /^\s*MODULE\s+STATE\s+ITER/;

/** Time from spawn to the first parsed screen that shows the table header. */
async function firstFrame(t: DashboardTerm): Promise<number> {
  const seen = await t.waitFor(() => (t.screen().some((l) => HEADER.test(l)) ? true : undefined), 20_000, 'the table header (MODULE)');
  return seen.at - t.spawnedAt;
}

interface QuitReport {
  how: string;
  seconds: number;
  agents: number;
  leftoverAgents: number;
}

/**
 * Quits as a person does: `q`, then `y` when the dialog asks (loops running); SIGKILL
 * if it has not ended after 30 s. Then no agent may outlive it.
 */
async function quit(view: View, ws: DeckWorkspace): Promise<QuitReport> {
  const t0 = performance.now();
  try {
    ws.rows(); // a last look at the agents' ids
  } catch { /* none yet */ }
  let how = 'q';
  if (!view.hasExited) {
    view.write('q');
    const asked = await Promise.race([
      view.waitText('Quit autodeck?', 5000).then(() => true, () => false),
      view.waitExit(5000).then((gone) => (gone ? false : new Promise<boolean>(() => {}))),
    ]);
    if (asked) {
      how = 'q, y';
      view.write('y');
    }
    if (!(await view.waitExit(30_000))) {
      how += ', then SIGKILL (did not exit in 30 s)';
      view.kill();
      await view.waitExit(5000);
    }
  } else {
    how = 'already exited';
  }
  ws.closeReader();
  const deadline = Date.now() + 10_000;
  while (ws.liveAgents().length > 0 && Date.now() < deadline) await sleep(50);
  const leftoverAgents = ws.killAgents();
  return { how, seconds: (performance.now() - t0) / 1000, agents: ws.agentPids.size, leftoverAgents };
}

/**
 * A pause before each key that follows a change on screen, as a person's would: a key
 * arriving the instant a frame is drawn can still reach the previous view's handler
 * (reported as KEY MISSED when it happens anyway).
 */
const KEY_PAUSE_MS = 50;

/** Keys the dashboard acted on as if an earlier row were still selected (see keyMisses). */
const keyMisses: string[] = [];

const SELECTED = /^› (bench-\d\d)\s/;

/** The index of the selected module, once a whole selected line is on screen (not mid-frame). */
async function selectedIndexOf(view: View, ws: DeckWorkspace): Promise<number> {
  const seen = await view.waitFor(() => {
    for (const l of view.screen()) {
      const m = SELECTED.exec(l);
      if (m) return ws.names.indexOf(m[1]!);
    }
    return undefined;
  }, 5000, 'a selected row');
  return seen.value;
}

/** Moves the selection to `name` with `j`/`k`, one press at a time, each one waited for. */
async function select(view: View, ws: DeckWorkspace, name: string): Promise<void> {
  const target = ws.names.indexOf(name);
  for (let attempt = 0; attempt < 25; attempt++) {
    const at = await selectedIndexOf(view, ws);
    if (at === target) return;
    await sleep(KEY_PAUSE_MS);
    view.write(at < target ? 'j' : 'k');
    await view.waitFor(() => {
      const l = view.screen().find((x) => SELECTED.test(x));
      return l && ws.names.indexOf(SELECTED.exec(l)![1]!) !== at ? true : undefined;
    }, 2000, `the selection to move from ${ws.names[at] ?? 'nothing'}`).catch(() => undefined);
  }
  throw new Error(`could not select ${name} with j/k; the screen:\n${view.screenText().trimEnd()}`);
}

/**
 * Starts loops on the first `count` rows with the keys: select the row (`j`), `s`, check
 * the dialog, Enter, wait for the row to show running. A key that the dashboard applied
 * to the previous row (it says "a loop already runs here" for a row shown as not running)
 * is noted and tried again.
 */
async function startByKeys(view: View, ws: DeckWorkspace, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const name = ws.names[i]!;
    await select(view, ws, name);
    if (/running|starting|suspended/.test(view.rowLine(name) ?? '')) {
      // A loop the last quit suspended: the launch resumes it.
      await view.waitFor(() => (/▶ running/.test(view.rowLine(name) ?? '') ? true : undefined), 15_000, `${name} resumed`);
      continue;
    }
    for (let attempt = 1; ; attempt++) {
      await sleep(KEY_PAUSE_MS);
      view.write('s');
      const dialog = await view.waitFor(() => {
        const text = view.screenText();
        if (text.includes(`Start a loop on ${name}`)) return 'dialog';
        if (/Start a loop on bench-/.test(text)) return 'wrong dialog';
        if (text.includes('a loop already runs here')) return 'refused';
        return undefined;
      }, 5000, `the start dialog for ${name}`);
      if (dialog.value === 'dialog') break;
      keyMisses.push(`"s" pressed ${KEY_PAUSE_MS} ms after ${name} was shown selected -> ${dialog.value === 'refused'
        ? '"✗ start: a loop already runs here" (the previous, running row\'s answer)'
        : `the dialog "${view.screen().find((l) => l.includes('Start a loop on'))?.replace(/[│\s]+/g, ' ').trim()}"`}`);
      if (attempt >= 5) throw new Error(`"s" on ${name} did not open its start dialog after ${attempt} tries`);
      if (dialog.value === 'wrong dialog') {
        view.write('\x1b');
        await view.waitFor(() => (/Start a loop on/.test(view.screenText()) ? undefined : true), 5000, 'the wrong dialog to close');
      }
      await sleep(200);
      await select(view, ws, name);
    }
    await view.waitFor(() => (new RegExp(`max iterations\\s+${MAX_ITERATIONS}\\b`).test(view.screenText()) ? true : undefined), 5000,
      `the start dialog offering ${MAX_ITERATIONS} iterations`);
    for (let attempt = 1; ; attempt++) {
      await sleep(KEY_PAUSE_MS);
      view.write('\r');
      const started = await view.waitFor(() => {
        if (/▶ running/.test(view.rowLine(name) ?? '')) return 'running';
        const text = view.screenText();
        if (text.includes('Start a loop on') && /✗ (attach|start):/.test(text)) return 'table';
        return undefined;
      }, 15_000, `${name} shown running`);
      if (started.value === 'running') break;
      keyMisses.push(`Enter pressed ${KEY_PAUSE_MS} ms after the start dialog of ${name} was on screen went to the table -> ${view.screen().find((l) => /✗ (attach|start):/.test(l))?.trim()}`);
      if (attempt >= 5) throw new Error(`Enter in the start dialog of ${name} did not start it after ${attempt} tries`);
      await view.waitFor(() => (/✗ (attach|start):/.test(view.screenText()) ? undefined : true), 5000, 'the message to clear').catch(() => undefined);
    }
  }
  // Every agent's id, for the cleanup.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const rows = ws.rows().filter((r) => ws.modules.slice(0, count).includes(r.taskDir));
    if (rows.length === count && rows.every((r) => r.status === 'running' && r.agentPid !== null)) return;
    if (Date.now() > deadline) {
      throw new Error(`after starting ${count} loops by keys the database shows ${rows.map((r) => `${r.status}/${r.agentPid ?? 'no agent'}`).join(', ') || 'no rows'}`);
    }
    await sleep(50);
  }
}

interface Latency {
  screen: number[];
  database: number[];
  lost: number;
  firstLoss?: string;
}

/**
 * `samples` signals written by the bench, round-robin over the first `loops` modules, a
 * random 150-400 ms pause before each (so the writes do not lock to the 1 s clock tick);
 * for each, the time from before the write to the first look at the screen whose row
 * shows the new iteration and step, and to the database row showing it.
 */
async function signalToScreen(view: View, ws: DeckWorkspace, loops: number, samples: number, tag: number): Promise<Latency> {
  const next = new Map<string, number>();
  for (const r of ws.rows()) next.set(r.taskDir, r.iteration + 1);
  const out: Latency = { screen: [], database: [], lost: 0 };
  for (let k = 0; k < samples; k++) {
    const i = k % loops;
    const name = ws.names[i]!;
    const dir = ws.modules[i]!;
    const iteration = next.get(dir) ?? 1;
    next.set(dir, iteration + 1);
    const result = `(step-${tag + k})`;
    const expectStep = `exec ${result} -> check`;
    const expectIter = new RegExp(`\\s${iteration}/${MAX_ITERATIONS}\\s`);
    await sleep(150 + Math.random() * 250);
    const writtenAt = ws.writeSignal(dir, { step: 'exec', result, next: 'check', checkpoint: 'mid-exec', iteration });
    let dbAt: number | undefined;
    const dbPoll = setInterval(() => {
      if (dbAt !== undefined) return;
      const row = ws.rows().find((r) => r.taskDir === dir);
      if (row && row.iteration >= iteration) dbAt = performance.now();
    }, 2);
    try {
      const seen = await view.waitFor(() => {
        const line = view.rowLine(name);
        return line && line.includes(expectStep) && expectIter.test(line) ? line : undefined;
      }, SAMPLE_TIMEOUT_MS, `${name} to show iteration ${iteration} and "${expectStep}"`);
      out.screen.push(seen.at - writtenAt);
      // The database poll runs every 2 ms: give it a last look if the screen won.
      if (dbAt === undefined) {
        const row = ws.rows().find((r) => r.taskDir === dir);
        if (row && row.iteration >= iteration) dbAt = performance.now();
      }
      if (dbAt !== undefined) out.database.push(dbAt - writtenAt);
    } catch (err) {
      if (view.hasExited) throw err;
      out.lost++;
      out.firstLoss ??= err instanceof Error ? err.message : String(err);
      out.screen.push(SAMPLE_TIMEOUT_MS);
    } finally {
      clearInterval(dbPoll);
    }
  }
  return out;
}

interface Window {
  seconds: number;
  cpuShare: number;
  bytes: number;
  chunks: number;
  frames: number;
  rssKiB: number;
  hwmKiB: number;
  peakRssKiB: number;
}

/** The dashboard process's own CPU, the bytes it wrote and its memory, over `seconds`. */
async function measureWindow(t: DashboardTerm, seconds: number): Promise<Window> {
  const tick = clockTicksPerSecond();
  const c0 = cpuTicks(t.pid);
  const b0 = t.bytes;
  const k0 = t.chunks;
  const f0 = t.frames;
  const t0 = performance.now();
  let peak = 0;
  const end = t0 + seconds * 1000;
  while (performance.now() < end) {
    await sleep(Math.min(1000, end - performance.now()));
    if (t.hasExited) throw new Error(`the dashboard ended (${t.exitDescription}) during the measurement`);
    peak = Math.max(peak, memoryKiB(t.pid).rss);
  }
  const c1 = cpuTicks(t.pid);
  const t1 = performance.now();
  const mem = memoryKiB(t.pid);
  const secs = (t1 - t0) / 1000;
  return {
    seconds: secs, cpuShare: (c1 - c0) / tick / secs, bytes: t.bytes - b0, chunks: t.chunks - k0, frames: t.frames - f0,
    rssKiB: mem.rss, hwmKiB: mem.hwm, peakRssKiB: Math.max(peak, mem.rss),
  };
}

// ---- the table ----

const f1 = (v: number): string => v.toFixed(1);



/** The checkout measured: commit and whether files differ from it (the code moves while people work). */
function checkout(): string {
  const cwd = fileURLToPath(new URL('../../../', import.meta.url));
  const git = (args: string[]): string | undefined => {
    const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : undefined;
  };
  const head = git(['rev-parse', '--short', 'HEAD']);
  if (!head) return 'checkout: not a git work tree';
  const changed = git(['status', '--porcelain', '--untracked-files=no'])?.split('\n').filter(Boolean).length ?? 0;
  return `checkout ${head}${changed > 0 ? ` + ${changed} changed file(s)` : ''}`;
}

async function main(): Promise<number> {
  const loadSeconds = envNumber('BENCH_DASHBOARD_SECONDS', 60, 1);
  const idleSeconds = envNumber('BENCH_DASHBOARD_IDLE_SECONDS', 30, 1);
  const samples = Math.round(envNumber('BENCH_DASHBOARD_SAMPLES', 40, 5));
  const launches = Math.round(envNumber('BENCH_DASHBOARD_LAUNCHES', 5, 1));
  const latencyLoops = Math.min(MODULES, Math.round(envNumber('BENCH_DASHBOARD_LOOPS', 8, 1)));
  const settleMs = envNumber('BENCH_DASHBOARD_SETTLE_SECONDS', 3, 0) * 1000;
  const tmuxSamples = Math.round(envNumber('BENCH_DASHBOARD_TMUX_SAMPLES', 12, 1));
  const tmux = process.env.BENCH_DASHBOARD_TMUX === '0' ? { ok: false as const, why: 'BENCH_DASHBOARD_TMUX=0' } : tmuxUsable();
  const quits: QuitReport[] = [];
  const limits = ['--max-iterations', String(MAX_ITERATIONS), '--timeout', '60'];

  // ---- A: a quiet agent; first frames, idle bytes, signal-to-screen latency ----
  const a = new DeckWorkspace(MODULES, 'quiet');
  liveSpaces.add(a);
  // The quiet agents never change their screen: keep the heartbeat from calling that a stall.
  const quietFlags = [...limits, '--stall-threshold', '100000', '--step-timeout', '600'];
  progress(`[${elapsed()}] first frame: ${launches} launches over ${MODULES} modules (${COLS}x${ROWS} pty, TERM=xterm-256color)`);
  const frames: number[] = [];
  const firstBytes: number[] = [];
  let t: DashboardTerm | undefined;
  for (let i = 0; i < launches; i++) {
    t = launch(a, quietFlags);
    frames.push(await firstFrame(t));
    firstBytes.push((t.firstByteAt ?? NaN) - t.spawnedAt);
    if (i < launches - 1) {
      await t.settle(200, 3000);
      quits.push(await quit(t, a));
      t.dispose();
      liveTerms.delete(t);
    }
  }
  const dash = t!;
  progress(`[${elapsed()}] first frames (ms): ${frames.map((v) => v.toFixed(0)).join(', ')}`);

  progress(`[${elapsed()}] bytes written when idle: ${settleMs / 1000} s settle, then ${idleSeconds} s, no loop running`);
  await sleep(settleMs);
  const idle = await measureWindow(dash, idleSeconds);
  const idleScreenOk = dash.screen().some((l) => HEADER.test(l)) && a.names.slice(0, 10).every((n) => dash.rowLine(n) !== undefined);

  progress(`[${elapsed()}] starting ${latencyLoops} quiet loops with the keys (s, Enter, j)`);
  await startByKeys(dash, a, latencyLoops);
  await sleep(1000);
  progress(`[${elapsed()}] signal-to-screen latency: ${samples} samples over ${latencyLoops} loops`);
  await signalToScreen(dash, a, latencyLoops, Math.min(latencyLoops, 8), 1); // warm-up, not counted
  const latency = await signalToScreen(dash, a, latencyLoops, samples, 100);
  const latencyRestarts = a.rows().filter((r) => r.restarts > 0 || r.status !== 'running');
  quits.push(await quit(dash, a));
  dash.dispose();
  liveTerms.delete(dash);

  // ---- the tmux cross-check: the same loops, resumed by the next launch ----
  let tmuxLatency: Latency | undefined;
  let tmuxNote = tmux.ok ? '' : `skipped: ${tmux.why}`;
  if (tmux.ok) {
    progress(`[${elapsed()}] cross-check: the dashboard in tmux (${tmux.version}), capture-pane, ${tmuxSamples} samples`);
    let x: TmuxDashboard | undefined;
    try {
      const view = new TmuxDashboard(process.execPath, a.dashboardArgs(quietFlags), { cwd: a.dir, env: { ...a.env(), TERM: 'xterm-256color' }, confDir: a.dir });
      x = view;
      liveTmux.add(view);
      await view.waitFor(() => (view.screen().some((l) => HEADER.test(l)) ? true : undefined), 20_000, 'the table header in tmux');
      const loops = Math.min(latencyLoops, 4);
      await startByKeys(view, a, loops); // loops suspended by the quit are resumed at launch; the others started
      await sleep(1000);
      tmuxLatency = await signalToScreen(view, a, loops, tmuxSamples, 500);
      quits.push(await quit(view, a));
    } catch (err) {
      tmuxNote = `failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
      progress(`tmux cross-check ${tmuxNote}`);
      try {
        a.rows();
      } catch { /* no database */ }
      a.killAgents();
    } finally {
      if (x) {
        x.kill(); // the dashboard if still there, the private server and its socket file
        liveTmux.delete(x);
      }
    }
  }
  a.remove();
  liveSpaces.delete(a);

  // ---- B: 20 simulated loops; CPU, memory, bytes. The target at a realistic pace (an
  // agent's step takes minutes; 30 s is already brisk), then a stress pace for information.
  const paced: Paced[] = [];
  // The last run: the realistic pace again, each agent's scrollback filled at once, which is
  // where the memory of a dashboard that has run for hours settles.
  const runs = [{ step: SIM_STEP_SECONDS, flood: 0 }, { step: STRESS_STEP_SECONDS, flood: 0 }, { step: SIM_STEP_SECONDS, flood: FLOOD_LINES }];
  for (const { step, flood } of runs) {
    const b = new DeckWorkspace(MODULES, 'sim', step, flood);
    liveSpaces.add(b);
    progress(`[${elapsed()}] ${MODULES} simulated loops (${step} s steps${flood ? `, ${flood} lines printed first` : ''}): starting them with the keys`);
    const busy = launch(b, limits);
    await firstFrame(busy);
    await startByKeys(busy, b, MODULES);
    if (flood) progress(`[${elapsed()}] letting the burst of ${MODULES * flood} lines settle for ${FLOOD_SETTLE_SECONDS} s`);
    await sleep(flood ? FLOOD_SETTLE_SECONDS * 1000 : Math.max(settleMs, 3000));
    const i0 = b.rows().reduce((n, r) => n + r.iteration, 0);
    progress(`[${elapsed()}] CPU, memory and bytes of the dashboard over ${loadSeconds} s`);
    const load = await measureWindow(busy, loadSeconds);
    const loadRows = b.rows();
    paced.push({
      step, flood, load,
      signals: loadRows.reduce((n, r) => n + r.iteration, 0) - i0,
      stillRunning: loadRows.filter((r) => r.status === 'running').length,
      shownRunning: busy.screen().filter((l) => /^[› ] bench-\d\d\s.*▶ running/.test(l)).length,
    });
    quits.push(await quit(busy, b));
    busy.dispose();
    liveTerms.delete(busy);
    b.remove();
    liveSpaces.delete(b);
  }

  // ---- report ----
  let missed = false;
  const warnings: string[] = [];
  const rows: string[][] = [['Dashboard', 'value', 'target', 'result']];
  const check = (name: string, value: string, target: string, ok: boolean | undefined): void => {
    if (ok === false) missed = true;
    rows.push([name, value, target, ok === undefined ? '' : verdict(ok)]);
  };

  const ff = summarize(frames);
  check(`First frame (spawn -> table header), ${MODULES} modules, median of ${frames.length}`, `${f1(ff.median)} ms`, `< ${FIRST_FRAME_MS} ms`, ff.median < FIRST_FRAME_MS);
  check('  each launch, in order', frames.map((v) => v.toFixed(0)).join(', ') + ' ms', '(info)', undefined);
  check('  first byte from the pty, median', `${f1(summarize(firstBytes.filter(Number.isFinite)).median)} ms`, '(info)', undefined);

  const ls = summarize(latency.screen);
  check(`Signal -> screen, ${latencyLoops} loops, ${latency.screen.length} samples: median`, `${f1(ls.median)} ms`, `< ${LATENCY_MEDIAN_MS} ms`, ls.median < LATENCY_MEDIAN_MS);
  check('  p95', `${f1(ls.p95)} ms`, `< ${LATENCY_P95_MS} ms`, ls.p95 < LATENCY_P95_MS);
  check('  max; samples > 100 ms; never shown (5 s)', `${f1(ls.max)} ms; ${ls.slow}; ${latency.lost}`, 'none lost', latency.lost === 0);
  if (latency.database.length > 0) {
    const ld = summarize(latency.database);
    check('  of which signal -> database row: median / p95', `${f1(ld.median)} / ${f1(ld.p95)} ms`, '(info)', undefined);
  }
  if (tmuxLatency) {
    const lt = summarize(tmuxLatency.screen);
    check(`  cross-check in tmux, capture-pane, ${tmuxLatency.screen.length} samples: median / p95`,
      `${f1(lt.median)} / ${f1(lt.p95)} ms${tmuxLatency.lost ? `, ${tmuxLatency.lost} never shown` : ''}`, '(info)', undefined);
  } else {
    check('  cross-check in tmux', tmuxNote, '(info)', undefined);
  }

  for (const { step, flood, load, signals, stillRunning, shownRunning } of paced) {
    // CPU is judged at the realistic pace; memory there too, and once every scrollback is full.
    const target = step === SIM_STEP_SECONDS;
    const cpuPct = load.cpuShare * 100;
    const judge = (ok: boolean): boolean | undefined => (target ? ok : undefined);
    check(`CPU, ${MODULES} simulated loops of ${step} s steps${flood ? `, each having printed ${flood} lines (scrollback full)` : ''}, ${load.seconds.toFixed(0)} s (dashboard process only)`,
      `${cpuPct.toFixed(2)} % of one core = ${(load.cpuShare * 60).toFixed(2)} s per minute`, target ? (flood ? '(info)' : `< ${CPU_PERCENT} %`) : '(info: stress)',
      flood ? undefined : judge(cpuPct < CPU_PERCENT));
    check('  resident memory at the end (VmRSS)', `${f1(load.rssKiB / 1024)} MB`, target ? `< ${RSS_MB} MB` : '(info)', judge(load.rssKiB / 1024 < RSS_MB));
    check(`  peak resident memory (VmHWM, whole life${flood ? ', the burst included' : ''})`, `${f1(load.hwmKiB / 1024)} MB`, target ? `< ${RSS_MB} MB` : '(info)',
      judge(load.hwmKiB / 1024 < RSS_MB));
    check('  signals during the window; loops running at its end', `${signals} (${(signals / load.seconds).toFixed(1)}/s); ${stillRunning}/${MODULES} (${shownRunning} rows shown running)`, '(info)', undefined);
    check('  bytes to the terminal; frames drawn', `${f1(load.bytes / load.seconds)} B/s (${load.bytes} B in ${load.chunks} writes); ${load.frames > 0 ? `${(load.frames / load.seconds).toFixed(2)} frames/s` : 'frames not marked (Ink leaves them unmarked when CI is set)'}`, '(info)', undefined);
    if (stillRunning < MODULES) warnings.push(`only ${stillRunning} of ${MODULES} simulated loops (${step} s steps) were still running at the end of the window.`);
  }

  const idleRate = idle.bytes / idle.seconds;
  check(`Bytes to the terminal, idle, ${idle.seconds.toFixed(0)} s, no loop`, `${f1(idleRate)} B/s (${idle.bytes} B in ${idle.chunks} writes)`,
    `< ${IDLE_BYTES_PER_SECOND} B/s`, idleRate < IDLE_BYTES_PER_SECOND);
  check('  CPU of the idle dashboard', `${(idle.cpuShare * 100).toFixed(2)} % of one core`, '(info)', undefined);

  const agents = quits.reduce((n, q) => n + q.agents, 0);
  const leftovers = quits.reduce((n, q) => n + q.leftoverAgents, 0);
  const hows = [...new Set(quits.map((q) => q.how))].join('; ');
  const slowest = Math.max(...quits.map((q) => q.seconds));

  console.log(`autodeck dashboard benchmark: ${machine({ clockTicks: true })}`);
  console.log(`${checkout()}; the dashboard's NODE_ENV: ${process.env.NODE_ENV ?? '(unset)'}`);
  console.log('');
  console.log(table(rows, ['l', 'r', 'l', 'l']));
  console.log('');
  console.log(`The dashboard runs in a ${COLS}x${ROWS} pty (TERM=xterm-256color, colour on), its output parsed by @xterm/headless; ` +
    'a figure is taken at the first parsed chunk after which the screen shows the change. Latency runs from before the ' +
    'write of .auto-signal.tmp (then renamed) to that moment; samples are 150-400 ms apart, round-robin over loops of a ' +
    `quiet agent started with s/Enter; the first ${Math.min(latencyLoops, 8)} are a warm-up, not counted. ` +
    `The simulated loops take ${SIM_STEP_SECONDS} s a step (and ${STRESS_STEP_SECONDS} s in the stress run) and never finish; in the last run each agent first prints ` +
    `${FLOOD_LINES} lines, filling its 1,000-line scrollback as hours of real output would, and the window opens ${FLOOD_SETTLE_SECONDS} s later. ` +
    'CPU and memory are the dashboard\'s process (supervisor in it), not the agents. MB = 1024 KiB; p95 by nearest rank.');
  if (!idleScreenOk) console.log('WARNING: at the end of the idle window the screen did not show the table as expected.');
  if (latencyRestarts.length > 0) console.log(`WARNING: during the latency run ${latencyRestarts.length} quiet loop(s) restarted or left running.`);
  for (const m of keyMisses) console.log(`KEY MISSED: ${m}`);
  if (latency.firstLoss) console.log(`First latency sample never shown: ${latency.firstLoss.split('\n')[0]}`);
  for (const w of warnings) console.log(`WARNING: ${w}`);
  console.log(`Cleanup: ${quits.length} dashboards quit by ${hows}, slowest in ${slowest.toFixed(1)} s; ${agents} agents, ` +
    `${leftovers === 0 ? 'none outlived its dashboard' : `${leftovers} outlived their dashboard and were killed`}; temp folders removed. ` +
    `Total ${elapsed()}.`);
  if (leftovers > 0) return 2;
  return missed ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    process.stderr.write(`bench: interrupted; killing ${liveTerms.size + liveTmux.size} dashboard(s) and their agents\n`);
    killEverything();
    process.exit(130);
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
    const agents = killEverything();
    if (agents > 0) process.stderr.write(`bench: killed ${agents} agent(s) left running\n`);
    process.exitCode = 2;
  },
).finally(() => {
  // node-pty keeps handles open; nothing else is left to wait for.
  setTimeout(() => process.exit(), 200).unref();
});
