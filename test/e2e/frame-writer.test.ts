import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmuxAvailable } from '../../src/sessions/tmuxServer.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { SIM_AGENT } from '../helpers/cli.js';
import { DashboardPane } from '../helpers/dashboardPane.js';
import { waitFor } from '../helpers/wait.js';

// The frame-diffing writer in a real terminal (tmux): the dashboard writes only changed
// cells, and after every kind of screen change the pane shows exactly what the writer's
// model says the screen is (AUTODECK_FRAME_DUMP writes the model's text after each frame).
// Everything the dashboard writes is also piped to a file (tmux pipe-pane -O) and counted.

const tmux = tmuxAvailable();
const COLS = 120;
const ROWS = 40;
const SYNC_BEGIN = '\x1b[?2026h';

const trimmed = (s: string): string => s.split('\n').map((l) => l.replace(/ +$/, '')).join('\n').replace(/\n+$/, '');

describe.skipIf(!tmux.ok)('the frame writer in tmux', () => {
  let ws: Workspace | undefined;
  let pane: DashboardPane | undefined;

  afterEach(async () => {
    await pane?.kill();
    pane = undefined;
    ws?.cleanup();
    ws = undefined;
  });

  async function open(sync: boolean): Promise<{ pane: DashboardPane; dump: string; piped: string }> {
    const w = makeWorkspace('autodeck-frames-');
    ws = w;
    for (const m of ['alpha', 'beta', 'gamma']) w.module(m, { scenario: { stepSeconds: 30 } });
    w.module('idle', { scenario: {} });
    const dump = join(w.dir, 'frame.txt');
    const piped = join(w.dir, 'piped.bin');
    const env = DashboardPane.envFor(w, { AUTODECK_FRAME_DUMP: dump, AUTODECK_SYNC_OUTPUT: sync ? '1' : '0', AUTODECK_PIPE: piped });
    const args = ['--root', w.root, '--db', w.db, '--agent', SIM_AGENT, '--heartbeat', '0.5', '--stall-threshold', '1000'];
    const p = await DashboardPane.start({ ws: w, name: `frames-${sync ? 's' : 'n'}`, args, env, cols: COLS, rows: ROWS });
    pane = p;
    // The command is fixed text; the file reaches it through the environment, not the command line.
    await p.tmux(['set-environment', '-g', 'AUTODECK_PIPE', piped, ';', 'pipe-pane', '-O', '-t', p.session, 'cat >> "$AUTODECK_PIPE"']);
    await p.waitScreen((s) => s.includes('alpha') && s.includes('q quit'), 'the dashboard');
    return { pane: p, dump, piped };
  }

  /** The pane shows what the model says (retried: a clock may tick between the two reads). */
  async function clean(p: DashboardPane, dump: string, what: string): Promise<string> {
    let last = { pane: '', model: '' };
    try {
      await waitFor(async () => {
        const model = existsSync(dump) ? trimmed(readFileSync(dump, 'utf8')) : '';
        const shown = trimmed(await p.screen());
        last = { pane: shown, model };
        return shown === model && model !== '';
      }, what, 15_000, 100);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- pane ---\n${last.pane}\n--- model ---\n${last.model}\n---`);
    }
    return last.pane;
  }

  async function startLoop(p: DashboardPane, dump: string, name: string): Promise<void> {
    // Rows are sorted: alpha is first and selected; `s` then Enter on the defaults.
    await p.waitScreen((s) => new RegExp(`› ${name} `).test(s), `${name} selected`);
    await p.keys('s');
    await p.waitScreen((s) => s.includes(`Start a loop on ${name}`), 'the start dialog');
    await clean(p, dump, 'the dialog drawn cleanly');
    await p.keys('Enter');
    await p.waitScreen((s) => new RegExp(`${name} +▶ running`).test(s), `${name} running`);
  }

  it.each([true, false])('leaves a clean screen after dialogs, the overlay, resizes and attach/detach (sync %s), ticking for a few bytes', async (sync) => {
    const { pane: p, dump, piped } = await open(sync);
    await clean(p, dump, 'the first frame');
    await startLoop(p, dump, 'alpha');
    await p.keys('j');
    await startLoop(p, dump, 'beta');
    await clean(p, dump, 'two loops running');

    // Only the clocks tick now: count what reaches the terminal over a few frames.
    const size0 = statSync(piped).size;
    const frames0 = readFileSync(piped, 'latin1').split(SYNC_BEGIN).length;
    const text0 = trimmed(await p.screen());
    await p.waitScreen((s) => trimmed(s) !== text0, 'a clock tick');
    await clean(p, dump, 'after a tick');
    const bytes = statSync(piped).size - size0;
    if (sync) {
      const frames = readFileSync(piped, 'latin1').split(SYNC_BEGIN).length - frames0;
      expect(frames).toBeGreaterThan(0);
      // A whole 120x40 frame is kilobytes; a tick of two clocks (and the signal ages) is small.
      expect(bytes / frames).toBeLessThan(400);
    }

    await p.keys('?');
    await p.waitScreen((s) => s.includes('autodeck keys'), 'the help overlay');
    await clean(p, dump, 'the overlay');
    await p.keys('z');
    await p.waitScreen((s) => !s.includes('autodeck keys'), 'the overlay closed');
    await clean(p, dump, 'the overlay closed');

    await p.resize(90, 30);
    await p.waitScreen((_s, lines) => lines.length === 30, 'the smaller pane');
    await clean(p, dump, 'after shrinking');
    await p.resize(COLS, ROWS);
    await p.waitScreen((_s, lines) => lines.length === ROWS, 'the pane back');
    await clean(p, dump, 'after growing');

    // Attach to beta (selected), then detach: the dashboard comes back drawn whole.
    await p.keys('Enter');
    await p.waitScreen((s) => s.includes('autodeck sim · beta') && !s.includes('q quit'), 'the agent screen');
    await p.keys('C-q');
    await p.waitScreen((s) => s.includes('q quit') && s.includes('detached from'), 'the dashboard back');
    await clean(p, dump, 'after detach');
  }, 120_000);
});
