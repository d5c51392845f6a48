/**
 * How long a short-lived autodeck command takes from spawn to exit, as a script,
 * a status line or Claude Code's Stop hook sees it. Wall time of
 *
 * - `node -e 0` and `autodeck --version`: the floors (node itself; node plus loading the CLI),
 *   so the figures below can be read against them;
 * - `autodeck status --json` over a database with ~50 finished runs and a few loops;
 * - `autodeck hook stop` fed a Stop-hook event on stdin, with AUTODECK_SESSION,
 *   AUTODECK_TASK_DIR and AUTODECK_DB naming a loop in hook mode whose checklist gains one
 *   completed task before each sample (so every sample takes the full "block" path). Where
 *   the build has no `hook` command yet, the row says "not available" instead of failing.
 *
 * Each command runs a few times unmeasured first (file cache), then `samples` times.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Store } from '../../src/store/index.js';
import type { Outcome } from '../../src/store/runs.js';
import { columns } from '../../src/format/table.js';
import { summarize, type Summary } from './stats.js';
import { machine, verdict } from './report.js';

export const BIN = fileURLToPath(new URL('../../../bin/autodeck.js', import.meta.url));
/** Each command under this, median and p95. */
export const CLI_TARGET_MS = 150;
/** The tmux status-right segment (run every few seconds) under this. */
export const TMUX_TARGET_MS = 100;
const RUNS = 50;
const LOOPS = 3;
const SPAWN_TIMEOUT_MS = 10_000;

export interface CliLatencyRow {
  name: string;
  /** Only targeted rows can MISS; the floors are for reading the others. */
  targeted: boolean;
  /** This row's own target (ms), when not CLI_TARGET_MS. */
  targetMs?: number;
  state: 'measured' | 'not available' | 'error';
  summary?: Summary;
  minMs?: number;
  ok?: boolean;
  note: string;
}

export interface CliLatencyReport {
  machine: string;
  samples: number;
  rows: CliLatencyRow[];
  /** A targeted row missed its target. */
  missed: boolean;
  /** A command failed (not "not available"). */
  failed: boolean;
  /** The report as a table, ready to print. */
  text: string;
}

