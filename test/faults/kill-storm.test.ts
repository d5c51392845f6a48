import { afterEach, describe, expect, it } from 'vitest';
import { type CliRun, killLeftovers, runCli, runFlags, startCli } from '../helpers/cli.js';
import { loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { killTmuxServer, tmuxAvailable } from '../../src/sessions/tmuxServer.js';
import { integrity, iterationOf, makeWorkspace, type Workspace } from './helpers/loops.js';
import { alive, topAgentsOf } from './helpers/procs.js';
import { rng } from './helpers/hostile.js';
import { recordRow, scale } from './helpers/results.js';

// Fault: the supervisor is SIGKILLed at random moments, many times in a row, and each
// time two new supervisors race to adopt the loop. Must hold (both backends): the loop is
// never lost or doubled (never two agents alive for the module, exactly one adopter
// wins), its iteration never goes backwards, `PRAGMA integrity_check` is ok, and when
// finally stopped it ends once, with its true outcome.

const tmux = tmuxAvailable();
let ws: Workspace;
let socket = '';
const children: CliRun[] = [];
afterEach(async () => {
  await killLeftovers(children);
  if (socket) killTmuxServer({ socket });
  ws?.cleanup();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

for (const backend of ['pty', 'tmux'] as const) {
  describe.runIf(backend === 'pty' || tmux.ok)(`fault: kill -9 storm with racing adopters (${backend})`, () => {
    it('none lost, none doubled, iteration never backwards, integrity ok, one true outcome', async () => {
      const rounds = scale(1, 25);
      const rand = rng(backend === 'pty' ? 1 : 2);
      ws = makeWorkspace('autodeck-fault-');
      socket = backend === 'tmux' ? `autodeck-storm-${process.pid}-${Date.now()}` : '';
      if (socket) ws.env.AUTODECK_TMUX_SOCKET = socket;
      const dir = ws.module('stormy', { scenario: { stepSeconds: 0.15, steps: 1000 } });
      const flags = runFlags(ws, ['--backend', backend, '--max-iterations', '1000', '--restart-limit', '1000']);
      const launch = (): CliRun => {
        const c = startCli(ws, ['run', dir, ...flags]);
        children.push(c);
        return c;
      };
      let owner = launch();
      const session = (await waitFor(() => { const r = loopRow(ws.db, dir); return r?.agent_pid ? r : undefined; }, 'the first agent')).session_name;

      // Watch all along: agents alive for the session, and the iteration.
      let doubled = 0;
      let backwards = 0;
      let last = 0;
      const watch = setInterval(() => {
        if (topAgentsOf(session).length > 1) doubled++;
        const n = iterationOf(ws.db, dir);
        if (n !== undefined && n < last) backwards++;
        if (n !== undefined) last = Math.max(last, n);
      }, 30);

      let conflicts = 0;
      try {
        for (let r = 0; r < rounds; r++) {
          await sleep(Math.floor(rand() * 600)); // a random moment: mid-step, mid-write, mid-adoption
          owner.child.kill('SIGKILL');
          await owner.exited;
          const before = iterationOf(ws.db, dir) ?? 0;
          const racers = [launch(), launch()];
          // Exactly one adopts; the other is refused as a conflict (exit 3) or, arriving
          // after the winner's row is fresh, also a conflict.
          const winner = await waitFor(() => {
            const row = loopRow(ws.db, dir);
            return racers.find((c) => c.child.pid === row?.owner_pid && row?.agent_pid && alive(row.agent_pid));
          }, `round ${r + 1}: an adopter`, 30_000);
          const loser = racers.find((c) => c !== winner)!;
          const code = await loser.exited;
          if (code === 3) conflicts++;
          owner = winner;
          // Progress under the new owner before the next kill.
          await waitFor(() => (iterationOf(ws.db, dir) ?? 0) > before, `round ${r + 1}: progress`, 30_000);
        }
      } finally {
        clearInterval(watch);
      }
      const stop = await runCli(ws, ['stop', dir, '--db', ws.db, '--root', ws.root]);
      const code = await owner.exited;
      const runs = runsOf(ws.db, dir);
      const gone = topAgentsOf(session).length === 0;
      const ok = integrity(ws.db);
      const pass = runs.length === 1 && runs[0]!.outcome === 'user_stop' && doubled === 0 && backwards === 0 && conflicts === rounds && ok === 'ok' && gone;
      recordRow({ fault: `supervisor kill -9 storm, 2 racing adopters each time (${backend}), ${rounds} rounds`, atRisk: 1,
        lost: runs.length === 0 ? 1 : 0, doubled: doubled > 0 || runs.length > 1 ? 1 : 0, pass,
        note: `${conflicts}/${rounds} races: one winner; iteration ${runs[0]?.iterations}, never backwards: ${backwards === 0}; integrity ${ok}` });
      expect(stop.code, stop.stderr).toBe(0);
      expect(code, owner.stderr()).toBe(1);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ outcome: 'user_stop' });
      expect(conflicts).toBe(rounds);
      expect(doubled).toBe(0);
      expect(backwards).toBe(0);
      expect(ok).toBe('ok');
      expect(gone).toBe(true);
    });
  });
}
