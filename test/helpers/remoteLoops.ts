import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { killTmuxServer } from '../../src/sessions/tmuxServer.js';
import { ownPackageDir } from '../../src/ownPackage.js';
import type { RemoteHost } from './sshd.js';

/** This checkout's bin, from the sources (tests) or from dist/ (the bench). */
const BIN = join(ownPackageDir(), 'bin', 'autodeck.js');

/** The remote autodeck's own `status --json`, read directly (not over ssh): what really runs there. */
export function remoteStatus(host: RemoteHost): { loops: { taskDir: string; status: string; backend: string; session: string; maxIterations: number; owner: { pid: number | null } }[]; recent: { taskDir: string; outcome: string }[] } {
  if (!existsSync(host.db)) return { loops: [], recent: [] };
  const out = execFileSync(process.execPath, [BIN, 'status', '--json'], { env: { ...host.env, PATH: process.env.PATH ?? '' }, encoding: 'utf8', cwd: host.home });
  return JSON.parse(out) as ReturnType<typeof remoteStatus>;
}

/**
 * After a test: the remote supervisors (`run --detach`, by the pids their loops name) and
 * the remote tmux server with its agents are ended.
 */
export function endRemoteLoops(host: RemoteHost): void {
  let pids: number[] = [];
  try {
    pids = remoteStatus(host).loops.map((l) => l.owner.pid).filter((p): p is number => typeof p === 'number');
  } catch { /* no database */ }
  for (const pid of new Set(pids)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch { /* gone */ }
  }
  killTmuxServer({ socket: host.tmuxSocket });
}