interface Shot {
  ms: number;
  status: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

function shoot(args: string[], opts: { env: NodeJS.ProcessEnv; cwd: string; input?: string }, bin: string[] = [BIN]): Shot {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [...bin, ...args], {
    cwd: opts.cwd, env: opts.env, input: opts.input ?? '', encoding: 'utf8', timeout: SPAWN_TIMEOUT_MS,
  });
  const ms = performance.now() - t0;
  return { ms, status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', ...(r.error ? { error: r.error } : {}) };
}

const firstLine = (text: string): string => text.trim().split('\n')[0] ?? '';
const failure = (s: Shot): string => (s.error ? s.error.message : `exit ${s.status}: ${firstLine(s.stderr) || firstLine(s.stdout) || 'no output'}`);


/** A throwaway project: git top level, AiTasks root, HOME, state, a database with runs and loops. */
export function workspace(): { dir: string; db: string; env: NodeJS.ProcessEnv; hookDir: string; transcript: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'autodeck-bench-cli-')));
  mkdirSync(join(dir, '.git'));
  const root = join(dir, 'AiTasks');
  mkdirSync(join(dir, 'home'));
  const env: NodeJS.ProcessEnv = {
    ...process.env, HOME: join(dir, 'home'), XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'config'), NO_COLOR: '1',
  };
  for (const k of Object.keys(env)) if (k.startsWith('AUTODECK_')) delete env[k];
  const db = join(dir, 'state.db');
  const moduleDir = (name: string): string => {
    const m = join(root, name);
    mkdirSync(m, { recursive: true });
    writeFileSync(join(m, '.index.json'), JSON.stringify({ status: 'executing', title: name }));
    writeFileSync(join(m, '.target.md'), `# Target\n\nDo ${name}.\n`);
    return realpathSync(m);
  };

  const store = Store.open(db);
  try {
    const outcomes: Outcome[] = ['complete', 'complete', 'complete', 'max_iterations', 'blocked', 'timeout', 'user_stop', 'killed'];
    const modules = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map(moduleDir);
    let t = Date.now() - RUNS * 3_600_000;
    store.tx(() => {
      for (let i = 0; i < RUNS; i++) {
        const taskDir = modules[i % modules.length]!;
        const activeMs = (5 + (i % 7) * 4) * 60_000;
        const startedAt = new Date(t).toISOString();
        t += activeMs + 120_000;
        const outcome = outcomes[i % outcomes.length]!;
        store.runs.insert({
          session: `auto-bench-${i}`, taskDir, taskName: taskDir.split('/').pop()!, startedAt, endedAt: new Date(t).toISOString(),
          iterations: 3 + (i % 9), maxIterations: 20, timeoutMinutes: 30, outcome, stopReason: '', forced: outcome === 'killed',
          recoveries: i % 3, restarts: i % 2, quotaWaitMs: i % 5 === 0 ? 600_000 : 0, activeMs,
        });
      }
    });
    const now = new Date().toISOString();
    const loop = (name: string, session: string, settings: Record<string, unknown>) => store.loops.insert({
      session, taskDir: moduleDir(name), taskName: name, root, maxIterations: 1000, timeoutMinutes: 1440, startedAt: now,
      backend: 'pty', ownerPid: process.pid, ownerHost: hostname(), ownerHeartbeatAt: now, agentArgv: ['claude', name], settings,
      status: 'running',
    });
    for (let i = 0; i < LOOPS; i++) loop(`running-${i}`, `auto-running-${i}-bench`, {});
    loop('hooked', 'auto-hooked-bench', { mode: 'hook' });
  } finally {
    store.close();
  }

  const hookDir = realpathSync(join(root, 'hooked'));
  const transcript = join(dir, 'transcript.jsonl');
  writeFileSync(transcript, [
    { type: 'user', message: { role: 'user', content: 'Work through the checklist.' } },
    { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Done with the next task.' }] } },
  ].map((l) => JSON.stringify(l)).join('\n') + '\n');
  return { dir, db, env, hookDir, transcript, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The hook module's checklist: `total` tasks, the first `done` of them completed. */
export function writeChecklist(hookDir: string, done: number, total: number): void {
  const items = Array.from({ length: total }, (_, i) => ({ id: String(i + 1), subject: `task ${i + 1}`, status: i < done ? 'completed' : 'pending' }));
  writeFileSync(join(hookDir, '.checklist.json'), JSON.stringify(items));
}

function measure(name: string, targeted: boolean, samples: number, warmup: number, run: (i: number) => Shot, note = '', targetMs = CLI_TARGET_MS): CliLatencyRow {
  for (let i = 0; i < warmup; i++) {
    const s = run(i);
    if (s.error || s.status !== 0) return { name, targeted, state: 'error', note: failure(s) };
  }
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const s = run(warmup + i);
    if (s.error || s.status !== 0) return { name, targeted, state: 'error', note: `sample ${i + 1}: ${failure(s)}` };
    ms.push(s.ms);
  }
  const summary = summarize(ms, targetMs);
  return {
    name, targeted, state: 'measured', summary, minMs: Math.min(...ms), ...(targetMs !== CLI_TARGET_MS ? { targetMs } : {}),
    ...(targeted ? { ok: summary.median < targetMs && summary.p95 < targetMs } : {}), note,
  };
}

/** Measures the rows above; never throws for a command that fails (the row says why). */
export async function cliLatency(opts: { samples?: number; warmup?: number } = {}): Promise<CliLatencyReport> {
  const samples = opts.samples ?? 20;
  const warmup = opts.warmup ?? 3;
  const ws = workspace();
  try {
    const base = { env: ws.env, cwd: ws.dir };
    const rows: CliLatencyRow[] = [];
    rows.push(measure('node -e 0 (node alone)', false, samples, warmup, () => shoot([], base, ['-e', '0'])));
    rows.push(measure('autodeck --version (node + loading the CLI)', false, samples, warmup, () => shoot(['--version'], base)));
    rows.push(measure(`autodeck status --json (${RUNS} runs, ${LOOPS + 1} loops)`, true, samples, warmup,
      () => shoot(['status', '--json', '--db', ws.db], base)));
    rows.push(measure(`autodeck status --format tmux (${LOOPS + 1} loops)`, true, samples, warmup,
      () => shoot(['status', '--format', 'tmux', '--db', ws.db], base), '', TMUX_TARGET_MS));

    // The Stop hook, as Claude Code runs it under autodeck.
    const hookEnv = { ...ws.env, AUTODECK_SESSION: 'auto-hooked-bench', AUTODECK_TASK_DIR: ws.hookDir, AUTODECK_DB: ws.db };
    const event = JSON.stringify({
      session_id: 'bench-claude-session', transcript_path: ws.transcript, cwd: ws.dir, hook_event_name: 'Stop', stop_hook_active: false,
    });
    const hookName = 'autodeck hook stop (Stop event on stdin)';
    // More tasks than samples: the checklist is never all done, so the hook never ends the loop.
    const tasks = samples + warmup + 10;
    writeChecklist(ws.hookDir, 0, tasks);
    const probe = shoot(['hook', 'stop'], { ...base, env: hookEnv, input: event });
    if (probe.status === 2 && /unknown command/.test(probe.stderr)) {
      rows.push({ name: hookName, targeted: true, state: 'not available', note: `this build has no hook command (${firstLine(probe.stderr)})` });
    } else {
      const decisions = new Map<string, number>();
      const row = measure(hookName, true, samples, warmup, (i) => {
        writeChecklist(ws.hookDir, i + 1, tasks); // one more task done: progress, so the hook blocks again
        const s = shoot(['hook', 'stop'], { ...base, env: hookEnv, input: event });
        let decision = 'allow (no output)';
        try {
          const out = JSON.parse(s.stdout) as { decision?: unknown };
          decision = out.decision === 'block' ? 'block' : `other: ${firstLine(s.stdout).slice(0, 40)}`;
        } catch {
          if (s.stdout.trim()) decision = `other: ${firstLine(s.stdout).slice(0, 40)}`;
        }
        decisions.set(decision, (decisions.get(decision) ?? 0) + 1);
        return s;
      });
      const seen = [...decisions].map(([d, n]) => `${n}x ${d}`).join(', ');
      row.note = [row.note, `answers (warm-up included): ${seen}`, decisions.has('block') ? '' : 'no block: the loop was not found or ended, so the full path was not measured']
        .filter(Boolean).join('; ');
      rows.push(row);
    }

    const missed = rows.some((r) => r.targeted && r.ok === false);
    const failed = rows.some((r) => r.state === 'error');
    const report = { machine: machine({ clockTicks: false }), samples, rows, missed, failed, text: '' };
    report.text = formatReport(report);
    return report;
  } finally {
    ws.cleanup();
  }
}

function formatReport(r: Omit<CliLatencyReport, 'text'>): string {
  const f = (v: number): string => v.toFixed(1);
  const table = [['CLI wall time, spawn to exit', 'samples', 'median ms', 'p95 ms', 'min ms', 'max ms', 'target', 'result']];
  for (const row of r.rows) {
    const target = row.targeted ? `median, p95 < ${row.targetMs ?? CLI_TARGET_MS}` : '(floor)';
    if (row.state !== 'measured' || !row.summary) {
      table.push([row.name, '-', '-', '-', '-', '-', target, row.state === 'error' ? 'ERROR' : 'NOT AVAILABLE']);
      continue;
    }
    const s = row.summary;
    table.push([row.name, String(s.count), f(s.median), f(s.p95), f(row.minMs ?? s.median), f(s.max), target,
      row.targeted ? verdict(row.ok === true) : '']);
  }
  const notes = r.rows.filter((row) => row.note).map((row) => `  ${row.name}: ${row.note}`);
  return [
    `autodeck CLI latency: ${r.machine}`,
    '',
    columns(table, ['l', 'r', 'r', 'r', 'r', 'r', 'l', 'l']).join('\n'),
    '',
    `Each command ran unmeasured a few times first, then ${r.samples} times; p95 by nearest rank. The floors show what ` +
      'node itself and loading the CLI cost on this machine; a command can only be as fast as its floor.',
    ...(notes.length ? ['Notes:', ...notes] : []),
    ...(process.env.NODE_EXTRA_CA_CERTS ? [
      `NODE_EXTRA_CA_CERTS is set (${process.env.NODE_EXTRA_CA_CERTS}): Node 20 reads that file before any JavaScript runs, in every ` +
        'command above. For the figures of a machine without it: env -u NODE_EXTRA_CA_CERTS node dist/test/bench/cli.js',
    ] : []),
  ].join('\n');
}
