import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmuxAvailable } from '../../src/sessions/tmuxServer.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { SIM_AGENT } from '../helpers/cli.js';
import { DashboardPane } from '../helpers/dashboardPane.js';
import { waitFor } from '../helpers/wait.js';

// The dashboard bundle's code cache as a user meets it (src/startup/scriptModule.ts): the
// first start in a fresh HOME has none and writes it once start-up is over; the next start
// takes it and shows the same dashboard. Real bin, real tmux, the start-up trace as witness.

const tmux = tmuxAvailable();

describe.skipIf(!tmux.ok)('the dashboard\'s code cache', () => {
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
});
