import { afterEach, describe, expect, it } from 'vitest';
import { type CliRun, killLeftovers, runFlags, startCli, startServe } from '../helpers/cli.js';
import { loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { killTmuxServer, tmuxAvailable } from '../../src/sessions/tmuxServer.js';
import { eventsAt, integrity, makeWorkspace, msBetween, type Workspace } from './helpers/loops.js';
import { topAgentsOf } from './helpers/procs.js';
import { recordRow, scale } from './helpers/results.js';

// Fault: the `run` that owns tmux loops is killed -9 while another supervisor (`serve`)
// keeps running. Must hold: the live supervisor adopts the orphans within a few
// heartbeats (re-attaching the same agents, no second one), so their limits keep
// holding: here each loop still stops at its max_iterations, ended by `serve`.

const tmux = tmuxAvailable();
let ws: Workspace;
let socket = '';
const children: CliRun[] = [];
afterEach(async () => {
  await killLeftovers(children);
  killTmuxServer({ socket });
  ws?.cleanup();
});

describe.runIf(tmux.ok)('fault: the owner of tmux loops dies while serve runs', () => {
  it('serve adopts the orphans within a few heartbeats; their limits hold; no agent doubled', async () => {
    const loops = scale(2, 5);
    ws = makeWorkspace('autodeck-fault-');
    socket = `autodeck-fault-${process.pid}-${Date.now()}`;
    ws.env.AUTODECK_TMUX_SOCKET = socket;
    const dirs = Array.from({ length: loops }, (_, i) => ws.module(`orphan${i}`, { scenario: { stepSeconds: 0.4, steps: 40 } }));
    const { run: serve } = await startServe(ws, children, ['--backend', 'tmux']);
    const run = startCli(ws, ['run', ...dirs, ...runFlags(ws, ['--backend', 'tmux', '--max-iterations', '4'])]);
    children.push(run);
    const rows = await waitFor(() => {
      const rs = dirs.map((d) => loopRow(ws.db, d));
      return rs.every((r) => r?.agent_pid && r.iteration_count >= 1) ? rs.map((r) => r!) : undefined;
    }, 'every loop running');
    const killedAt = new Date().toISOString();
    run.child.kill('SIGKILL');
    await run.exited;
    const adopted = await waitFor(() => {
      const rs = dirs.map((d) => loopRow(ws.db, d));
      return rs.every((r) => r === undefined || r.owner_pid === serve.child.pid) ? rs : undefined;
    }, 'serve owning every loop', 30_000);
    const doubled = rows.filter((r) => topAgentsOf(r.session_name).length > 1).length;
    // The limits keep holding: each loop ends at max_iterations under serve.
    await waitFor(() => dirs.every((d) => runsOf(ws.db, d).length === 1), 'every loop ended', 60_000);
    const outcomes = dirs.map((d) => runsOf(ws.db, d)[0]!.outcome);
    const recovered = dirs.map((d) => eventsAt(ws.db, d).find((e) => e.kind === 'recovered'));
    const delays = recovered.map((e) => (e ? msBetween(killedAt, e.at) : Infinity));
    const lost = outcomes.filter((o) => o !== 'max_iterations').length;
    const pass = lost === 0 && doubled === 0 && recovered.every((e) => e?.detail.action === 'reattach') && integrity(ws.db) === 'ok';
    recordRow({ fault: 'owner of tmux loops killed -9 while serve runs', atRisk: loops, lost, doubled, pass,
      note: `adopted ${Math.max(...delays)} ms after the kill at worst (heartbeat 500 ms); outcomes ${[...new Set(outcomes)].join(', ')}` });
    expect(adopted).toHaveLength(loops);
    expect(recovered.map((e) => e?.detail.action)).toEqual(Array(loops).fill('reattach'));
    expect(outcomes).toEqual(Array(loops).fill('max_iterations'));
    expect(doubled).toBe(0);
    expect(integrity(ws.db)).toBe('ok');
  });
});
