import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/cli/parse.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { BIN, runCli } from '../helpers/cli.js';
import { Store } from '../../src/store/index.js';
import type { NewRun, Outcome } from '../../src/store/runs.js';
import { resolveSettings } from '../../src/config/settings.js';
import { history } from '../../src/commands/history.js';
import { CliError, type CommandContext } from '../../src/commands/context.js';
import { scoreOf } from '../../src/history/score.js';
import { suggestLimits } from '../../src/history/suggest.js';

const MIN = 60_000;

let ws: Workspace;
let alpha: string;
let beta: string;
afterEach(() => ws?.cleanup());

/** Fills the workspace database through RunStore: alpha and beta runs interleaved, oldest first. */
function fill(): NewRun[] {
  alpha = ws.module('alpha');
  beta = ws.module('beta');
  let t = Date.parse('2026-11-20T08:00:00.000Z');
  const make = (taskDir: string, outcome: Outcome, iterations: number, activeMinutes: number, o: Partial<NewRun> = {}): NewRun => {
    const startedAt = new Date(t).toISOString();
    t += activeMinutes * MIN + 5 * MIN;
    return {
      session: `auto-${taskDir.split('/').pop()}-${t}`, taskDir, taskName: taskDir.split('/').pop()!, startedAt,
      endedAt: new Date(t).toISOString(), iterations, maxIterations: 20, timeoutMinutes: 30, outcome, stopReason: '',
      forced: false, recoveries: 0, restarts: 0, quotaWaitMs: 0, activeMs: activeMinutes * MIN, ...o,
    };
  };
  const runs = [
    make(alpha, 'complete', 4, 6, { recoveries: 1 }),
    make(beta, 'blocked', 2, 3),
    make(alpha, 'max_iterations', 20, 25, { restarts: 2, quotaWaitMs: 12 * MIN }),
    make(alpha, 'complete', 9, 12, { tokens: 1_250_000, costUsd: null }),
    make(beta, 'killed', 5, 4, { forced: true, stopReason: 'user_stop' }),
    make(alpha, 'complete', 7, 8, { tokens: 24_800, costUsd: 0.0692 }),
  ];
  const store = Store.open(ws.db);
  try {
    for (const r of runs) store.runs.insert(r);
  } finally {
    store.close();
  }
  return runs;
}

/** Calls the command in-process with a real settings object and captured streams. */
function call(args: string[], flags: Record<string, unknown> = {}, cwd = ws.dir): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void) => new Writable({ write(chunk: Buffer | string, _enc, cb) { add(chunk.toString()); cb(); } });
  const { value: settings, errors } = resolveSettings({ flags: { db: ws.db }, env: ws.env, cwd });
  expect(errors).toEqual([]);
  const ctx: CommandContext = {
    args, flags, settings, cwd,
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
  };
  const code = history(ctx);
  return { code, out, err };
}

interface HistoryJson {
  runs: Record<string, unknown>[];
  suggestion: { maxIterations: number; timeoutMinutes: number; basis: string; fromRuns: number } | null;
}

const RUN_FIELDS = ['id', 'taskDir', 'taskName', 'session', 'outcome', 'forced', 'iterations', 'maxIterations', 'timeoutMinutes',
  'startedAt', 'endedAt', 'stopReason', 'activeMs', 'recoveries', 'restarts', 'quotaWaitMs', 'score'];

