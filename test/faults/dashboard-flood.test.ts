import { afterEach, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIM_AGENT, startCli, runFlags, type CliRun } from '../helpers/cli.js';
import { DashboardPane } from '../helpers/dashboardPane.js';
import { loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { tmuxAvailable } from '../../src/sessions/tmuxServer.js';
import { eventsAt, integrity, makeWorkspace, percentile, type Workspace } from './helpers/loops.js';
import { agentsOf, rssKiB } from './helpers/procs.js';
import { LONG, recordRow, scale } from './helpers/results.js';
import { TmuxControl } from '../helpers/tmuxControl.js';
import { keyTimeSplit } from './helpers/keyTrace.js';

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
  it('keys answered, the flooder completes, the others go on, memory bounded', async () => {
    // A medium size for iterating on latency (FAULTS_FLOOD_LINES, _OTHERS, _KEYS), measured as the short run: no time asserted.
    const sized = (name: string, short: number, long: number): number => Number(process.env[`FAULTS_FLOOD_${name}`]) || scale(short, long);
    const lines = sized('LINES', 50_000, 1_900_000);
    const others = sized('OTHERS', 3, 19);
    const minSamples = sized('KEYS', 20, 200);
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
    // Every step of every key, the dashboard's (bytes read, key handed to Ink, command run,
    // frame written) and the test's (key sent, screen seen), in one file: a key not answered
    // fails with its story.
    const trace = join(ws.dir, 'key-trace.log');
    const note = (what: string): void => appendFileSync(trace, `${(performance.timeOrigin + performance.now()).toFixed(1)} test ${what}\n`);
    /** The trace from a little before the last key sent, frames that changed nothing left out; the whole file kept in the temp folder. */
    const story = (): string => {
      if (!existsSync(trace)) return '(no trace)';
      const text = readFileSync(trace, 'utf8');
      const kept = join(tmpdir(), `autodeck-key-trace-${process.pid}-${Date.now()}.log`);
      writeFileSync(kept, text);
      const all = text.split('\n');
      let from = all.length - 1;
      while (from > 0 && !/ test send /.test(all[from]!)) from--;
      const lines = all.slice(Math.max(0, from - 15));
      return [...lines.filter((l, i) => i < 40 || !/ frame /.test(l)).slice(0, 120), `(whole trace: ${kept})`].join('\n');
    };
    // FAULTS_FLOOD_DASH_ENV='K=V K2=V2': more variables for the dashboard, for A/B runs (AUTODECK_V8_DEFAULTS=1, say).
    const extraEnv = Object.fromEntries((process.env.FAULTS_FLOOD_DASH_ENV ?? '').split(/\s+(?=[A-Z_]+=)/).filter((kv) => kv.includes('=')).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    pane = await DashboardPane.start({ ws, name: 'flood', args, env: DashboardPane.envFor(ws, { ...extraEnv, AUTODECK_KEY_TRACE: trace }), cols: 120, rows: 40 });
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
    // The rows in table order (by name). Only keys move the selection (the dashboard does
    // not follow active rows), so the test knows where it is: each key's target row is
    // known, and a key is answered when the screen shows exactly that row selected. Not
    // "any change": a frame drawn late for the previous key would pass for this key's
    // answer, and the next key, chosen from a screen one key behind, could undo its
    // predecessor and leave the screen where the test thought it already was (the flake of
    // 23 Nov, seen in the key trace: every key was read and handled, the test misread).
    const names = all.map((d) => d.split('/').pop()!).sort();
    let at = names[0]!; // confirmed on screen below, before the first key
    let last: 'j' | 'k' = 'k';
    const missed: string[] = [];
    /** Sends a key that moves the selection (up from the last row, down from the first, else alternately) and waits (10 s at most) for the screen to show its target: ms, or Infinity. */
    const press = async (): Promise<number> => {
      const i = names.indexOf(at);
      const key = (last = i === names.length - 1 ? 'k' : i === 0 ? 'j' : last === 'j' ? 'k' : 'j');
      const target = names[i + (key === 'j' ? 1 : -1)]!;
      const t0 = performance.now();
      note(`send ${key} (selected ${at}, expect ${target})`);
      await control!.command(`send-keys -t ${pane!.session} ${key}`);
      let seen: string | undefined;
      let screen: string[] = [];
      while (performance.now() - t0 < 10_000) {
        screen = await capture();
        const now = selectedIn(screen);
        if (now !== seen) note(`seen ${now ?? '-'}`);
        seen = now;
        if (now === target) {
          at = target;
          return performance.now() - t0;
        }
      }
      missed.push(`key ${key} not answered in 10 s (selected ${at}, expected ${target}, seen ${seen ?? '-'})\n--- trace ---\n${story()}\n--- screen ---\n${screen.join('\n')}`);
      if (seen !== undefined) at = seen;
      return Infinity;
    };
    // The table back after the start dialog, the flooder selected: where the keys start.
    await waitFor(async () => selectedIn(await capture()) === at, 'the table back, a-flood selected', 30_000, 20);
    // A few keys first, not counted: the dashboard has just started and adopted its loops.
    for (let i = 0; i < 4; i++) if ((await press()) === Infinity) throw new Error(missed[0]);
    const deadline = performance.now() + scale(120_000, 600_000);
    // Samples from before the flood until it is over, and at least minSamples of them.
    while (performance.now() < deadline) {
      if (!floodStarted && floodSignal()) {
        floodStarted = true;
        for (const d of calm) startIter.set(d, loopRow(ws.db, d)?.iteration_count ?? 0);
      }
      const over = floodStarted && floodOver();
      if (over && keyMs.length >= minSamples) break;
      keyMs.push(await press());
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
    // FAULTS_KEY_TRACE_OUT=FILE keeps the key trace (where each key's time went).
    const traced = existsSync(trace) ? readFileSync(trace, 'utf8') : '';
    if (process.env.FAULTS_KEY_TRACE_OUT) writeFileSync(process.env.FAULTS_KEY_TRACE_OUT, traced);
    const split = keyTimeSplit(traced);
    recordRow({
      fault: `output flood under the dashboard in tmux: ${lines} lines (~${Math.round((lines * 55) / 1e6)} MB) in one session, ${others} other loops`,
      atRisk: others + 1, lost, doubled, pass,
      note: `key-to-screen p50 ${Math.round(percentile(keyMs, 50))} / p99 ${Math.round(keyP99)} / max ${Math.round(Math.max(...keyMs))} ms over ${keyMs.length} keys (${floodSamples} during the flood)${LONG ? ` (target p99 < ${KEY_P99_MS})` : ''}, of which waiting to be read p50 ${split.read[0]} / p99 ${split.read[1]} ms, drawing p50 ${split.draw[0]} / p99 ${split.draw[1]} ms; ` +
        `other loops' signals recorded p50 ${Math.round(percentile(lagMs, 50))} / p99 ${Math.round(lagP99)} ms after written (${lagMs.length}); dashboard RSS +${grewMiB} MiB at most`,
    });
    expect(unanswered, missed[0]).toBe(0);
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
