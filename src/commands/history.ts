import { basename } from 'node:path';
import { Store } from '../store/index.js';
import type { RunRow } from '../store/runs.js';
import { iterationJson, runJson, type IterationJson } from '../supervisor/snapshot.js';
import { duration, printable } from '../format/event.js';
import { columns } from '../format/table.js';
import { scoreOf } from '../history/score.js';
import type { LimitSuggestion } from '../history/suggest.js';
import { suggestionFor } from '../history/forModule.js';
import { CliError, line, type CommandContext } from './context.js';
import { requireKnownTaskDir, taskDirArg } from './target.js';
import { tokensText } from '../spend/text.js';
import type { VerifyRow } from '../store/verifies.js';

/** How many runs `history` lists unless `--last N` says otherwise. */
export const HISTORY_RUNS = 20;

/** One finished run as `history --json` lists it: the `status --json` fields, the limits and the score. */
export function historyRunJson(run: RunRow): Record<string, unknown> {
  return {
    id: run.id,
    ...runJson(run),
    maxIterations: run.maxIterations,
    timeoutMinutes: run.timeoutMinutes,
    score: Math.round(scoreOf(run) * 1000) / 1000,
  };
}

/** One verify as `history --json` lists it under its run. */
export function verifyJson(v: VerifyRow): Record<string, unknown> {
  return {
    attempt: v.attempt, command: v.command, cwd: v.cwd, startedAt: v.startedAt, durationMs: v.durationMs, exitCode: v.exitCode,
    signal: v.signal || null, timedOut: v.timedOut, passed: v.passed, outputBytes: v.outputBytes, tail: v.tail,
  };
}

