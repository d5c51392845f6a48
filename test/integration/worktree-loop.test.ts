import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags, startCli, type CliRun, killLeftovers } from '../helpers/cli.js';
import { eventsOf, loopRow, readDb, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { commitAll, sh, writeFiles } from '../helpers/gitRepo.js';
import { killTmuxServer, tmuxAvailable } from '../../src/sessions/tmuxServer.js';

// A git worktree per loop, end to end: real repositories, the real CLI, real agents
// (a small script that edits the repository, and the simulated agent), both backends,
// a supervisor killed mid-loop and its loop adopted in the same worktree.

let ws: Workspace;
const children: CliRun[] = [];
let socket = '';
afterEach(async () => {
  await killLeftovers(children);
  if (socket) killTmuxServer({ socket });
  socket = '';
  ws?.cleanup();
});

/** A workspace that is a real repository, `src/shared.txt` committed. */
function repoWorkspace(): Workspace {
  ws = makeWorkspace('autodeck-wtloop-');
  rmSync(join(ws.dir, '.git'), { recursive: true });
  sh(ws.dir, 'init', '-q', '-b', 'main');
  // the test's own files (its database, HOME, the agent script) are no part of the project
  writeFiles(ws.dir, { 'src/shared.txt': 'original\n', '.gitignore': '.auto-signal\n.auto-signal.tmp\n.auto-stop\nstate.db*\n/home/\n/state/\n/config/\n/edit-agent.mjs\n' });
  return ws;
}

/**
 * An agent that edits `src/shared.txt` where it runs (its module's name), commits it when
 * asked, then ends its loop with a `(stop)` signal in its module, as the protocol says.
 */
function editingAgent(): string {
  const path = join(ws.dir, 'edit-agent.mjs');
  writeFileSync(path, `
import { writeFileSync, renameSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
const [taskDir, name] = process.argv.slice(2);
writeFileSync('src/shared.txt', name + '\\n');
if (process.env.AGENT_COMMITS === name) execFileSync('git', ['-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qam', 'work of ' + name]);
const signal = { step: 'report', result: '(done)', next: '(stop)', checkpoint: '', iteration: 1, timestamp: new Date().toISOString() };
writeFileSync(taskDir + '/.auto-signal.tmp', JSON.stringify(signal));
renameSync(taskDir + '/.auto-signal.tmp', taskDir + '/.auto-signal');
setTimeout(() => process.exit(0), 300);
`);
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(path)} {taskDir} {taskName}`;
}

const worktreesJson = async (): Promise<{ path: string; branch: string; state: string; loop: unknown }[]> => {
  const r = await runCli(ws, ['worktrees', '--json', '--db', ws.db, '--root', ws.root]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { worktrees: { path: string; branch: string; state: string; loop: unknown }[] }).worktrees;
};

describe('a worktree per loop', () => {
  it('two loops in one repository edit the same file path, each in its worktree: their edits never meet', async () => {
    repoWorkspace();
    const a = ws.module('alpha', { status: 'complete' });
    const b = ws.module('beta', { status: 'complete' });
    commitAll(ws.dir, 'two modules');
    const agent = editingAgent();
    const flags = ['--db', ws.db, '--root', ws.root, '--agent', agent, '--agent-profile', 'generic', '--heartbeat', '0.5', '--worktree', '--verify', 'cat src/shared.txt'];
    const r = await runCli(ws, ['run', a, b, ...flags], { env: { AGENT_COMMITS: 'beta' } });
    expect(r.code, r.stderr).toBe(0);

    const made = [a, b].map((dir) => eventsOf(ws.db, dir, 'worktree')[0]!.detail as { path: string; branch: string; base: string });
    expect(made.map((m) => m.branch)).toEqual([expect.stringMatching(/^autodeck\/alpha-[0-9a-f]{6}$/), expect.stringMatching(/^autodeck\/beta-[0-9a-f]{6}$/)]);
    expect(made.map((m) => m.base)).toEqual(['refs/heads/main', 'refs/heads/main']);
    // each agent's edit is in its own worktree; the checkout is untouched
    expect(readFileSync(join(made[0]!.path, 'src', 'shared.txt'), 'utf8')).toBe('alpha\n');
    expect(readFileSync(join(made[1]!.path, 'src', 'shared.txt'), 'utf8')).toBe('beta\n');
    expect(readFileSync(join(ws.dir, 'src', 'shared.txt'), 'utf8')).toBe('original\n');
    expect(sh(ws.dir, 'status', '--porcelain')).toBe('');
    // each verify ran in its loop's worktree
    expect(eventsOf(ws.db, a, 'verify_passed')[0]!.detail).toMatchObject({ tail: 'alpha' });
    expect(eventsOf(ws.db, b, 'verify_passed')[0]!.detail).toMatchObject({ tail: 'beta' });
    // work is kept, and the run says where and what
    const runs = [a, b].map((dir) => readDb(ws.db, (db) => db.prepare('SELECT outcome, worktree_path, worktree_branch, worktree_state FROM runs WHERE task_dir = ?').get(dir)));
    expect(runs).toEqual([
      { outcome: 'complete', worktree_path: made[0]!.path, worktree_branch: made[0]!.branch, worktree_state: 'kept: dirty (1 changed), nothing new' },
      { outcome: 'complete', worktree_path: made[1]!.path, worktree_branch: made[1]!.branch, worktree_state: 'kept: clean, 1 ahead' },
    ]);
    expect(r.stderr).toContain(`; its work is in ${made[1]!.path} (branch ${made[1]!.branch}, clean, 1 ahead)`);
    expect(r.stderr).toContain(`alpha  worktree  worktree kept (dirty (1 changed), nothing new): ${made[0]!.branch} at ${made[0]!.path}`);

    const status = await runCli(ws, ['status', '--db', ws.db]);
    expect(status.stdout).toContain(`  worktree ${made[0]!.branch} kept: dirty (1 changed), nothing new (${made[0]!.path})`);

    // listed with their state; pruning refuses the dirty and the unmerged one
    expect((await worktreesJson()).map((w) => [w.branch, w.state, w.loop])).toEqual([
      [made[0]!.branch, 'dirty (1 changed), nothing new', null], [made[1]!.branch, 'clean, 1 ahead', null],
    ]);
    const kept = await runCli(ws, ['worktrees', '--prune', '--db', ws.db, '--root', ws.root]);
    expect(kept.stdout).toContain(`kept ${made[0]!.path}: dirty (1 changed), nothing new`);
    expect(kept.stdout).toContain(`kept ${made[1]!.path}: clean, 1 ahead`);
    expect(kept.stdout).toContain('0 removed, 2 kept');
    // once its commit is merged, beta's worktree holds nothing more: pruned; its branch stays
    sh(ws.dir, 'merge', '-q', '--ff-only', made[1]!.branch);
    const pruned = await runCli(ws, ['worktrees', '--prune', '--db', ws.db, '--root', ws.root]);
    expect(pruned.stdout).toContain(`removed ${made[1]!.path}`);
    expect(pruned.stdout).toContain('1 removed, 1 kept');
    expect(existsSync(made[1]!.path)).toBe(false);
    expect(existsSync(join(made[0]!.path, 'src', 'shared.txt'))).toBe(true);
    expect(sh(ws.dir, 'branch', '--list', made[1]!.branch).trim()).toBe(made[1]!.branch);
    const text = await runCli(ws, ['worktrees', '--db', ws.db, '--root', ws.root]);
    expect(text.stdout.split('\n')[0]).toMatch(/^BRANCH +STATE +LOOP +PATH$/);
    expect(text.stdout).toContain(made[0]!.branch);
  });

  it('a worktree that holds nothing at the end is removed; its branch is kept (a module named with spaces, a leading - and ..)', async () => {
    repoWorkspace();
    const dir = ws.module('-rf my ..quiet', { status: 'complete', scenario: { stepSeconds: 0.05 } });
    commitAll(ws.dir, 'a module');
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--worktree'])]);
    expect(r.code, r.stderr).toBe(0);
    const [created, closed] = eventsOf(ws.db, dir, 'worktree').map((e) => e.detail as { action: string; path: string; branch: string });
    expect([created!.action, closed!.action]).toEqual(['created', 'removed']);
    expect(created!.branch).toMatch(/^autodeck\/rf-my-.quiet-[0-9a-f]{6}$/);
    expect(created!.path).toBe(join(ws.dir, '.autodeck', 'worktrees', created!.branch.slice('autodeck/'.length)));
    expect(existsSync(created!.path)).toBe(false);
    expect(sh(ws.dir, 'branch', '--list', created!.branch).trim()).toBe(created!.branch);
    expect(readDb(ws.db, (db) => db.prepare('SELECT worktree_state FROM runs WHERE task_dir = ?').get(dir))).toEqual({ worktree_state: 'removed' });
  });

  it('refuses a repository mid-merge before anything starts, with what to do', async () => {
    repoWorkspace();
    const dir = ws.module('m', { status: 'complete' });
    commitAll(ws.dir, 'a module');
    sh(ws.dir, 'checkout', '-q', '-b', 'other');
    writeFiles(ws.dir, { 'src/shared.txt': 'other\n' });
    commitAll(ws.dir, 'other');
    sh(ws.dir, 'checkout', '-q', 'main');
    writeFiles(ws.dir, { 'src/shared.txt': 'main\n' });
    commitAll(ws.dir, 'main');
    expect(() => sh(ws.dir, 'merge', 'other')).toThrow();
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--worktree'])]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^autodeck: m: no worktree: .* a merge is in progress; finish it or abort it \(git status says how\) before a loop gets a worktree$/);
    expect(loopRow(ws.db, dir)).toBeUndefined();
    expect(existsSync(join(ws.dir, '.autodeck', 'worktrees'))).toBe(false);
  });

  const tmux = tmuxAvailable();
  it.each([
    ['pty', true],
    ['tmux', tmux.ok],
  ] as const)('a supervisor killed mid-loop: the loop is adopted in its worktree (%s backend)', async (backend, available) => {
    if (!available) return;
    repoWorkspace();
    if (backend === 'tmux') {
      socket = `autodeck-wt-${process.pid}-${Date.now()}`;
      ws.env.AUTODECK_TMUX_SOCKET = socket;
    }
    const dir = ws.module('adopted', { status: 'planning', scenario: { stepSeconds: 0.4, envFile: 'env.json' } });
    commitAll(ws.dir, 'a module');
    const flags = runFlags(ws, ['--worktree', '--backend', backend]);
    const first = startCli(ws, ['run', dir, ...flags]);
    children.push(first);
    const row = await waitFor(() => {
      const r = loopRow(ws.db, dir) as (ReturnType<typeof loopRow> & { worktree_path?: string }) | undefined;
      return r && r.agent_pid && r.iteration_count >= 1 ? r : undefined;
    }, 'the loop under way');
    const path = row.worktree_path!;
    expect(path).toMatch(/\/\.autodeck\/worktrees\/adopted-[0-9a-f]{6}$/);
    first.child.kill('SIGKILL');
    await first.exited;

    // a second supervisor adopts it: the agent works in the same worktree
    const second = await runCli(ws, ['run', dir, ...flags]);
    expect(second.code, second.stderr).toBe(0);
    expect(eventsOf(ws.db, dir, 'recovered')[0]!.detail).toMatchObject({ action: backend === 'tmux' ? 'reattach' : 'restart' });
    expect((JSON.parse(readFileSync(join(dir, 'env.json'), 'utf8')) as { cwd: string }).cwd).toBe(path);
    expect(eventsOf(ws.db, dir, 'worktree').map((e) => e.detail.action)).toEqual(['created', 'removed']);
    expect(runsOf(ws.db, dir)).toHaveLength(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
  }, 120_000);
});
