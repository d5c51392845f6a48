import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags, startCli, type CliRun, killLeftovers } from '../helpers/cli.js';
import { eventsOf, loopRow, readDb, runsOf, type TaskAutoRow } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { commitAll, sh, writeFiles } from '../helpers/gitRepo.js';
import { killTmuxServer, listTmuxSessions, tmuxAvailable } from '../../src/sessions/tmuxServer.js';

// A loop in its own worktree survives a crash of its supervisor: real repositories, the
// real CLI, the simulated agent, real tmux on a private socket and real PTYs. The
// supervisor is killed -9 mid-loop; a second `autodeck run` adopts the loop from its row
// and the agent goes on in the same worktree — no second worktree, the same branch — and
// the end keeps or removes that worktree by what it holds.

let ws: Workspace;
const children: CliRun[] = [];
let socket = '';
afterEach(async () => {
  await killLeftovers(children);
  if (socket) killTmuxServer({ socket });
  socket = '';
  ws?.cleanup();
});

type Row = TaskAutoRow & { worktree_path: string | null; worktree_branch: string | null };
const rowOf = (dir: string): Row | undefined => loopRow(ws.db, dir) as Row | undefined;

/** Running: a zombie (an ended process nobody reaped yet, e.g. under a PID 1 that does not reap) counts as ended. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
};

/** A repository with a module whose simulated agent works for several seconds and records its cwd at start. */
function repoWithModule(): string {
  ws = makeWorkspace('autodeck-wtadopt-');
  rmSync(join(ws.dir, '.git'), { recursive: true });
  sh(ws.dir, 'init', '-q', '-b', 'main');
  // the test's own files (its database, HOME, state) are no part of the project
  writeFiles(ws.dir, { 'src/shared.txt': 'original\n', '.gitignore': '.auto-signal\n.auto-signal.tmp\n.auto-stop\nstate.db*\n/home/\n/state/\n/config/\n' });
  const dir = ws.module('adopted', { status: 'planning', scenario: { stepSeconds: 0.5, steps: 8, envFile: 'env.json' } });
  commitAll(ws.dir, 'a module');
  return dir;
}

/** The loop under way with its agent, its worktree in the row. */
async function underWay(dir: string): Promise<Row & { worktree_path: string; worktree_branch: string; agent_pid: number }> {
  const row = await waitFor(() => {
    const r = rowOf(dir);
    return r && r.agent_pid && r.iteration_count >= 1 && r.worktree_path && r.worktree_branch ? r : undefined;
  }, 'the loop under way in its worktree');
  return row as Row & { worktree_path: string; worktree_branch: string; agent_pid: number };
}

/** What the simulated agent wrote at its start (its cwd among it), once it has. */
const startRecord = (dir: string): { cwd: string } | undefined =>
  existsSync(join(dir, 'env.json')) ? JSON.parse(readFileSync(join(dir, 'env.json'), 'utf8')) as { cwd: string } : undefined;

/** Git's own list of the repository's worktrees (paths), the checkout first. */
const gitWorktrees = (): string[] =>
  sh(ws.dir, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).map((l) => l.slice('worktree '.length));
const autodeckBranches = (): string[] =>
  sh(ws.dir, 'branch', '--list', 'autodeck/*', '--format=%(refname:short)').split('\n').filter(Boolean);
const worktreeFolders = (): string[] => readdirSync(join(ws.dir, '.autodeck', 'worktrees'));

const tmux = tmuxAvailable();

