import { existsSync } from 'node:fs';
import { gitTopLevel } from '../paths.js';
import { Store } from '../store/index.js';
import type { LoopRow } from '../store/loops.js';
import { printable } from '../format/event.js';
import { columns } from '../format/table.js';
import { listLoopWorktrees, removeIfEmpty, stateWords, worktreeState, type ListedWorktree, type WorktreeState } from '../worktree/state.js';
import { CliError, line, type CommandContext } from './context.js';

/** One loop worktree as `worktrees` shows it. */
interface Listed {
  repo: string;
  worktree: ListedWorktree;
  state: WorktreeState;
  /** The loop row that uses it (running, suspended or failed): never pruned. */
  loop: LoopRow | undefined;
}

/**
 * The repositories to look in: those of the roots, of the current folder, and of every
 * module whose loop has (or had) a worktree. Each once, by its main working tree.
 */
function repositories(ctx: CommandContext, store: Store): string[] {
  const dirs = [ctx.cwd, ...ctx.settings.roots, ...store.loops.list().filter((r) => r.worktreePath).map((r) => r.taskDir), ...store.runs.worktreeTaskDirs()];
  const tops = new Set<string>();
  for (const d of dirs) {
    const top = existsSync(d) ? gitTopLevel(d) : undefined;
    if (top) tops.add(top);
  }
  return [...tops];
}

function gather(ctx: CommandContext, store: Store): Listed[] {
  const rows = store.loops.list();
  const seen = new Set<string>();
  const out: Listed[] = [];
  for (const top of repositories(ctx, store)) {
    const found = listLoopWorktrees(top);
    if ('error' in found) continue; // not a repository git can read: nothing of ours there
    for (const w of found.worktrees) {
      if (seen.has(w.path)) continue;
      seen.add(w.path);
      const branch = w.ref.replace(/^refs\/heads\//, '');
      out.push({ repo: found.repo, worktree: w, state: worktreeState(w.path, { branch, locked: w.locked }), loop: rows.find((r) => r.worktreePath === w.path) });
    }
  }
  return out.sort((a, b) => a.worktree.path.localeCompare(b.worktree.path));
}

const loopWords = (l: Listed): string => (l.loop ? `${l.loop.taskName || l.loop.taskDir} (${l.loop.status})` : '-');

/**
 * `autodeck worktrees [--prune] [--json]`: the loop worktrees (branches `autodeck/…`) with
 * what each holds; `--prune` removes those that hold nothing and no loop uses. Nothing
 * else is ever removed, and no branch is deleted.
 */
export function worktrees(ctx: CommandContext): number {
  if (ctx.args.length > 0) throw new CliError('autodeck worktrees: takes no folder; it looks in the roots, the current folder and the loops it knows');
  const store = Store.open(ctx.settings.db);
  try {
    const listed = gather(ctx, store);
    if (ctx.flags.prune === true) return prune(ctx, listed);
    if (ctx.flags.json === true) {
      line(ctx.stdout, JSON.stringify({
        worktrees: listed.map((l) => ({
          repo: l.repo, path: l.worktree.path, branch: l.state.branch || l.worktree.ref.replace(/^refs\/heads\//, ''), state: stateWords(l.state),
          changed: l.state.changed, untracked: l.state.untracked, ahead: l.state.ahead ?? null, merged: l.state.merged, exists: l.state.exists,
          base: l.state.base ?? null, loop: l.loop ? { session: l.loop.session, taskDir: l.loop.taskDir, status: l.loop.status } : null,
        })),
      }, null, 2));
      return 0;
    }
    if (listed.length === 0) {
      line(ctx.stdout, 'No loop worktrees.');
      return 0;
    }
    const rows = listed.map((l) => [l.state.branch || l.worktree.ref.replace(/^refs\/heads\//, '') || '(detached)', stateWords(l.state), loopWords(l), l.worktree.path].map(printable));
    for (const l of columns([['BRANCH', 'STATE', 'LOOP', 'PATH'], ...rows])) line(ctx.stdout, l);
    return 0;
  } finally {
    store.close();
  }
}

function prune(ctx: CommandContext, listed: Listed[]): number {
  let removed = 0;
  for (const l of listed) {
    const path = printable(l.worktree.path);
    if (l.loop) {
      line(ctx.stdout, `kept ${path}: the loop on ${printable(loopWords(l))} uses it`);
      continue;
    }
    const r = removeIfEmpty(l.repo, l.worktree.path, { branch: l.state.branch || undefined, locked: l.worktree.locked });
    if (r.removed) {
      removed++;
      line(ctx.stdout, `removed ${path} (it held nothing; branch ${printable(r.state.branch)} kept)`);
    } else {
      line(ctx.stdout, `kept ${path}: ${printable(r.why)}`);
    }
  }
  line(ctx.stdout, `${removed} removed, ${listed.length - removed} kept`);
  return 0;
}