const ordinal = (n: number): string => `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;

/** A run's verifies and worktree, a line each: `verify: 3 runs, passed at the 3rd (4s)`, `worktree autodeck/x-1a2b3c kept: clean, 2 ahead (PATH)`. */
export function runExtrasLines(run: RunRow, verifies: readonly VerifyRow[]): string[] {
  const out: string[] = [];
  if (verifies.length > 0) {
    const last = verifies.at(-1)!;
    const how = last.passed ? `passed at the ${ordinal(verifies.length)} (${duration(last.durationMs)})`
      : `the last ${last.timedOut ? 'timed out' : `exited ${last.exitCode ?? last.signal ?? '?'}`}${last.tail ? `: ${last.tail.split('\n').at(-1)!.slice(0, 100)}` : ''}`;
    out.push(`verify: ${verifies.length} run${verifies.length === 1 ? '' : 's'}, ${how}`);
  }
  if (run.worktreePath) out.push(`worktree ${run.worktreeBranch || '(detached)'} ${run.worktreeState || 'kept'} (${run.worktreePath})`);
  return out;
}

/** The limits to suggest for a module's next loop, from its newest runs (see history/suggest.ts). */

/** The line `history TASK_DIR` ends with. */
export function suggestionLine(s: LimitSuggestion): string {
  return `suggested next: --max-iterations ${s.maxIterations} --timeout ${s.timeoutMinutes} (${s.basis})`;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Local `YYYY-MM-DD HH:MM`; only `HH:MM` when `sameDayAs` falls on the same local day. */
function when(iso: string, sameDayAs?: string): string {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return iso || '-';
  const day = `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
  const time = `${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  if (sameDayAs !== undefined) {
    const o = new Date(sameDayAs);
    if (!Number.isNaN(o.getTime()) && o.toDateString() === d.toDateString()) return time;
  }
  return `${day} ${time}`;
}

export { tokensText };

/** What a run spent: `24.8k $0.07`, `24.8k (no price)`, or `no transcript` — never a 0 not measured. */
export function spentText(tokens: number | null, costUsd: number | null): string {
  if (tokens === null) return 'no transcript';
  return costUsd === null ? `${tokensText(tokens)} (no price)` : `${tokensText(tokens)} $${costUsd.toFixed(2)}`;
}

/** Per-iteration spend on one line: `#1 12.3k $0.04, #2 8.1k $0.03 (1 compaction), #3 900 $0.00 (unfinished)`. */
export function iterationsText(its: readonly IterationJson[]): string {
  if (its.length === 0) return 'iterations: none recorded (no transcript)';
  return `iterations: ${its.map((i) => {
    const notes = [
      ...(i.compactions ? [`${i.compactions} compaction${i.compactions === 1 ? '' : 's'}`] : []),
      ...(i.partial ? ['unfinished'] : []),
    ];
    return `#${i.iteration} ${spentText(i.tokens, i.costUsd)}${notes.length ? ` (${notes.join(', ')})` : ''}`;
  }).join(', ')}`;
}

/** The human table, newest first; the module column only when runs of several modules are shown. */
function table(runs: RunRow[], withModule: boolean): string[] {
  const head = ['STARTED', 'ENDED', ...(withModule ? ['MODULE'] : []), 'OUTCOME', 'SCORE', 'ITER', 'ACTIVE', 'RECOV', 'RESTARTS', 'QUOTA WAIT', 'SPENT'];
  const align: ('l' | 'r')[] = ['l', 'l', ...(withModule ? ['l' as const] : []), 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'];
  const rows = runs.map((r) => [
    when(r.startedAt),
    when(r.endedAt, r.startedAt),
    ...(withModule ? [r.taskName || basename(r.taskDir) || r.session] : []),
    `${r.outcome}${r.forced ? ' (forced)' : ''}`,
    scoreOf(r).toFixed(2),
    `${r.iterations}/${r.maxIterations ?? '-'}`,
    `${duration(r.activeMs)}/${r.timeoutMinutes ?? '-'}m`,
    String(r.recoveries),
    String(r.restarts),
    r.quotaWaitMs > 0 ? duration(r.quotaWaitMs) : '-',
    `${spentText(r.tokens ?? null, r.costUsd ?? null)}${r.compactions ? ` (${r.compactions} compaction${r.compactions === 1 ? '' : 's'})` : ''}`,
  ].map(printable));
  return columns([head, ...rows], align);
}

/**
 * `autodeck history [TASK_DIR] [--last N] [--json]`: finished runs, newest first, with
 * outcome, iterations, times and score; for one module also the limits to use next time.
 */
export async function historyCommand(ctx: CommandContext): Promise<number> {
  // Claude Code's own background sessions that ended (asked only when Claude Code has session files)
  const claude = ctx.args.length === 0 ? await (await import('../claudeSessions/history.js')).endedClaudeSessions(Store.open(ctx.settings.db), ctx.settings.agent) : undefined;
  return history(ctx, claude);
}

/** `claude:<session id>`: an adopted Claude Code session's runs, not a folder. */
const CLAUDE_KEY = /^claude:[A-Za-z0-9._:-]{1,100}$/;

export function history(ctx: CommandContext, claude?: { sessions: unknown[]; lines: string[] }): number {
  const last = ctx.flags.last === undefined ? HISTORY_RUNS : Number(ctx.flags.last);
  if (!Number.isInteger(last) || last < 1) throw new CliError(`autodeck: --last: ${String(ctx.flags.last)} is not a whole number >= 1`);
  // an adopted Claude Code session's runs are filed under `claude:<session id>` (what a dashboard on another host asks for)
  const claudeKey = ctx.args.length === 1 && CLAUDE_KEY.test(ctx.args[0]!) ? ctx.args[0] : undefined;
  const taskDir = claudeKey ?? (ctx.args.length > 0 ? taskDirArg(ctx.args, ctx.cwd, 'history') : undefined);
  const store = Store.open(ctx.settings.db);
  try {
    if (taskDir !== undefined && !claudeKey) requireKnownTaskDir(store, taskDir, ctx.args[0]!, 'history');
    const runs = store.runs.list(last, taskDir);
    const suggestion = taskDir === undefined ? null : suggestionFor(store, taskDir, ctx.settings);
    const perIteration = ctx.flags.iterations === true;
    const its = (run: RunRow) => store.iterations.list(run.taskDir, run.startedAt).map(iterationJson);
    if (ctx.flags.json === true) {
      const verifies = (run: RunRow) => store.verifies.list(run.taskDir, run.startedAt).map(verifyJson);
      line(ctx.stdout, JSON.stringify({
        runs: runs.map((r) => ({ ...historyRunJson(r), verifies: verifies(r), ...(perIteration ? { perIteration: its(r) } : {}) })), suggestion,
        ...(claude ? { claudeSessions: claude.sessions } : {}),
      }, null, 2));
      return 0;
    }
    if (runs.length === 0) {
      line(ctx.stdout, taskDir === undefined ? 'No finished runs.' : `No finished runs of ${printable(ctx.args[0]!)} yet.`);
    } else {
      const total = runs.length < last ? runs.length : store.runs.count(taskDir);
      if (taskDir !== undefined) {
        const name = runs[0]!.taskName || basename(taskDir);
        line(ctx.stdout, printable(`${name} (${taskDir}): ${total} finished run${total === 1 ? '' : 's'}`));
      }
      for (const l of table(runs, taskDir === undefined)) line(ctx.stdout, l);
      if (perIteration) {
        line(ctx.stdout, '');
        for (const r of runs) line(ctx.stdout, printable(`${when(r.startedAt)}  ${r.taskName || basename(r.taskDir)}  ${iterationsText(its(r))}`));
      }
      const extras = runs.flatMap((r) => runExtrasLines(r, store.verifies.list(r.taskDir, r.startedAt)).map((l) => `${when(r.startedAt)}  ${r.taskName || basename(r.taskDir)}  ${l}`));
      if (extras.length > 0) {
        line(ctx.stdout, '');
        for (const l of extras) line(ctx.stdout, printable(l));
      }
      if (total > runs.length) line(ctx.stdout, `(the last ${runs.length} of ${total}; --last N shows more)`);
    }
    if (suggestion) {
      line(ctx.stdout, '');
      line(ctx.stdout, printable(suggestionLine(suggestion)));
    }
    for (const l of claude?.lines ?? []) line(ctx.stdout, l);
    return 0;
  } finally {
    store.close();
  }
}

