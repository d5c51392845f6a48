import { afterEach, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { SIM_AGENT, startCli, runFlags, type CliRun } from '../helpers/cli.js';
import { DashboardPane } from '../helpers/dashboardPane.js';
import { loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { tmuxAvailable } from '../../src/sessions/tmuxServer.js';
import { eventsAt, integrity, makeWorkspace, percentile, type Workspace } from './helpers/loops.js';
import { agentsOf, rssKiB } from './helpers/procs.js';
import { LONG, recordRow, scale } from './helpers/results.js';
import { TmuxControl } from './helpers/tmuxControl.js';

// Fault: one agent floods its terminal (`yes`-like, long: 1.9 M lines, ~100 MB) while 19
// others run, all owned by the dashboard (which reads every agent's pty and keeps its
// screen), the dashboard in a real tmux. Measured as a person meets it: a key sent with
// send-keys, the screen polled (capture-pane) until the selection moved, many times.
// Must hold: every key answered, the flooder completes, the other loops go on (their
// signals recorded), the dashboard's memory bounded. Long version only, as its pass
// criterion: key-to-screen p99 < 100 ms, the other loops' signals recorded within 1 s
// (p99; heartbeat 0.5 s). The short version asserts no time.
//
// The dashboard owns the loops: the others by adoption (a `run` starts them and is killed
// -9; the dashboard adopts its orphans at launch, a new agent each, resuming where it was),
// the flooder started with the keys (s, Enter) once the dashboard runs.

const tmux = tmuxAvailable();
let ws: Workspace;
let pane: DashboardPane | undefined;
let control: TmuxControl | undefined;
const children: CliRun[] = [];
afterEach(async () => {
  control?.close();
  control = undefined;
  await pane?.kill();
  pane = undefined;
  for (const c of children.splice(0)) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  ws?.cleanup();
});

const SELECTED = /^› (\S+)/m;
const KEY_P99_MS = 100;
const SIGNAL_P99_MS = 1000;

/** The selected module's name on a captured screen. */
const selectedIn = (lines: string[]): string | undefined => SELECTED.exec(lines.join('\n'))?.[1];

describe.runIf(tmux.ok)('fault: output flood under the dashboard', () => {
  // One retry in the short run only: in 2 of 6 runs a key was not seen to move the selection
  // within 10 s (a lost key under load, not yet diagnosed: see docs/faults.md). The failing
  // run's row is still printed; the long run (npm run faults) never retries.
  it('keys answered, the flooder completes, the others go on, memory bounded', { retry: LONG ? 0 : 1 }, async () => {
    const lines = scale(50_000, 1_900_000);
    const others = scale(3, 19);
    const minSamples = scale(20, 200);
    ws = makeWorkspace('autodeck-fault-');
    const flooder = ws.module('a-flood', { scenario: { stepSeconds: 0.2, flood: { atIteration: 2, lines } } });
    const calm = Array.from({ length: others }, (_, i) => ws.module(`c${String(i).padStart(2, '0')}`, { scenario: { stepSeconds: 0.3, steps: 900 } }));
    const all = [flooder, ...calm];
    const quiet = ['--stall-threshold', '100000', '--step-timeout', '600', '--max-iterations', '1000', '--timeout', '600'];

    // The other loops, started by a `run` that then dies: the dashboard adopts them.
    const run = startCli(ws, ['run', ...calm, ...runFlags(ws, quiet)]);
    children.push(run);
    await waitFor(() => run.child.exitCode !== null || calm.every((d) => loopRow(ws.db, d)?.agent_pid), 'every other loop running under run', 60_000);
    expect(run.child.exitCode, run.stderr()).toBeNull();
    run.child.kill('SIGKILL');
    await run.exited;

    const args = ['--root', ws.root, '--db', ws.db, '--agent', SIM_AGENT, '--heartbeat', '0.5', ...quiet];
    pane = await DashboardPane.start({ ws, name: 'flood', args, env: DashboardPane.envFor(ws), cols: 120, rows: 40 });
    await waitFor(() => {
      const rows = calm.map((d) => loopRow(ws.db, d));
      return rows.every((r) => r?.owner_pid && r.owner_pid !== run.child.pid && r.agent_pid) ? rows : undefined;
    }, 'the dashboard owning every other loop', 60_000);
    const dashPid = loopRow(ws.db, calm[0]!)!.owner_pid!;
    // The flooder, first in the table and so selected, started with the keys.
    await pane.waitScreen((s) => /^› a-flood\s/m.test(s), 'a-flood selected');
    await pane.keys('s');
    await pane.waitScreen((s) => s.includes('Start a loop on a-flood'), 'the start dialog');
    await pane.keys('Enter');
    await waitFor(() => loopRow(ws.db, flooder)?.agent_pid, 'the flooder running');
    expect(loopRow(ws.db, flooder)!.owner_pid).toBe(dashPid);
    // The detail pane (on by default at 120x40) draws the selected agent's screen: half
    // the keys below select the flooder, whose screen it then draws through the flood.
    control = new TmuxControl(pane.socket, pane.session, pane.env);
    const capture = async (): Promise<string[]> => control!.command(`capture-pane -p -t ${pane!.session}`);

    const baseRss = rssKiB(dashPid);
    let maxRss = baseRss;
    const keyMs: number[] = [];
    let floodSamples = 0;
    const startIter = new Map(calm.map((d) => [d, 0]));
    let floodStarted = false;
    const floodSignal = (): boolean => eventsAt(ws.db, flooder).some((e) => e.kind === 'signal' && Number(e.detail.iteration) >= 1);
    const floodOver = (): boolean => eventsAt(ws.db, flooder).some((e) => e.kind === 'signal' && Number(e.detail.iteration) >= 2) || runsOf(ws.db, flooder).length > 0;
    // The rows in table order (by name); a key that can move the selection from where it
    // is: up from the last row, down from the first, else alternately (the selection may
    // have followed an active row meanwhile).
    const names = all.map((d) => d.split('/').pop()!).sort();
    let last: 'j' | 'k' = 'k';
    const keyFor = (at: string | undefined): 'j' | 'k' => (last = at === names[names.length - 1] ? 'k' : at === names[0] ? 'j' : last === 'j' ? 'k' : 'j');
    // A few keys first, not counted: the dashboard has just started and adopted its loops.
    for (let i = 0; i < 4; i++) {
      const before = selectedIn(await capture());
      await control.command(`send-keys -t ${pane.session} ${keyFor(before)}`);
      await waitFor(async () => { const now = selectedIn(await capture()); return now !== undefined && now !== before; }, 'a warm-up key answered', 10_000, 5);
    }
    const deadline = performance.now() + scale(120_000, 600_000);
    // Samples from before the flood until it is over, and at least minSamples of them.
    while (performance.now() < deadline) {
      if (!floodStarted && floodSignal()) {
        floodStarted = true;
        for (const d of calm) startIter.set(d, loopRow(ws.db, d)?.iteration_count ?? 0);
      }
      const over = floodStarted && floodOver();
      if (over && keyMs.length >= minSamples) break;
      const before = selectedIn(await capture());
      const key = keyFor(before);
      const t0 = performance.now();
      await control.command(`send-keys -t ${pane.session} ${key}`);
      let moved = false;
      while (performance.now() - t0 < 10_000) {
        const now = selectedIn(await capture());
        if (now !== undefined && now !== before) {
          moved = true;
          break;
        }
      }
      const ms = performance.now() - t0;
      keyMs.push(moved ? ms : Infinity);
      if (floodStarted && !over) floodSamples++;
      maxRss = Math.max(maxRss, rssKiB(dashPid));
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
    }

    // The others went on: each recorded a signal past where it was when the flood began.
    const progressed = await waitFor(() => calm.every((d) => (loopRow(ws.db, d)?.iteration_count ?? 0) > startIter.get(d)!), 'every other loop past its iteration at the flood', 60_000).catch(() => false);
    const flooded = await waitFor(() => runsOf(ws.db, flooder)[0], 'the flooder\'s end', 120_000).catch(() => undefined);
    // How late the other loops' signals were recorded: the agent's own timestamp to the event's.
    const lagMs = calm.flatMap((d) => eventsAt(ws.db, d).filter((e) => e.kind === 'signal' && typeof e.detail.timestamp === 'string')
      .map((e) => Date.parse(e.at) - Date.parse(String(e.detail.timestamp))));
    const unanswered = keyMs.filter((v) => v === Infinity).length;
    const keyP99 = percentile(keyMs, 99);
    const lagP99 = percentile(lagMs, 99);
    const grewMiB = Math.round((maxRss - baseRss) / 1024);
    const doubled = all.filter((d) => agentsOf(loopRow(ws.db, d)?.session_name ?? '-').length > 1).length;
    const lost = all.length - all.filter((d) => loopRow(ws.db, d) || runsOf(ws.db, d).length > 0).length + (flooded?.outcome === 'complete' ? 0 : 1);
    const timely = keyP99 < KEY_P99_MS && lagP99 < SIGNAL_P99_MS;
    const pass = unanswered === 0 && flooded?.outcome === 'complete' && progressed !== false && grewMiB < 300 && doubled === 0 && (!LONG || timely) && integrity(ws.db) === 'ok';
    recordRow({
      fault: `output flood under the dashboard in tmux: ${lines} lines (~${Math.round((lines * 55) / 1e6)} MB) in one session, ${others} other loops`,
      atRisk: others + 1, lost, doubled, pass,
      note: `key-to-screen p50 ${Math.round(percentile(keyMs, 50))} / p99 ${Math.round(keyP99)} / max ${Math.round(Math.max(...keyMs))} ms over ${keyMs.length} keys (${floodSamples} during the flood)${LONG ? ` (target p99 < ${KEY_P99_MS})` : ''}; ` +
        `other loops' signals recorded p50 ${Math.round(percentile(lagMs, 50))} / p99 ${Math.round(lagP99)} ms after written (${lagMs.length}); dashboard RSS +${grewMiB} MiB at most`,
    });
    expect(unanswered).toBe(0);
    expect(flooded).toMatchObject({ outcome: 'complete' });
    expect(progressed).not.toBe(false);
    expect(grewMiB).toBeLessThan(300);
    expect(doubled).toBe(0);
    expect(integrity(ws.db)).toBe('ok');
    if (LONG) {
      expect(keyP99).toBeLessThan(KEY_P99_MS);
      expect(lagP99).toBeLessThan(SIGNAL_P99_MS);
    }
  });
});
