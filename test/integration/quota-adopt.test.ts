import { afterEach, describe, expect, it } from 'vitest';
import { startCli, runFlags, type CliRun } from '../helpers/cli.js';
import { loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { eventsAt } from '../faults/helpers/loops.js';
import { killTmuxServer, tmuxAvailable } from '../../src/sessions/tmuxServer.js';

// A loop in a quota wait whose owner dies (kill -9) is adopted by another `run`: the reset
// time the agent named was stored with the wait (task_auto.quota_reset_at), so the adopter
// waits for it, as the first owner would have, instead of probing the agent at once and then
// every quotaProbeMinutes. tmux backend: the agent outlives its owner, still in its wait.
// Real processes, a real SQLite file.

const tmux = tmuxAvailable();
let ws: Workspace | undefined;
let socket = '';
const children: CliRun[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.child.exitCode === null && c.child.signalCode === null) {
      c.child.kill('SIGKILL');
      await c.exited;
    }
  }
  if (socket) killTmuxServer({ socket });
  ws?.cleanup();
});

describe.runIf(tmux.ok)('a quota wait adopted from a dead owner', () => {
  it('keeps the stored reset time: no probe before it, resumed once it passed', async () => {
    ws = makeWorkspace('autodeck-quota-adopt-');
    socket = `autodeck-quota-adopt-${process.pid}-${Date.now()}`;
    ws.env.AUTODECK_TMUX_SOCKET = socket;
    // The agent names a reset 55 s before it prints the message, so that with autodeck's
    // one-minute margin (QUOTA_RESET_MARGIN_MS) the wait ends ~5 s after it began; then it
    // waits (up to 10 min) for a line.
    const dir = ws.module('waits', { scenario: { stepSeconds: 0.15, steps: 3, quota: { atIteration: 2, message: 'Claude AI usage limit reached|{epoch-55}', seconds: 600 } } });
    // Probes every 0.6 s if the adopter probed: a probe would come at once and again and again.
    const flags = runFlags(ws, ['--backend', 'tmux', '--quota-probe', '0.01', '--max-iterations', '10']);
    const first = startCli(ws, ['run', dir, ...flags]);
    children.push(first);
    const began = await waitFor(() => eventsAt(ws!.db, dir).find((e) => e.kind === 'quota_wait'), 'the quota wait', 30_000);
    const resetAt = began.detail.resetAt;
    expect(resetAt).toEqual(expect.any(String));
    // Stored with the wait, where an adopter reads it.
    await waitFor(() => loopRow(ws!.db, dir)?.status === 'quota_wait', 'the row in quota_wait');
    expect(loopRow(ws.db, dir)).toMatchObject({ quota_reset_at: resetAt });
    first.child.kill('SIGKILL');
    await first.exited;

    const adopter = startCli(ws, ['run', dir, ...flags]);
    children.push(adopter);
    await waitFor(() => loopRow(ws!.db, dir)?.owner_pid === adopter.child.pid, 'the adopter owning the loop', 30_000);
    const resumed = await waitFor(() => eventsAt(ws!.db, dir).find((e) => e.kind === 'quota_resume'), 'the wait\'s end', 60_000);
    const code = await adopter.exited;

    const events = eventsAt(ws.db, dir);
    // No probe at all: the first owner knew the reset time, and so did the adopter.
    expect(events.filter((e) => e.kind === 'quota_wait' && e.detail.probe === true)).toEqual([]);
    expect(resumed.detail.why).toBe('reset time passed');
    // The signal the first owner applied was not applied again by the adopter (that would end the wait).
    expect(events.filter((e) => e.kind === 'signal' && e.detail.iteration === 1)).toHaveLength(1);
    expect(Date.parse(resumed.at)).toBeGreaterThanOrEqual(Date.parse(String(resetAt)));
    expect(code, adopter.stderr()).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
  });
});
