import { afterEach, describe, expect, it } from 'vitest';
import { startCli, runFlags } from '../helpers/cli.js';
import { loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { eventsAt, integrity, makeWorkspace, msBetween, type Workspace } from './helpers/loops.js';
import { alive, topAgentsOf } from './helpers/procs.js';
import { LONG, recordRow } from './helpers/results.js';

// Fault: the agent is SIGSTOPped (a silent hang). Must hold: the stall is detected
// within the configured bound (stallThreshold heartbeats); after SIGCONT the loop goes
// on with nothing lost or doubled (iterations strictly increasing, one agent); an agent
// that stays stopped is stopped by the stall limit, killed after the grace period.

let ws: Workspace;
afterEach(() => ws?.cleanup());

const FLAGS = ['--heartbeat', '0.25', '--max-iterations', '1000', '--stall-threshold', '2', '--recovery-per-iteration', '1', '--recovery-total', '1', '--grace', '1'];

describe('fault: agent SIGSTOPped and SIGCONTed', () => {
  it('a stop is a stall; after SIGCONT the loop completes, nothing lost or doubled', async () => {
    ws = makeWorkspace('autodeck-fault-');
    const dir = ws.module('frozen', { scenario: { stepSeconds: 0.3, steps: 4 } });
    const run = startCli(ws, ['run', dir, ...runFlags(ws, FLAGS)]);
    const row = await waitFor(() => { const r = loopRow(ws.db, dir); return r?.agent_pid && r.iteration_count >= 2 ? r : undefined; }, 'iteration 2');
    const stoppedAt = new Date().toISOString();
    process.kill(row.agent_pid!, 'SIGSTOP');
    const stall = await waitFor(() => eventsAt(ws.db, dir).find((e) => e.kind === 'stall' || e.kind === 'stall_unrecognized' || e.kind === 'recovery'), 'the stall');
    const agents = topAgentsOf(row.session_name);
    process.kill(row.agent_pid!, 'SIGCONT');
    const code = await run.exited;
    const events = eventsAt(ws.db, dir);
    const iterations = events.filter((e) => e.kind === 'signal').map((e) => e.detail.iteration as number);
    const strictlyUp = iterations.every((n, i) => i === 0 || n > iterations[i - 1]!);
    const [result] = runsOf(ws.db, dir);
    const pass = code === 0 && result?.outcome === 'complete' && strictlyUp && agents.length === 1;
    recordRow({ fault: 'agent SIGSTOP, SIGCONT after the stall', atRisk: 1, lost: result?.outcome === 'complete' ? 0 : 1, doubled: agents.length > 1 ? 1 : 0, pass,
      note: `stall seen ${msBetween(stoppedAt, stall.at)} ms after SIGSTOP (bound: 2 heartbeats of 250 ms)` });
    expect(code, run.stderr()).toBe(0);
    expect(result).toMatchObject({ outcome: 'complete' });
    expect(strictlyUp, iterations.join(',')).toBe(true);
    expect(agents).toEqual([row.agent_pid]);
    expect(integrity(ws.db)).toBe('ok');
  });

  // Long only: a stopped agent ignores SIGTERM, so its end waits out the 5 s before SIGKILL.
  it.runIf(LONG)('an agent that stays stopped is ended by the stall limit and killed after the grace period', async () => {
    ws = makeWorkspace('autodeck-fault-');
    const dir = ws.module('hung', { scenario: { stepSeconds: 0.3, steps: 4 } });
    const run = startCli(ws, ['run', dir, ...runFlags(ws, FLAGS)]);
    const row = await waitFor(() => { const r = loopRow(ws.db, dir); return r?.agent_pid && r.iteration_count >= 1 ? r : undefined; }, 'iteration 1');
    process.kill(row.agent_pid!, 'SIGSTOP');
    const code = await run.exited;
    const [result] = runsOf(ws.db, dir);
    const gone = !alive(row.agent_pid!);
    const pass = code === 1 && result?.outcome === 'stall_limit' && gone;
    recordRow({ fault: 'agent SIGSTOP, never continued', atRisk: 1, lost: 0, doubled: 0, pass, note: `outcome ${result?.outcome}${result?.forced ? ' (forced)' : ''}, agent ${gone ? 'gone' : 'STILL ALIVE'}` });
    expect(code, run.stderr()).toBe(1);
    expect(result).toMatchObject({ outcome: 'stall_limit' });
    expect(gone).toBe(true);
  });
});
