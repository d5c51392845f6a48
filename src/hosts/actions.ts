import type { Limits } from '../history/suggest.js';
import type { RunRow, Outcome } from '../store/runs.js';
import type { LimitSuggestion } from '../history/suggest.js';
import { tmuxSessionName } from '../sessions/tmuxCommand.js';
import type { HostEntry } from './spec.js';

/**
 * The remote autodeck's words for each action on a loop there. A path always comes after
 * `--`, so one starting with `-` is never taken for a flag; ssh.ts quotes every word.
 */

const rootArgs = (host: Pick<HostEntry, 'roots'>): string[] => (host.roots ?? []).flatMap((r) => ['--root', r]);

/** Start: supervised there, in the background (`run --detach`), the agent in tmux so it outlives everything. */
export function startWords(host: Pick<HostEntry, 'roots'>, dir: string, limits: Partial<Limits>, opts: { worktree?: boolean } = {}): string[] {
  return [
    'run', '--detach', '--backend', 'tmux',
    ...(limits.maxIterations !== undefined ? ['--max-iterations', String(limits.maxIterations)] : []),
    ...(limits.timeoutMinutes !== undefined ? ['--timeout', String(limits.timeoutMinutes)] : []),
    // the start dialog's worktree switch, as it was left; unsaid, the host's own setting
    ...(opts.worktree !== undefined ? [opts.worktree ? '--worktree' : '--no-worktree'] : []),
    ...rootArgs(host), '--', dir,
  ];
}

export function stopWords(dir: string, force: boolean): string[] {
  return ['stop', ...(force ? ['--force'] : []), '--', dir];
}

export function historyWords(dir: string, last: number): string[] {
  return ['history', '--json', '--last', String(last), '--', dir];
}

/**
 * The tmux client for attach, on the host's own tmux server: the dashboard's detach key
 * bound to detach, as attach does here, the window sized to the terminal.
 */
export function attachWords(socket: string, session: string, detachKey: string): string[] {
  const name = tmuxSessionName(session);
  return [
    'tmux', '-u', '-f', '/dev/null', '-L', socket,
    'bind-key', '-n', detachKey, 'detach-client', ';',
    'set-option', '-w', '-t', `=${name}:`, 'window-size', 'latest', ';',
    'attach-session', '-t', `=${name}`,
  ];
}

const num = (v: unknown, d = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** `history --json` of the host, as the history view's rows and the start dialog's suggestion. */
export function parseHistory(stdout: string): { runs: RunRow[]; suggestion?: LimitSuggestion } | undefined {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  const d = data as { runs?: unknown; suggestion?: unknown };
  if (!Array.isArray(d.runs)) return undefined;
  const runs = d.runs.filter((r): r is Record<string, unknown> => r !== null && typeof r === 'object').map((r): RunRow => ({
    id: num(r.id), taskDir: text(r.taskDir), taskName: text(r.taskName), session: text(r.session), startedAt: text(r.startedAt), endedAt: text(r.endedAt),
    iterations: num(r.iterations), maxIterations: num(r.maxIterations), timeoutMinutes: num(r.timeoutMinutes), outcome: text(r.outcome) as Outcome,
    forced: r.forced === true, stopReason: text(r.stopReason), activeMs: num(r.activeMs), recoveries: num(r.recoveries), restarts: num(r.restarts),
    quotaWaitMs: num(r.quotaWaitMs), tokens: typeof r.tokens === 'number' ? r.tokens : null, costUsd: typeof r.costUsd === 'number' ? r.costUsd : null,
    compactions: typeof r.compactions === 'number' ? r.compactions : null,
  }) as RunRow);
  const s = d.suggestion as Partial<LimitSuggestion> | null | undefined;
  const suggestion = s && typeof s.maxIterations === 'number' && typeof s.timeoutMinutes === 'number'
    ? { maxIterations: s.maxIterations, timeoutMinutes: s.timeoutMinutes, basis: `${text(s.basis)} (on the host)`, fromRuns: num(s.fromRuns) } : undefined;
  return { runs, ...(suggestion ? { suggestion } : {}) };
}
