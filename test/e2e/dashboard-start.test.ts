import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmuxAvailable } from '../../src/sessions/tmuxServer.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { SIM_AGENT } from '../helpers/cli.js';
import { DashboardPane } from '../helpers/dashboardPane.js';
import { waitFor } from '../helpers/wait.js';

// The dashboard's start as a user meets it, in a terminal (tmux): the bundle's code cache
// (src/startup/scriptModule.ts) is written by the first start in a fresh HOME and taken by
// the next (the start-up trace as witness); the bundle's own parse of the call
// (src/entries/dashboard.ts) refuses a bad setting as the full CLI does, and hands what it
// does not take (--help) to the full CLI.

const tmux = tmuxAvailable();

describe.skipIf(!tmux.ok)('the dashboard\'s start in a terminal', () => {
  let ws: Workspace | undefined;
  const panes: DashboardPane[] = [];

  afterEach(async () => {
    for (const p of panes.splice(0)) await p.kill();
    ws?.cleanup();
    ws = undefined;
  });

  it('is written by the first start and taken by the next', async () => {
    const w = makeWorkspace('autodeck-codecache-');
    ws = w;
    w.module('alpha', { scenario: {} });
    const trace = join(w.dir, 'startup.trace');
    const cacheDir = join(w.env.HOME!, '.cache', 'autodeck', 'code');
    const args = ['--root', w.root, '--db', w.db, '--agent', SIM_AGENT];
    const start = async (name: string): Promise<DashboardPane> => {
      const pane = await DashboardPane.start({ ws: w, name, args, env: DashboardPane.envFor(w, { AUTODECK_STARTUP_TRACE: trace }) });
      panes.push(pane);
      await pane.waitScreen((s) => /MODULE\s+STATE/.test(s) && s.includes('alpha'), 'the table with alpha');
      return pane;
    };
    const cacheStates = (): string[] => readFileSync(trace, 'utf8').split('\n').flatMap((l) => /code cache: (\w+)/.exec(l)?.[1] ?? []);

    const first = await start('first');
    expect(cacheStates()).toEqual(['miss']);
    await waitFor(() => existsSync(cacheDir) && readdirSync(cacheDir).some((f) => f.endsWith('.v8cache')), 'the code cache written', 15_000);
    await first.keys('q');
    await waitFor(() => first.exitCode() !== undefined, 'the first dashboard to exit');
    expect(first.exitCode()).toBe(0);

    await start('second');
    expect(cacheStates()).toEqual(['miss', 'hit']);
    expect(readdirSync(cacheDir).filter((f) => f.endsWith('.v8cache'))).toHaveLength(1);
  }, 60_000);

  it('refuses a bad setting with one line and exit 2, and hands --help to the full CLI', async () => {
    const w = makeWorkspace('autodeck-dashstart-');
    ws = w;
    w.module('alpha', { scenario: {} });
    const errFile = join(w.dir, 'stderr.txt');
    const bad = await DashboardPane.start({ ws: w, name: 'bad', args: ['--root', w.root, '--db', w.db, '--heartbeat', 'soon'], env: DashboardPane.envFor(w), stderrFile: errFile });
    panes.push(bad);
    await waitFor(() => bad.exitCode() !== undefined, 'the refused start to exit');
    expect(bad.exitCode()).toBe(2);
    const err = readFileSync(errFile, 'utf8');
    expect(err.trim().split('\n'), err).toHaveLength(1);
    expect(err).toMatch(/--heartbeat/);
    expect(existsSync(w.db)).toBe(false); // nothing opened

    const help = await DashboardPane.start({ ws: w, name: 'help', args: ['--root', w.root, '--help'], env: DashboardPane.envFor(w) });
    panes.push(help);
    await waitFor(() => help.exitCode() !== undefined, 'the help to exit');
    expect(help.exitCode()).toBe(0);
    const screen = await help.screen();
    expect(screen).toMatch(/Usage: autodeck \[COMMAND\]/); // the full CLI's help
    expect(screen).toContain('autodeck help settings');
    expect(screen).not.toMatch(/MODULE\s+STATE/);
  }, 60_000);
});

