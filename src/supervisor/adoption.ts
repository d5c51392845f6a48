import { join } from 'node:path';
import type { LoopRow } from '../store/loops.js';
import type { Store } from '../store/index.js';
import type { EventKind } from '../store/events.js';
import { removeIfPresent } from '../protocol/atomic.js';
import { STOP_FILE } from '../protocol/stopFile.js';
import { attachTmuxSession } from '../sessions/tmux.js';
import { tmuxSessionName } from '../sessions/tmuxCommand.js';
import type { TmuxOptions } from '../sessions/tmuxServer.js';
import { killOrphanAgent } from '../sessions/orphans.js';
import { isTransientWriteError } from '../store/db.js';
import type { Loop } from './loop.js';
import type { StoredLoopSettings } from './rowSpec.js';
import { StartRefused } from './loopStart.js';

/**
 * What to do with an orphaned loop: a `stopping` row was meant to end, so it
 * is finished; a `suspended` one resumes without counting a restart; any other counts
 * one restart and obeys the limit.
 */
export type Adoption =
  | { action: 'finish' }
  | { action: 'restart'; restartCount: number }
  | { action: 'fail'; restartCount: number };

export function planAdoption(row: Pick<LoopRow, 'status' | 'restartCount'>, restartLimit: number): Adoption {
  if (row.status === 'stopping') return { action: 'finish' };
  if (row.status === 'suspended') return { action: 'restart', restartCount: row.restartCount };
  const restartCount = row.restartCount + 1;
  return restartCount > restartLimit ? { action: 'fail', restartCount } : { action: 'restart', restartCount };
}

/** What taking an orphaned loop over needs of the supervisor. */
export interface AdoptionHost {
  store: Store;
  host: string;
  pid: number;
  tmux: TmuxOptions;
  /** Wall time now. */
  now: number;
  /** The restart limit of rows that stored none. */
  restartLimit: number;
  makeLoop(row: LoopRow): Loop;
  record(row: LoopRow, kind: EventKind, detail: Record<string, unknown>): void;
  changed(): void;
  /** The claimed row could not be taken over: it fails at once (StartRefused 'failed'). */
  failRow(row: LoopRow, err: unknown): StartRefused;
}

/**
 * Takes one orphaned loop over; undefined when it ended (or failed) at once. Throws
 * StartRefused when another process won it, or when it failed here.
 */
export function adoptOrphan(orphan: LoopRow, h: AdoptionHost): Loop | undefined {
  const at = new Date(h.now).toISOString();
  // Compare-and-swap on the old owner: of two adopters, exactly one wins.
  if (!h.store.loops.claim(orphan, { ownerPid: h.pid, ownerHost: h.host, ownerHeartbeatAt: at })) {
    throw new StartRefused('conflict', `${orphan.taskName}: another autodeck is taking this loop over`);
  }
  const row = h.store.loops.get(orphan.session) ?? orphan;
  try {
    return takeOver(orphan, row, h);
  } catch (err) {
    // claimed, so this process's now: never left running with no loop here to run it
    if (err instanceof StartRefused || isTransientWriteError(err)) throw err;
    throw h.failRow(row, err);
  }
}

function takeOver(orphan: LoopRow, row: LoopRow, h: AdoptionHost): Loop | undefined {
  const from = { pid: orphan.ownerPid, host: orphan.ownerHost };
  // A tmux agent outlives its supervisor: watch it again rather than start a second one.
  const survivor = orphan.backend === 'tmux' ? attachTmuxSession(tmuxSessionName(orphan.session), h.tmux) : undefined;
  if (survivor && !survivor.exited) {
    let loop: Loop;
    try {
      loop = h.makeLoop(row);
    } catch (err) {
      survivor.detach?.();
      throw err;
    }
    h.record(row, 'recovered', { from, status: orphan.status, action: 'reattach', agentPid: survivor.pid });
    if (row.status !== 'stopping') removeIfPresent(join(row.taskDir, STOP_FILE));
    loop.reattach(survivor);
    h.changed();
    return loop;
  }
  survivor?.dispose(); // its agent has exited: the pane goes, the loop is adopted as below
  // A pty agent dies with its owner; one that survived (ignoring SIGHUP) cannot be watched again.
  const killed = orphan.ownerHost === h.host && orphan.backend !== 'tmux' && killOrphanAgent(orphan.agentPid, orphan.session);
  const plan = planAdoption(orphan, (orphan.settings as Partial<StoredLoopSettings>).restartLimit ?? h.restartLimit);
  const loop = h.makeLoop(row);
  h.record(row, 'recovered', { from, status: orphan.status, action: plan.action, killedOrphanAgent: killed });
  if (plan.action === 'finish') {
    loop.finishOrphan();
    return undefined;
  }
  if (plan.action === 'fail') {
    loop.failOrphan(plan.restartCount);
    return undefined;
  }
  removeIfPresent(join(row.taskDir, STOP_FILE)); // stale: nobody is stopping this loop now
  loop.resume({ restartCount: plan.restartCount });
  h.changed();
  return loop;
}
