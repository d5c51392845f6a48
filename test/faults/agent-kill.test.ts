import { afterEach, describe, expect, it } from 'vitest';
import { startCli, runFlags } from '../helpers/cli.js';
import { loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { eventsAt, integrity, makeWorkspace, msBetween, type Workspace } from './helpers/loops.js';
import { topAgentsOf } from './helpers/procs.js';
import { recordRow, scale } from './helpers/results.js';

// Fault: the agent is SIGKILLed from outside, again and again. Must hold: each exit is
// seen (an agent_exit event), the agent is restarted per policy (a crash after progress
// does not count towards the limit), never two agents at once, and the loop still ends
// `complete` with every iteration.

let ws: Workspace;
afterEach(() => ws?.cleanup());

describe('fault: agent SIGKILLed from outside', () => {
  it('each kill is seen, the agent restarted, the loop completes', async () => {
    const kills = scale(2, 10);
    ws = makeWorkspace('autodeck-fault-');
    const dir = ws.module('victim', { scenario: { stepSeconds: 0.15, steps: kills * 2 + 2 } });
    const run = startCli(ws, ['run', dir, ...runFlags(ws, ['--max-iterations', '1000', '--restart-limit', '2'])]);
    let doubled = 0;
    const killedAt: number[] = [];
    const session = (await waitFor(() => loopRow(ws.db, dir), 'the loop row')).session_name;
    for (let k = 0; k < kills; k++) {
      // Wait for progress since the last restart, so each kill is a crash after progress.
      const row = await waitFor(() => {
        const r = loopRow(ws.db, dir);
        return r?.agent_pid && r.iteration_count >= 2 * k + 1 ? r : undefined;
      }, `progress before kill ${k + 1}`);
      if (topAgentsOf(session).length > 1) doubled++;
      killedAt.push(Date.now());
      process.kill(row.agent_pid!, 'SIGKILL');
      await waitFor(() => eventsAt(ws.db, dir).filter((e) => e.kind === 'restart').length >= k + 1, `restart ${k + 1}`);
    }
    const code = await run.exited;
    const events = eventsAt(ws.db, dir);
    const exits = events.filter((e) => e.kind === 'agent_exit' && e.detail.signal === 9);
    // How long after each kill the supervisor logged the exit (a figure, not a pass criterion).
    const seenMs = exits.map((e, i) => msBetween(new Date(killedAt[i] ?? 0).toISOString(), e.at));
    const [result] = runsOf(ws.db, dir);
    const pass = code === 0 && result?.outcome === 'complete' && exits.length === kills && doubled === 0 && integrity(ws.db) === 'ok';
    recordRow({
      fault: `agent SIGKILL x${kills}`, atRisk: 1, lost: result?.outcome === 'complete' ? 0 : 1, doubled, pass,
      note: `exit seen ${Math.max(...seenMs)} ms after the kill at worst (heartbeat 500 ms)`,
    });
    expect(code, run.stderr()).toBe(0);
    expect(result).toMatchObject({ outcome: 'complete', restarts: kills });
    expect(exits).toHaveLength(kills);
    expect(events.filter((e) => e.kind === 'restart').map((e) => e.detail.attempt)).toEqual(Array(kills).fill(1));
    expect(doubled).toBe(0);
    expect(integrity(ws.db)).toBe('ok');
  });
});
