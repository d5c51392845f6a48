import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { http } from '../helpers/http.js';
import { fileURLToPath } from 'node:url';
import { killTmuxServer, tmuxAvailable } from '../../src/sessions/tmuxServer.js';
import { COMMANDS, keyDescription } from '../../src/keymap.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, SIM_AGENT } from '../helpers/cli.js';
import { DashboardPane } from '../helpers/dashboardPane.js';
import { waitFor } from '../helpers/wait.js';

// The dashboard as a person uses it: the real CLI (`autodeck` with a terminal) in a pane
// of a private tmux server, keys through send-keys, the screen through capture-pane, and
// what the dashboard did checked again through `status --json` / `log --json` on its
// database. Each test has its own workspace and tmux server, both gone after it.

const tmux = tmuxAvailable();
if (!tmux.ok) console.warn(`dashboard e2e tests skipped: ${tmux.message}`);

const DIST_CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));
const COLS = 120;
const ROWS = 40;

/** The title line, the first of every frame: `autodeck · host vm · 2 modules  ▶ 1 running`, in a side pane `autodeck ▶1 ·1 · vm`. */
const TITLE = /^autodeck(?: · host \S+ · \d+ modules?\b|(?: \S\d+)* · \S)/;
/** Footer items present at every width (the side pane leaves out the rest). */
const FOOTER = '? help';

/**
 * The frame fits the pane: as many lines as the pane is tall, the title on the first line
 * and nowhere else, the footer the last line written and only once. A frame taller than
 * the terminal makes Ink clear the screen and scroll: the title would go missing or show
 * twice, the footer likewise.
 */
function expectFrame(lines: string[], rows: number, cols: number): void {
  const screen = lines.join('\n');
  expect(lines.length, screen).toBe(rows);
  expect(lines[0], screen).toMatch(TITLE);
  expect(lines.filter((l) => TITLE.test(l)).length, screen).toBe(1);
  const written = lines.map((l, i) => (l.trim() ? i : -1)).filter((i) => i >= 0);
  const last = written[written.length - 1]!;
  expect(lines[last], screen).toContain(FOOTER);
  expect(lines.filter((l) => l.includes(FOOTER)).length, screen).toBe(1);
  for (const l of lines) expect([...l].length, `line wider than ${cols}: ${l}`).toBeLessThanOrEqual(cols);
}

/** A module's row: `› name  ▶ running  2/3 …` (selected or not). */
function rowOf(screen: string, name: string): string | undefined {
  return screen.split('\n').find((l) => new RegExp(`^[› ] (↗ )?${name} `).test(l));
}

/** The value shown in a start-dialog field, or undefined while the dialog is not up. */
function fieldValue(screen: string, label: string): string | undefined {
  const m = new RegExp(`${label} +([^ │]*) *│`).exec(screen);
  return m ? m[1] : undefined;
}

interface Status {
  loops: { taskName: string; status: string; maxIterations: number; restartCount: number; owner: { pid: number } }[];
  recent: { taskName: string; outcome: string; iterations: number }[];
}

async function status(ws: Workspace): Promise<Status> {
  const r = await runCli(ws, ['status', '--json', '--db', ws.db]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Status;
}

interface LoggedEvent {
  kind: string;
  taskDir: string;
  detail: Record<string, unknown>;
}

async function events(ws: Workspace): Promise<LoggedEvent[]> {
  const r = await runCli(ws, ['log', '--json', '--last', '500', '--db', ws.db]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as LoggedEvent);
}

/** Any SGR that sets a colour: 30-37, 40-47, 90-97, 100-107, or 38/48 (256 colours, RGB). */
function colourCodes(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\x1b\[([0-9;:]*)m/g)) {
    const params = m[1]!.split(/[;:]/).map(Number);
    if (params.some((p) => (p >= 30 && p <= 37) || (p >= 40 && p <= 47) || (p >= 90 && p <= 97) || (p >= 100 && p <= 107) || p === 38 || p === 48)) {
      found.push(JSON.stringify(m[0]));
    }
  }
  return found;
}

