import { hostname } from 'node:os';
import { Store } from '../store/index.js';
import { iterationJson, loopStatusJson, runJson, type IterationJson } from '../supervisor/snapshot.js';
import { ownerAlive } from '../supervisor/owner.js';
import { CliError, EXIT, line, type CommandContext } from './context.js';
import { countGroups, countText, groupById, stateDef, stateOf, type StateDef } from '../deck/states.js';

/** `▶ running`: the state as the dashboard's STATE column shows it. */
const stateText = (s: StateDef): string => `${groupById(s.group).glyph} ${s.word}`;

/** How many finished runs `status` lists under `recent`. */
export const RECENT_RUNS = 10;
const STATUS_FORMATS = ['text', 'json', 'tmux'];

/** `autodeck status [--json]`: every active loop and the last finished ones. */
export async function status(ctx: CommandContext): Promise<number> {
  // A dashboard reading this host over ssh asks for its events and modules in the same call.
  const poll = ctx.flags.eventsSince !== undefined || ctx.flags.modules === true || ctx.flags.claude === true;
  if (ctx.flags.claudeSince !== undefined && ctx.flags.claude !== true) throw new CliError('autodeck: --claude-since goes with --claude', EXIT.usage);
  const eventsSince = poll ? (await import('./statusPoll.js')).eventsSinceFlag(ctx.flags.eventsSince) : undefined;
  const format = ctx.flags.format === undefined ? (ctx.flags.json === true || poll ? 'json' : 'text') : String(ctx.flags.format);
  if (!STATUS_FORMATS.includes(format)) throw new CliError(`autodeck: --format must be one of ${STATUS_FORMATS.join(', ')} (got ${JSON.stringify(format)})`, EXIT.usage);
  if (format === 'tmux') {
    const { tmuxStatus } = await import('./statusTmux.js');
    line(ctx.stdout, tmuxStatus(ctx.settings.db));
    return 0;
  }
  const store = Store.open(ctx.settings.db);
  try {
    const now = Date.now();
    const host = hostname();
    const perIteration = ctx.flags.iterations === true;
    const its = (taskDir: string, startedAt: string) => (perIteration ? { perIteration: store.iterations.list(taskDir, startedAt).map(iterationJson) } : {});
    // each with its state group (src/deck/states.ts: the dashboard's header, the tmux segment)
    const rows = store.loops.list();
    const states = rows.map((row) => stateOf({ loop: row }));
    const loops = rows.map((row, i) => ({
      ...loopStatusJson(row, now, ownerAlive(row, { host, now })), group: states[i]!.group, ...its(row.taskDir, row.startedAt),
    }));
    const recent: Record<string, unknown>[] = store.runs.list(RECENT_RUNS).map((run) => ({
      ...runJson(run), group: stateOf({ lastOutcome: run.outcome }).group, ...its(run.taskDir, run.startedAt),
    }));
    // Claude Code's own sessions: asked only when Claude Code has session files; a dashboard
    // reading this host asks with --claude, and only when they changed since its last look
    const claude = poll ? { sessions: [], note: '', lines: [] } : await (await import('../claudeSessions/status.js')).claudeStatus(store, ctx.settings.agent, now);
    if (format === 'json') {
      const claudePoll = poll && ctx.flags.claude === true
        ? await (await import('../claudeSessions/pollLook.js')).claudePollJson(store, ctx.settings.agent, ctx.flags.claudeSince === undefined ? undefined : String(ctx.flags.claudeSince))
        : {};
      const extra = poll
        ? { ...(await import('./statusPoll.js')).hostPollJson(store, { eventsSince, modules: ctx.flags.modules === true, roots: ctx.settings.roots, env: process.env }), ...claudePoll }
        : { claudeSessions: claude.sessions, ...(claude.note ? { claudeNote: claude.note } : {}) };
      line(ctx.stdout, JSON.stringify({ loops, recent, ...extra }, null, poll ? undefined : 2));
      return 0;
    }
    const { duration, printable } = await import('../format/event.js');
    const { spentText, iterationsText } = await import('./history.js');
    const { needsYouLine } = await import('../deck/needsYou.js');
    if (loops.length === 0) line(ctx.stdout, 'No active loops.');
    else line(ctx.stdout, `${loops.length} active loop${loops.length === 1 ? '' : 's'}: ${countGroups(states).map((c) => countText(c, false)).join('  ')}`);
    for (const [i, l] of loops.entries()) {
      const step = l.step ? `${l.step} ${l.result} -> ${l.next}` : '-';
      const owner = l.owner.alive ? `pid ${l.owner.pid}` : `owner gone (pid ${l.owner.pid ?? '-'})`;
      line(ctx.stdout, printable(`${l.taskName}  ${stateText(states[i]!)}  ${l.iteration}/${l.maxIterations}  ${step}  ` +
        `${duration(l.activeMs)}/${l.timeoutMinutes}m  restarts ${l.restartCount}  ${spentText(l.tokens, l.costUsd)}` +
        `${l.ctxPercent === null ? '' : `  ctx ${l.ctxPercent}%`}${l.compactions ? `  compactions ${l.compactions}` : ''}  ${owner}  ${l.session}`));
      if (l.perIteration) line(ctx.stdout, printable(`  ${iterationsText(l.perIteration)}`));
      if (l.needsYou) line(ctx.stdout, `  ? ${printable(needsYouLine(l.needsYou)).slice(0, 200)}`);
      if (l.verify) {
        const v = l.verify;
        const now = v.running ? `running for ${duration(v.elapsedMs ?? 0)} (attempt ${v.failures + 1} of ${v.attempts})` : `${v.failures} of ${v.attempts} allowed failures`;
        line(ctx.stdout, printable(`  verify: ${v.command.slice(0, 120)}: ${now}`));
      }
      if (l.worktree) line(ctx.stdout, printable(`  worktree ${l.worktree.branch} at ${l.worktree.path}`));
    }
    for (const text of claude.lines) line(ctx.stdout, text);
    if (recent.length > 0) {
      line(ctx.stdout, '');
      line(ctx.stdout, 'Recent runs:');
      for (const r of recent) {
        line(ctx.stdout, printable(`${r.endedAt}  ${r.taskName}  ${stateText(stateDef('outcome', String(r.outcome)))}${r.forced ? ' (forced)' : ''}  ${r.iterations} iterations  ${duration(Number(r.activeMs))}  ${spentText(r.tokens as number | null, r.costUsd as number | null)}`));
        if (Array.isArray(r.perIteration)) line(ctx.stdout, printable(`  ${iterationsText(r.perIteration as IterationJson[])}`));
        const wt = r.worktree as { path: string; branch: string; state: string } | null | undefined;
        if (wt && wt.state !== 'removed') line(ctx.stdout, printable(`  worktree ${wt.branch} ${wt.state} (${wt.path})`));
      }
    }
    return 0;
  } finally {
    store.close();
  }
}