describe('a worktree loop across a crash of its supervisor and its adoption', () => {
  it.skipIf(!tmux.ok)('tmux: the surviving agent is reattached in its worktree; the work it holds keeps the worktree', async () => {
    const dir = repoWithModule();
    socket = `autodeck-wtadopt-${process.pid}-${Date.now()}`;
    ws.env.AUTODECK_TMUX_SOCKET = socket;
    const flags = runFlags(ws, ['--worktree', '--backend', 'tmux']);
    const first = startCli(ws, ['run', dir, ...flags]);
    children.push(first);
    const before = await underWay(dir);
    const { worktree_path: path, worktree_branch: branch, agent_pid: agentPid } = before;
    expect(path).toBe(join(ws.dir, '.autodeck', 'worktrees', branch.slice('autodeck/'.length)));
    expect(branch).toMatch(/^autodeck\/adopted-[0-9a-f]{6}$/);
    // the agent works in the worktree, not in the checkout
    expect(readlinkSync(`/proc/${agentPid}/cwd`)).toBe(path);
    expect(startRecord(dir)?.cwd).toBe(path);

    first.child.kill('SIGKILL');
    await first.exited;
    // the agent outlives its supervisor in its tmux session
    expect(alive(agentPid)).toBe(true);
    expect(listTmuxSessions({ socket }).map((s) => s.pid)).toEqual([agentPid]);
    // work the agent leaves in its worktree meanwhile: a commit on the loop's branch
    writeFiles(path, { 'src/shared.txt': 'adopted\n' });
    sh(path, 'commit', '-qam', 'work of the adopted loop');

    const second = startCli(ws, ['run', dir, ...flags]);
    children.push(second);
    const recovered = await waitFor(() => eventsOf(ws.db, dir, 'recovered')[0], 'the loop adopted');
    expect(recovered.detail).toMatchObject({ action: 'reattach', agentPid, from: { pid: first.child.pid } });
    // the row, now the second supervisor's, still names the same worktree and the same agent
    const adopted = await waitFor(() => {
      const r = rowOf(dir);
      return r?.owner_pid === second.child.pid ? r : undefined;
    }, 'the row owned by the adopter');
    expect(adopted).toMatchObject({ worktree_path: path, worktree_branch: branch, agent_pid: agentPid });

    expect(await second.exited, second.stderr()).toBe(0);
    expect(eventsOf(ws.db, dir, 'restart')).toEqual([]); // reattached, never started again
    // one worktree, made once; kept at the end because it holds a commit its base lacks
    expect(eventsOf(ws.db, dir, 'worktree').map((e) => e.detail)).toEqual([
      expect.objectContaining({ action: 'created', path, branch }),
      expect.objectContaining({ action: 'kept', path, branch, state: 'clean, 1 ahead' }),
    ]);
    expect(gitWorktrees()).toEqual([ws.dir, path]);
    expect(worktreeFolders()).toEqual([branch.slice('autodeck/'.length)]);
    expect(autodeckBranches()).toEqual([branch]);
    expect(runsOf(ws.db, dir)).toHaveLength(1);
    expect(readDb(ws.db, (db) => db.prepare('SELECT outcome, worktree_path, worktree_branch, worktree_state FROM runs WHERE task_dir = ?').get(dir)))
      .toEqual({ outcome: 'complete', worktree_path: path, worktree_branch: branch, worktree_state: 'kept: clean, 1 ahead' });
    expect(second.stderr()).toContain(`its work is in ${path} (branch ${branch}, clean, 1 ahead)`);
    // the checkout was never touched
    expect(readFileSync(join(ws.dir, 'src', 'shared.txt'), 'utf8')).toBe('original\n');
    expect(sh(ws.dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
    expect(rowOf(dir)).toBeUndefined();
  }, 120_000);

  it.skipIf(!tmux.ok)('tmux: an agent that died with its supervisor is started again in a new tmux session, in the same worktree', async () => {
    const dir = repoWithModule();
    socket = `autodeck-wtadopt-${process.pid}-${Date.now()}`;
    ws.env.AUTODECK_TMUX_SOCKET = socket;
    const flags = runFlags(ws, ['--worktree', '--backend', 'tmux']);
    const first = startCli(ws, ['run', dir, ...flags]);
    children.push(first);
    const { worktree_path: path, worktree_branch: branch, agent_pid: firstAgent } = await underWay(dir);
    first.child.kill('SIGKILL');
    await first.exited;
    process.kill(firstAgent, 'SIGKILL');
    await waitFor(() => !alive(firstAgent), 'the first agent gone');
    rmSync(join(dir, 'env.json'));

    const second = startCli(ws, ['run', dir, ...flags]);
    children.push(second);
    const adopted = await waitFor(() => {
      const r = rowOf(dir);
      return r && r.owner_pid === second.child.pid && r.agent_pid && r.agent_pid !== firstAgent ? r : undefined;
    }, 'a new agent under the adopter');
    // tmux can be slow to mark the pane dead (it may miss the SIGCHLD until nudged): then the
    // adopter reattaches to the dead pane, sees the exit and starts the agent again. Either way a
    // new agent, in a new tmux session, in the same worktree.
    const recovered = eventsOf(ws.db, dir, 'recovered')[0]!.detail;
    expect(recovered).toMatchObject({ action: expect.stringMatching(/^(restart|reattach)$/) });
    if (recovered.action === 'reattach') expect(recovered.agentPid).toBe(firstAgent);
    expect(adopted).toMatchObject({ worktree_path: path, worktree_branch: branch });
    expect(listTmuxSessions({ socket }).map((s) => s.pid)).toEqual([adopted.agent_pid]);
    const env = await waitFor(() => startRecord(dir), "the new agent's record of its start");
    expect(env.cwd).toBe(path);

    expect(await second.exited, second.stderr()).toBe(0);
    expect(eventsOf(ws.db, dir, 'worktree').map((e) => e.detail)).toEqual([
      expect.objectContaining({ action: 'created', path, branch }),
      expect.objectContaining({ action: 'removed', path, branch }),
    ]);
    expect(gitWorktrees()).toEqual([ws.dir]);
    expect(autodeckBranches()).toEqual([branch]);
    expect(runsOf(ws.db, dir)).toEqual([expect.objectContaining({ outcome: 'complete', restarts: 1 })]);
  }, 120_000);

  it('pty: the adopter starts the agent again in the same worktree (from the row, without --worktree); a worktree that holds nothing is removed', async () => {
    const dir = repoWithModule();
    const first = startCli(ws, ['run', dir, ...runFlags(ws, ['--worktree', '--backend', 'pty'])]);
    children.push(first);
    const before = await underWay(dir);
    const { worktree_path: path, worktree_branch: branch, agent_pid: firstAgent } = before;
    expect(readlinkSync(`/proc/${firstAgent}/cwd`)).toBe(path);

    first.child.kill('SIGKILL');
    await first.exited;
    // what the first agent wrote at its start goes: the file below is the new agent's own
    rmSync(join(dir, 'env.json'));

    // no --worktree here: the loop's worktree comes from its row
    const second = startCli(ws, ['run', dir, ...runFlags(ws, ['--backend', 'pty'])]);
    children.push(second);
    const recovered = await waitFor(() => eventsOf(ws.db, dir, 'recovered')[0], 'the loop adopted');
    expect(recovered.detail).toMatchObject({ action: 'restart', from: { pid: first.child.pid } });
    const adopted = await waitFor(() => {
      const r = rowOf(dir);
      return r && r.owner_pid === second.child.pid && r.agent_pid && r.agent_pid !== firstAgent ? r : undefined;
    }, 'a new agent under the adopter');
    expect(adopted).toMatchObject({ worktree_path: path, worktree_branch: branch, restart_count: 1 });
    expect(alive(firstAgent)).toBe(false);
    // the new agent runs in the worktree, not in the checkout
    const env = await waitFor(() => startRecord(dir), "the new agent's record of its start");
    expect(env.cwd).toBe(path);
    expect(env.cwd).not.toBe(ws.dir);

    expect(await second.exited, second.stderr()).toBe(0);
    // one worktree, made once, removed at the end (clean, nothing new); its branch stays
    expect(eventsOf(ws.db, dir, 'worktree').map((e) => e.detail)).toEqual([
      expect.objectContaining({ action: 'created', path, branch }),
      expect.objectContaining({ action: 'removed', path, branch }),
    ]);
    expect(gitWorktrees()).toEqual([ws.dir]);
    expect(existsSync(path)).toBe(false);
    expect(worktreeFolders()).toEqual([]);
    expect(autodeckBranches()).toEqual([branch]);
    expect(runsOf(ws.db, dir)).toHaveLength(1);
    expect(readDb(ws.db, (db) => db.prepare('SELECT outcome, restarts, worktree_path, worktree_branch, worktree_state FROM runs WHERE task_dir = ?').get(dir)))
      .toEqual({ outcome: 'complete', restarts: 1, worktree_path: path, worktree_branch: branch, worktree_state: 'removed' });
    // in the checkout, only the module's own folder changed (the loop's files live there); `.autodeck/` is ignored
    const changed = sh(ws.dir, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).map((l) => l.slice(3));
    expect(changed.filter((f) => !f.startsWith('AiTasks/adopted/'))).toEqual([]);
    expect(changed).toContain('AiTasks/adopted/env.json');
  }, 120_000);
});