describe.skipIf(!tmux.ok)('the dashboard in a real terminal (tmux)', () => {
  let ws: Workspace | undefined;
  const panes: DashboardPane[] = [];
  const agentSockets: string[] = [];

  beforeAll(() => {
    if (!existsSync(DIST_CLI)) throw new Error('dist/ is not built: run "npm run build" (npm test does)');
  });

  afterEach(async () => {
    // The dashboards first: a hangup makes them suspend their loops and end their pty agents.
    for (const p of panes.splice(0)) await p.kill();
    for (const s of agentSockets.splice(0)) killTmuxServer({ socket: s });
    try {
      ws?.cleanup();
    } catch {
      // An agent's last write raced the removal: once more.
      await new Promise((r) => setTimeout(r, 500));
      ws?.cleanup();
    }
    ws = undefined;
  });

  function dashboardArgs(w: Workspace, extra: string[] = []): string[] {
    // A stall threshold out of reach: a slow step is not a stall here, and stall recovery
    // (keys typed at the agent, an exit command) stays out of what these tests look at.
    return ['--root', w.root, '--db', w.db, '--agent', SIM_AGENT, '--heartbeat', '0.5', '--stall-threshold', '1000', ...extra];
  }

  async function open(name: string, opts: { modules: Record<string, Record<string, unknown>>; extraArgs?: string[]; env?: Record<string, string>; cols?: number; rows?: number; stderrFile?: (w: Workspace) => string }): Promise<{ w: Workspace; pane: DashboardPane }> {
    const w = makeWorkspace('autodeck-dash-');
    ws = w;
    for (const [m, scenario] of Object.entries(opts.modules)) w.module(m, { scenario });
    const pane = await DashboardPane.start({
      ws: w, name, args: dashboardArgs(w, opts.extraArgs), env: DashboardPane.envFor(w, opts.env), cols: opts.cols ?? COLS, rows: opts.rows ?? ROWS,
      stderrFile: opts.stderrFile?.(w),
    });
    panes.push(pane);
    const first = Object.keys(opts.modules).sort()[0]!;
    await pane.waitScreen((s) => rowOf(s, first)?.startsWith('›') === true, 'the dashboard with the first module selected');
    return { w, pane };
  }

  /** `s`, then Enter on the prefilled defaults; waits for the loop to run. */
  async function startWithDefaults(pane: DashboardPane, name: string): Promise<void> {
    await pane.keys('s');
    await pane.waitScreen((s) => s.includes(`Start a loop on ${name}`) && fieldValue(s, 'max iterations') === '20', 'the start dialog');
    await pane.keys('Enter');
    await pane.waitScreen((s) => /▶ running\s+(?:[█▉▊▋▌▍▎▏░]{5} )?\d+\/20\b/.test(rowOf(s, name) ?? ''), `${name} running`);
  }

  it('starts a loop through the start dialog with maxIterations changed to 3, and shows it reach its limit', async () => {
    // CI=true in the user's shell must not freeze the dashboard (Ink would draw only its last frame)
    const { w, pane } = await open('start', { modules: { alpha: { stepSeconds: 0.5 }, beta: { stepSeconds: 5 } }, env: { CI: 'true' } });

    // j/k and the arrows move the selection.
    await pane.keys('j');
    await pane.waitScreen((s) => rowOf(s, 'beta')?.startsWith('›') === true && rowOf(s, 'alpha')?.startsWith(' ') === true, 'beta selected (j)');
    await pane.keys('Up');
    await pane.waitScreen((s) => rowOf(s, 'alpha')?.startsWith('›') === true, 'alpha selected (Up)');
    await pane.keys('Down');
    await pane.waitScreen((s) => rowOf(s, 'beta')?.startsWith('›') === true, 'beta selected (Down)');
    await pane.keys('k');
    await pane.waitScreen((s) => rowOf(s, 'alpha')?.startsWith('›') === true, 'alpha selected (k)');

    await pane.keys('s');
    let screen = await pane.waitScreen((s) => s.includes('Start a loop on alpha') && fieldValue(s, 'max iterations') !== undefined, 'the start dialog');
    expect(fieldValue(screen, 'max iterations')).toBe('20');
    expect(fieldValue(screen, 'timeout \\(minutes\\)')).toBe('30');
    expectFrame(screen.split('\n'), ROWS, COLS);

    // One key at a time, each seen on the screen before the next.
    await pane.keys('BSpace');
    await pane.waitScreen((s) => fieldValue(s, 'max iterations') === '2', 'the field after one Backspace');
    await pane.keys('BSpace');
    await pane.waitScreen((s) => fieldValue(s, 'max iterations') === '', 'the field emptied');
    await pane.type('3');
    await pane.waitScreen((s) => fieldValue(s, 'max iterations') === '3', 'the field reading 3');
    await pane.keys('Enter');

    // Running against a limit of 3, then ended by it.
    screen = await pane.waitScreen((s) => /▶ running\s+(?:[█▉▊▋▌▍▎▏░]{5} )?\d\/3\b/.test(rowOf(s, 'alpha') ?? ''), 'alpha running with the limit 3');
    expect(screen).toContain('started alpha: at most 3 iterations, 30 min');
    expectFrame(screen.split('\n'), ROWS, COLS);
    screen = await pane.waitScreen((s) => /■ max iter\s+(?:[█▉▊▋▌▍▎▏░]{5} )?\d\/3\b/.test(rowOf(s, 'alpha') ?? ''), 'alpha ended at its limit');
    const iterations = Number(/■ max iter\s+(?:[█▉▊▋▌▍▎▏░]{5} )?(\d)\/3\b/.exec(rowOf(screen, 'alpha')!)![1]);
    // After the stop file the agent finishes the step it is in: 3, or one more.
    expect(iterations === 3 || iterations === 4, rowOf(screen, 'alpha')).toBe(true);
    expect(rowOf(screen, 'beta')).toMatch(/· planning/);
    expectFrame(screen.split('\n'), ROWS, COLS);

    // The database says the same.
    const st = await status(w);
    expect(st.loops.find((l) => l.taskName === 'alpha')).toBeUndefined();
    expect(st.recent).toEqual([expect.objectContaining({ taskName: 'alpha', outcome: 'max_iterations', iterations })]);
    const log = (await events(w)).filter((e) => e.taskDir.endsWith('/alpha'));
    expect(log.find((e) => e.kind === 'started')?.detail).toMatchObject({ maxIterations: 3, timeoutMinutes: 30 });
    expect(log.find((e) => e.kind === 'ended')?.detail).toMatchObject({ outcome: 'max_iterations', iterations });
  }, 90_000);

  it('a hangup (tmux gone, as when the ssh link drops) is a quit in order: the loop is left for the next launch, nothing thrown', async () => {
    const errFile = (w: Workspace): string => join(w.dir, 'dashboard-stderr');
    const { w, pane } = await open('hangup', { modules: { slow: { stepSeconds: 5 } }, stderrFile: errFile });
    await startWithDefaults(pane, 'slow');
    await pane.kill(); // kill-server: the pane's terminal hangs up; waits for the dashboard to end
    const err = readFileSync(errFile(w), 'utf8');
    // Every write to the hung-up terminal fails with EIO: before, the first one was thrown.
    expect(err).not.toMatch(/EIO|throw err|at runDashboard/);
    expect(err).toMatch(/autodeck: left 1 loop for the next launch/);
  });

  it('stops a loop through the stop dialog (n cancels, y stops)', async () => {
    const { w, pane } = await open('stop', { modules: { slow: { stepSeconds: 5 } } });
    await startWithDefaults(pane, 'slow');

    await pane.keys('x');
    let screen = await pane.waitScreen((s) => s.includes('Stop slow?'), 'the stop dialog');
    expect(screen).toContain('The agent finishes its current step, then stops');
    expectFrame(screen.split('\n'), ROWS, COLS);
    await pane.keys('n');
    screen = await pane.waitScreen((s) => !s.includes('Stop slow?') && rowOf(s, 'slow') !== undefined, 'the dialog closed by n');
    expect(rowOf(screen, 'slow')).toMatch(/▶ running/);
    expect((await status(w)).loops).toEqual([expect.objectContaining({ taskName: 'slow', status: 'running' })]);

    await pane.keys('x');
    await pane.waitScreen((s) => s.includes('Stop slow?'), 'the stop dialog again');
    await pane.keys('y');
    screen = await pane.waitScreen((s) => /■ stopped\b/.test(rowOf(s, 'slow') ?? ''), 'slow stopped');
    expect(screen).toContain('stopping slow');
    expectFrame(screen.split('\n'), ROWS, COLS);

    const st = await status(w);
    expect(st.loops).toEqual([]);
    expect(st.recent).toEqual([expect.objectContaining({ taskName: 'slow', outcome: 'user_stop' })]);
    const log = (await events(w)).filter((e) => e.taskDir.endsWith('/slow'));
    expect(log.find((e) => e.kind === 'stop_requested')?.detail).toMatchObject({ reason: 'user_stop', force: false });
  }, 90_000);

  it('shows every key in the ? overlay; any key closes it; q without loops quits at once', async () => {
    const { pane } = await open('help', { modules: { alpha: {} } });
    await pane.keys('?');
    const screen = await pane.waitScreen((s) => s.includes('autodeck keys'), 'the help overlay');
    for (const c of COMMANDS) expect(screen, c.id).toContain(keyDescription(c));
    expect(screen).toContain('In dialogs');
    expect(screen).toMatch(/▶ running/);
    expectFrame(screen.split('\n'), ROWS, COLS);

    // q closes the overlay; it does not quit.
    await pane.keys('q');
    const back = await pane.waitScreen((s) => !s.includes('autodeck keys') && /MODULE\s+STATE/.test(s), 'the table back');
    expectFrame(back.split('\n'), ROWS, COLS);
    expect(pane.exitCode()).toBeUndefined();
    expect(await pane.paneDead()).toBe(false);

    // With no loop running, q quits without asking.
    await pane.keys('q');
    await waitFor(() => pane.exitCode() !== undefined, 'the dashboard to exit');
    expect(pane.exitCode()).toBe(0);
  }, 90_000);

  it('narrows to MODULE STATE ITER ELAPSED at 45 columns, widens back, and fits a short terminal', async () => {
    const { pane } = await open('resize', { modules: { alpha: {}, slow: { stepSeconds: 5 } } });
    await pane.keys('j');
    await pane.waitScreen((s) => rowOf(s, 'slow')?.startsWith('›') === true, 'slow selected');
    await startWithDefaults(pane, 'slow');
    let screen = await pane.waitScreen((s) => /MODULE\s+STATE\s+ITER\s+STEP\s+ELAPSED\s+STALL\s+RECOVERIES\s+LAST/.test(s), 'the wide table');
    expectFrame(screen.split('\n'), ROWS, COLS);

    await pane.resize(45);
    expect(await pane.size()).toEqual({ cols: 45, rows: ROWS });
    screen = await pane.waitScreen((s) => /^ {2}MODULE\s+STATE\s+ITER\s+ELAPSED\s*$/m.test(s), 'the side-pane table');
    // Nothing of the wide layout is left on the screen.
    for (const word of ['STEP', 'STALL', 'RECOV', 'LAST', ' of 10', '──']) expect(screen, word).not.toContain(word);
    expect(rowOf(screen, 'slow')).toMatch(/^› slow\s+▶ running\s+\d+\/20\s+\d+:\d\d\/30m$/);
    expect(rowOf(screen, 'alpha')).toMatch(/^ {2}alpha\s+· planning$/);
    expectFrame(screen.split('\n'), ROWS, 45);

    await pane.resize(COLS);
    screen = await pane.waitScreen((s) => /MODULE\s+STATE\s+ITER\s+STEP\s+ELAPSED\s+STALL\s+RECOVERIES\s+LAST/.test(s) && s.includes('── slow'), 'the wide table and the detail pane again');
    expect(rowOf(screen, 'slow')).toMatch(/▶ running\s+(?:[█▉▊▋▌▍▎▏░]{5} )?\d+\/20\b/);
    expectFrame(screen.split('\n'), ROWS, COLS);

    // A short terminal: the frame still fits, title on top, footer at the bottom.
    await pane.resize(COLS, 8);
    screen = await pane.waitScreen((s, lines) => lines.length === 8 && !s.includes('── slow') && rowOf(s, 'slow') !== undefined, 'the table in 8 lines');
    expectFrame(screen.split('\n'), 8, COLS);
  }, 90_000);

  /** Enter on a running loop shows the agent's own screen; Ctrl-Q comes back to the dashboard. */
  /** Enter shows the agent's own screen; Ctrl-Q brings the dashboard back. */
  async function attachOf(pane: DashboardPane, name: string): Promise<void> {
    await pane.keys('Enter');
    await pane.waitScreen((s) => s.includes(`autodeck sim · ${name}`) && !s.includes('q quit'), `the agent screen of ${name}`);
    await pane.keys('C-q');
    await pane.waitScreen((s) => s.includes('q quit') && s.includes(`detached from auto-${name}-`), 'the dashboard back', 15_000);
  }

  async function attachAndDetach(pane: DashboardPane): Promise<string> {
    await pane.keys('Enter');
    let screen = await pane.waitScreen(
      (s, lines) => s.includes('● Planning the task…') && s.includes('autodeck sim · slow') && !s.includes('q quit') && !TITLE.test(lines[0]!),
      'the agent screen (attached)',
    );
    await pane.keys('C-q');
    screen = await pane.waitScreen((s, lines) => s.includes('q quit') && TITLE.test(lines[0]!) && /detached from auto-slow-/.test(s), 'the dashboard back (detached)', 15_000);
    expect(rowOf(screen, 'slow')).toMatch(/▶ running/);
    expectFrame(screen.split('\n'), ROWS, COLS);
    return screen;
  }

  it('attaches to a pty agent with Enter and detaches with Ctrl-Q', async () => {
    const { pane } = await open('attach-pty', { modules: { slow: { stepSeconds: 5 } } });
    await startWithDefaults(pane, 'slow');
    await attachAndDetach(pane);
    // The dashboard reads keys again.
    await pane.keys('?');
    await pane.waitScreen((s) => s.includes('autodeck keys'), 'the help overlay after the detach', 10_000);
    await pane.keys('z');
    await pane.waitScreen((s) => !s.includes('autodeck keys') && s.includes('MODULE'), 'the help closed');
  }, 90_000);

  function tmuxBackend(): { args: string[]; env: Record<string, string> } {
    const socket = `adt-dash-agents-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    agentSockets.push(socket);
    return { args: ['--backend', 'tmux'], env: { AUTODECK_TMUX_SOCKET: socket } };
  }

  // Fails today, most runs (see the report): during a tmux-backend attach the dashboard
  // keeps its own read on the terminal, so Ctrl-Q can go to it instead of to the tmux
  // client; after the detach process.stdin stops reading for good, so no key works.
  it('attaches to a tmux agent with Enter, detaches with Ctrl-Q, and reads keys again', async () => {
    const backend = tmuxBackend();
    const { w, pane } = await open('attach-tmux', { modules: { slow: { stepSeconds: 5 } }, extraArgs: backend.args, env: backend.env });
    await startWithDefaults(pane, 'slow');
    await attachAndDetach(pane);
    // The agent is still in its tmux session, still running.
    expect((await status(w)).loops).toEqual([expect.objectContaining({ taskName: 'slow', status: 'running' })]);
    // The dashboard reads keys again.
    await pane.keys('?');
    await pane.waitScreen((s) => s.includes('autodeck keys'), 'the help overlay after the detach', 10_000);
  }, 90_000);

  it('serves the REST API with --api-port: a loop started over HTTP runs in the dashboard, which shows it and can attach', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address() as { port: number };
        probe.close(() => resolve(p));
      });
    });
    const { w, pane } = await open('api', { modules: { viaapi: { stepSeconds: 5 } }, extraArgs: ['--api-port', String(port)] });
    const token = readFileSync(join(w.env.XDG_STATE_HOME!, 'autodeck', 'api-token'), 'utf8').trim();
    const started = await http({ method: 'POST', path: '/api/sessions/auto/task-auto', port, token, body: { taskDir: join(w.root, 'viaapi'), maxIterations: 7 } });
    expect(started.status, started.text).toBe(201);
    await pane.waitScreen((s) => /▶ running\s+(?:[█▉▊▋▌▍▎▏░]{5} )?\d+\/7\b/.test(rowOf(s, 'viaapi') ?? ''), 'the loop the API started, in the table');
    // It runs in the dashboard's own process: attach is offered (the footer does not strike it out).
    await attachOf(pane, 'viaapi');
    const stopped = await http({ method: 'DELETE', path: `/api/sessions/${started.json.session}/task-auto`, port, token });
    expect(stopped.status, stopped.text).toBe(202);
    await pane.waitScreen((s) => /■ stopped/.test(rowOf(s, 'viaapi') ?? ''), 'the loop stopped over HTTP', 30_000);
  }, 90_000);

  it('asks before quitting with a loop running, suspends it, and the next dashboard resumes it', async () => {
    const { w, pane } = await open('quit', { modules: { slow: { stepSeconds: 5 } } });
    await startWithDefaults(pane, 'slow');
    const before = await status(w);
    expect(before.loops).toEqual([expect.objectContaining({ taskName: 'slow', status: 'running' })]);

    await pane.keys('q');
    const screen = await pane.waitScreen((s) => s.includes('Quit autodeck?'), 'the quit dialog');
    expect(screen).toMatch(/1 pty loop: suspended now, resumed at the next launch/);
    expectFrame(screen.split('\n'), ROWS, COLS);
    await pane.keys('y');
    await waitFor(() => pane.exitCode() !== undefined, 'the dashboard to exit', 30_000, 100);
    expect(pane.exitCode()).toBe(0);
    await waitFor(() => pane.paneDead(), 'the pane to be dead', 10_000, 100);

    const suspended = await status(w);
    expect(suspended.loops).toEqual([expect.objectContaining({ taskName: 'slow', status: 'suspended' })]);

    // A second dashboard on the same database takes the loop back.
    const second = await pane.startAnother({ ws: w, args: dashboardArgs(w), session: 'second', cols: COLS, rows: ROWS });
    panes.push(second);
    const resumed = await second.waitScreen((s) => /▶ running/.test(rowOf(s, 'slow') ?? ''), 'slow running under the second dashboard');
    expectFrame(resumed.split('\n'), ROWS, COLS);
    const st = await waitFor(async () => {
      const s = await status(w);
      return s.loops[0]?.status === 'running' ? s : undefined;
    }, 'the loop running again', 30_000, 200);
    expect(st.loops[0]!.owner.pid).not.toBe(before.loops[0]!.owner.pid);
    // Resumed, not restarted after a crash.
    expect(st.loops[0]!.restartCount).toBe(0);
  }, 90_000);

  it('autodeck demo: the seven demo loops run in the dashboard, one waits out a usage limit, and each ends as its scenario says', async () => {
    const w = makeWorkspace('autodeck-dash-');
    ws = w;
    // The demo makes its own workspace and database under TMPDIR: inside ours, removed with it.
    const pane = await DashboardPane.start({ ws: w, name: 'demo', args: ['demo', '--fast'], env: DashboardPane.envFor(w, { TMPDIR: w.dir }), cols: COLS, rows: ROWS });
    panes.push(pane);
    const ends: Record<string, RegExp> = {
      'add-login-page': /✓ complete/,
      'fix-flaky-tests': /✓ complete/,
      'migrate-database': /✓ complete/,
      'rewrite-everything': /■ max iter\s+(?:[█▉▊▋▌▍▎▏░]{5} )?[56]\/5\b/,
      'upgrade-framework': /✗ blocked/,
      'clean-old-branches': /✓ complete/,
      'translate-docs': /✓ complete/,
    };
    let quotaSeen = '';
    const screen = await pane.waitScreen((s) => {
      quotaSeen ||= /‖ quota/.test(rowOf(s, 'translate-docs') ?? '') ? rowOf(s, 'translate-docs')! : '';
      return Object.entries(ends).every(([name, end]) => end.test(rowOf(s, name) ?? ''));
    }, 'every demo loop at its end', 90_000);
    // the header's groups: blocked counts as failed, a run ended by its iteration limit as stopped; 1 + 1 + 5 = 7
    expect(screen.split('\n')[0]).toMatch(/^autodeck demo · host \S+ · 7 modules {2}✗ 1 failed {2}■ 1 stopped {2}✓ 5 done$/);
    // The usage limit lasts about 8 s: seen in the table while it lasted, its elapsed time paused.
    expect(quotaSeen, 'translate-docs shown waiting out its usage limit').toMatch(/‖ quota/);

    // Nothing runs any more: q quits at once.
    await pane.keys('q');
    await waitFor(() => pane.exitCode() !== undefined, 'the demo dashboard to exit', 10_000);
    expect(pane.exitCode()).toBe(0);
  }, 120_000);

  it('autodeck demo paced (--speed 0.7): each state is on screen a while, and the pane follows the row that wants an eye', async () => {
    const w = makeWorkspace('autodeck-dash-');
    ws = w;
    const pane = await DashboardPane.start({ ws: w, name: 'paced', args: ['demo', '--speed', '0.7'], env: DashboardPane.envFor(w, { TMPDIR: w.dir }), cols: COLS, rows: ROWS });
    panes.push(pane);
    // What a person should get to see, each on some screen while the demo runs.
    const wanted: Record<string, (s: string) => boolean> = {
      'the (y/n) prompt on the screen of the followed row': (s) => s.includes('Delete 14 merged branches? (y/n)') && /^── clean-old-branches/m.test(s),
      'the stall counted up while the prompt waits': (s) => /[3-5]\/5/.test(rowOf(s, 'clean-old-branches') ?? ''),
      'the prompt answered: stalled, drawn as glyph and word': (s) => /‖ stalled/.test(rowOf(s, 'clean-old-branches') ?? ''),
      'the quota wait counting down to its reset': (s) => /‖ quota\s.*reset in 0:\d\d/.test(rowOf(s, 'translate-docs') ?? ''),
      'the header counting the running loops': (s) => /· 7 modules {2}▶ [1-7] running/.test(s.split('\n')[0] ?? ''),
      'the crash: starting again in the middle of its loop': (s) => /▶ starting\s+\S+ [1-9]\d*\/20/.test(rowOf(s, 'migrate-database') ?? ''),
      'the restart and its backoff in the followed row\'s events': (s) => /^── migrate-database/m.test(s) && /migrate-database {2}restart {2}restart 1\/3 in 1s/.test(s),
      'the iteration limit reached': (s) => /■ max iter\s+█████ 1[23]\/12/.test(rowOf(s, 'rewrite-everything') ?? ''),
      'blocked': (s) => /✗ blocked/.test(rowOf(s, 'upgrade-framework') ?? ''),
    };
    const seen = new Set<string>();
    const screen = await pane.waitScreen((s) => {
      for (const [what, test] of Object.entries(wanted)) if (test(s)) seen.add(what);
      return seen.size === Object.keys(wanted).length && /✓ complete/.test(rowOf(s, 'clean-old-branches') ?? '');
    }, 'every state seen, and the prompt\'s loop complete', 100_000);
    expect([...Object.keys(wanted)].filter((w) => !seen.has(w)), screen).toEqual([]);
    // finished rows: outcome, active time and how long ago, STEP left empty
    expect(rowOf(screen, 'clean-old-branches')).toMatch(/✓ complete\s+\S{5} \d+\/20\s+\d+:\d\d\s+(just now|\dm ago)$/);
    // Quit while loops still run: asked first; the demo's loops are not promised a next launch.
    await pane.keys('q');
    const dialog = await pane.waitScreen((s) => s.includes('Quit autodeck?'), 'the quit dialog');
    expect(dialog).toMatch(/\d demo loops?: stopped now; autodeck demo starts afresh each time\./);
    expect(dialog).not.toContain('next launch');
    await pane.keys('y');
    await waitFor(() => pane.exitCode() !== undefined, 'the demo dashboard to exit', 10_000);
  }, 150_000);

  it('uses no colour under NO_COLOR (states still read as glyph and word), and colour without it', async () => {
    // The same workspace in colour alongside: the check below does see colour when there is some.
    const { w, pane: coloured } = await open('nocolor', { modules: { alpha: {}, slow: { stepSeconds: 5 } } });
    const pane = await coloured.startAnother({ ws: w, args: dashboardArgs(w), session: 'plain', cols: COLS, rows: ROWS, env: { NO_COLOR: '1' } });
    panes.push(pane);
    await pane.waitScreen((s) => rowOf(s, 'alpha')?.startsWith('›') === true, 'the NO_COLOR dashboard');
    await pane.keys('j');
    await pane.waitScreen((s) => rowOf(s, 'slow')?.startsWith('›') === true, 'slow selected');
    await startWithDefaults(pane, 'slow');

    const plain = await pane.screenWithAttributes();
    expect(colourCodes(plain)).toEqual([]);
    const text = await pane.screen();
    expect(rowOf(text, 'slow')).toMatch(/▶ running/);
    expect(rowOf(text, 'alpha')).toMatch(/· planning/);
    expectFrame(text.split('\n'), ROWS, COLS);
    // A dialog too.
    await pane.keys('x');
    await pane.waitScreen((s) => s.includes('Stop slow?'), 'the stop dialog');
    expect(colourCodes(await pane.screenWithAttributes())).toEqual([]);
    await pane.keys('Escape');
    await pane.waitScreen((s) => !s.includes('Stop slow?') && s.includes('MODULE'), 'the dialog closed');

    // The coloured dashboard shows the other one's loop (↗), in colour.
    await coloured.waitScreen((s) => /▶ running/.test(rowOf(s, 'slow') ?? ''), 'the loop in the coloured dashboard');
    expect(colourCodes(await coloured.screenWithAttributes()).length).toBeGreaterThan(0);
  }, 90_000);
});