describe('autodeck history (in-process, real SQLite)', () => {
  beforeEach(() => {
    ws = makeWorkspace();
  });

  it('says so when there are no runs, and exits 0', () => {
    expect(call([])).toEqual({ code: 0, out: 'No finished runs.\n', err: '' });
    expect(JSON.parse(call([], { json: true }).out)).toEqual({ runs: [], suggestion: null });
  });

  it('lists every module\'s runs newest first with their fields and score; no suggestion without TASK_DIR', () => {
    const inserted = fill();
    const r = call([], { json: true });
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as HistoryJson;
    expect(json.suggestion).toBeNull();
    expect(json.runs.map((x) => x.outcome)).toEqual(['complete', 'killed', 'complete', 'max_iterations', 'blocked', 'complete']);
    const ids = json.runs.map((x) => x.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    for (const f of RUN_FIELDS) expect(json.runs[0], f).toHaveProperty(f);
    const newest = inserted[5]!;
    expect(json.runs[0]).toMatchObject({ taskDir: alpha, taskName: 'alpha', iterations: 7, activeMs: 8 * MIN, maxIterations: 20, timeoutMinutes: 30 });
    // spend: measured, measured without a price, not measured at all (never 0)
    expect(json.runs[0]).toMatchObject({ tokens: 24_800, costUsd: 0.0692, spend: '' });
    expect(json.runs[2]).toMatchObject({ tokens: 1_250_000, costUsd: null, spend: 'no price' });
    expect(json.runs[3]).toMatchObject({ tokens: null, costUsd: null, spend: 'no transcript' });
    expect(json.runs[0]!.score).toBeCloseTo(scoreOf(newest), 3);
    expect(json.runs[1]).toMatchObject({ outcome: 'killed', forced: true, score: 0 });
    expect(json.runs[3]).toMatchObject({ outcome: 'max_iterations', restarts: 2, quotaWaitMs: 12 * MIN, score: 0 });
  });

  it('prints an aligned table for people', () => {
    fill();
    const { code, out } = call([]);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(7); // header + 6 runs, no suggestion
    const header = lines[0]!;
    expect(header).toMatch(/^STARTED +ENDED +MODULE +OUTCOME +SCORE +ITER +ACTIVE +RECOV +RESTARTS +QUOTA WAIT +SPENT$/);
    const at = (name: string): number => header.indexOf(name);
    const rows = lines.slice(1);
    expect(rows.map((l) => l.slice(at('MODULE')).split(/ {2,}/)[0])).toEqual(['alpha', 'beta', 'alpha', 'alpha', 'beta', 'alpha']);
    expect(rows.map((l) => l.slice(at('OUTCOME')).split(/ {2,}/)[0])).toEqual(
      ['complete', 'killed (forced)', 'complete', 'max_iterations', 'blocked', 'complete']);
    // right-aligned numbers end under the end of their header
    const scoreEnd = at('SCORE') + 'SCORE'.length;
    for (const l of rows) expect(l.slice(0, scoreEnd)).toMatch(/ (0|1)\.\d\d$/);
    expect(rows[1]!.slice(0, scoreEnd)).toMatch(/ 0\.00$/);
    const iterEnd = at('ITER') + 'ITER'.length;
    expect(rows.map((l) => l.slice(0, iterEnd).trim().split(/ +/).pop())).toEqual(['7/20', '5/20', '9/20', '20/20', '2/20', '4/20']);
    expect(rows[3]).toMatch(/25m\/30m +0 +2 +12m +no transcript$/);
    expect(rows[0]).toMatch(/8m\/30m +0 +0 +- +24\.8k \$0\.07$/);
    expect(rows[2]).toMatch(/ +1\.3M \(no price\)$/);
    expect(rows[5]).toMatch(/6m\/30m +1 +0 +- +no transcript$/);
    // started: a local date and time; ended on the same day: the time only
    expect(rows[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d {2}\d\d:\d\d {2,}alpha/);
  });

  it('with TASK_DIR shows that module only and suggests limits from its runs', () => {
    fill();
    const json = JSON.parse(call([alpha], { json: true }).out) as HistoryJson;
    expect(json.runs).toHaveLength(4);
    expect(json.runs.every((x) => x.taskDir === alpha)).toBe(true);
    // 3 completed alpha runs (4, 9, 7 iterations; 6, 12, 8 min) and a max_iterations hit at 20
    expect(json.suggestion).toEqual({
      maxIterations: 30, timeoutMinutes: 20,
      basis: 'p90 of 3 completed runs + 50%; above the 20-iteration limit a run hit', fromRuns: 4,
    });
    const store = Store.open(ws.db);
    try {
      expect(json.suggestion).toEqual(suggestLimits(store.runs.list(100, alpha), { maxIterations: 20, timeoutMinutes: 30 }));
    } finally {
      store.close();
    }

    const human = call([alpha]).out.trimEnd().split('\n');
    expect(human[0]).toBe(`alpha (${alpha}): 4 finished runs`);
    expect(human[1]).toMatch(/^STARTED +ENDED +OUTCOME +SCORE/); // no module column for one module
    expect(human[1]).not.toMatch(/MODULE/);
    expect(human.at(-2)).toBe('');
    expect(human.at(-1)).toBe('suggested next: --max-iterations 30 --timeout 20 (p90 of 3 completed runs + 50%; above the 20-iteration limit a run hit)');
  });

  it('takes TASK_DIR relative to the working folder; a module without runs gets the defaults', () => {
    fill();
    const rel = call(['AiTasks/beta'], { json: true }, ws.dir);
    const json = JSON.parse(rel.out) as HistoryJson;
    expect(json.runs.map((x) => x.outcome)).toEqual(['killed', 'blocked']);
    expect(json.suggestion).toEqual({ maxIterations: 20, timeoutMinutes: 30, basis: 'defaults: no completed runs', fromRuns: 0 });
    const gamma = ws.module('gamma');
    expect(call([gamma]).out).toBe(`No finished runs of ${gamma} yet.\n\nsuggested next: --max-iterations 20 --timeout 30 (defaults: no completed runs)\n`);
  });

  it('honours --last N and says when there are more', () => {
    fill();
    const json = JSON.parse(call([], { json: true, last: '2' }).out) as HistoryJson;
    expect(json.runs.map((x) => x.outcome)).toEqual(['complete', 'killed']);
    const human = call([alpha], { last: '3' }).out.trimEnd().split('\n');
    expect(human[0]).toBe(`alpha (${alpha}): 4 finished runs`);
    expect(human.filter((l) => /^\d{4}-/.test(l))).toHaveLength(3);
    expect(human).toContain('(the last 3 of 4; --last N shows more)');
    // the suggestion still reads the module's whole window, not just the lines shown
    expect(human.at(-1)).toMatch(/--max-iterations 30 --timeout 20/);
    expect(call([], { last: '6' }).out).not.toMatch(/--last N shows more/);
    for (const bad of ['0', '-1', '1.5', 'x']) {
      expect(() => call([], { last: bad }), bad).toThrow(CliError);
      expect(() => call([], { last: bad }), bad).toThrow(/--last: .* is not a whole number >= 1/);
    }
    // two folders: the command table refuses them before the command runs
    expect(() => parseCommandLine(['history', alpha, beta])).toThrow(/history takes one TASK_DIR \(got 2/);
  });

  it('never lets a module name drive the terminal', () => {
    alpha = ws.module('alpha');
    const store = Store.open(ws.db);
    store.runs.insert({
      session: 's', taskDir: '/gone/evil\u001b]0;pwned\u0007', taskName: 'evil\u001b]0;pwned\u0007', startedAt: '2026-11-20T08:00:00.000Z',
      endedAt: '2026-11-20T08:10:00.000Z', iterations: 1, maxIterations: 20, timeoutMinutes: 30, outcome: 'complete', stopReason: '',
      forced: false, recoveries: 0, restarts: 0, quotaWaitMs: 0, activeMs: MIN,
    });
    store.close();
    const out = call([]).out + call(['/gone/evil\u001b]0;pwned\u0007']).out;
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(out).toContain('evil\\x1b]0;pwned\\x07');
  });
});

/**
 * The built CLI. `history` is wired into src/cli.ts by the lead; until it is, this part is
 * skipped (the probe below asks the built CLI itself, so it runs as soon as it is wired).
 */
const probeDir = mkdtempSync(join(tmpdir(), 'autodeck-history-probe-'));
const probe = spawnSync(process.execPath, [BIN, 'history', '--json', '--db', join(probeDir, 'state.db')], { encoding: 'utf8' });
rmSync(probeDir, { recursive: true, force: true });
const wired = probe.status === 0;

describe.skipIf(!wired)('autodeck history (the built CLI)', () => {
  beforeEach(() => {
    ws = makeWorkspace();
  });

  it('prints the same runs and suggestion as the command itself', async () => {
    fill();
    const env = { TZ: 'UTC' };
    const all = await runCli(ws, ['history', '--json', '--db', ws.db], { env });
    expect(all.code).toBe(0);
    const json = JSON.parse(all.stdout) as HistoryJson;
    expect(json.suggestion).toBeNull();
    expect(json.runs).toHaveLength(6);
    expect(json.runs[0]).toMatchObject({ taskDir: alpha, outcome: 'complete' });

    const one = await runCli(ws, ['history', alpha, '--db', ws.db], { env });
    expect(one.code).toBe(0);
    const lines = one.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`alpha (${alpha}): 4 finished runs`);
    expect(lines[2]).toMatch(/^2026-11-20 \d\d:\d\d {2}\d\d:\d\d {2}complete/);
    expect(lines.at(-1)).toMatch(/^suggested next: --max-iterations 30 --timeout 20 \(p90 of 3 completed runs/);

    const oneJson = JSON.parse((await runCli(ws, ['history', alpha, '--json', '--last', '1', '--db', ws.db], { env })).stdout) as HistoryJson;
    expect(oneJson.runs).toHaveLength(1);
    expect(oneJson.suggestion).toMatchObject({ maxIterations: 30, timeoutMinutes: 20 });

    const empty = await runCli(ws, ['history', '--db', join(ws.dir, 'empty.db')], { env });
    expect(empty).toMatchObject({ code: 0, stdout: 'No finished runs.\n' });
    expect((await runCli(ws, ['history', '--last', '0', '--db', ws.db], { env })).code).toBe(2);
  });
});
