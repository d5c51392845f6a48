import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DashboardPane } from '../helpers/dashboardPane.js';
import { loopRow } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { tmuxAvailable } from '../../src/sessions/tmuxServer.js';
import { makeWorkspace, type Workspace } from './helpers/loops.js';
import { recordRow, scale } from './helpers/results.js';

// Fault: an agent prints hostile escape sequences in a loop while the dashboard (which
// owns its pty) shows its screen, in a real tmux with `set-clipboard on` and titles on.
// Must hold: nothing reaches the outer terminal: no tmux paste buffer appears (OSC 52),
// the pane title stays the dashboard's, the modes (mouse, alternate screen, cursor,
// bracketed paste) stay the dashboard's own.

const tmux = tmuxAvailable();
let ws: Workspace;
let pane: DashboardPane | undefined;
afterEach(async () => {
  await pane?.kill();
  pane = undefined;
  ws?.cleanup();
});

const b64 = Buffer.from('autodeck-pwned').toString('base64');
const HOSTILE = [
  `\x1b]52;c;${b64}\x07`, `\x1b]52;p;${b64}\x1b\\`, // clipboard writes, BEL and ST ended
  '\x1b]0;HOSTILE-TITLE\x07', '\x1b]2;HOSTILE-TITLE\x1b\\', // window / pane titles
  '\x1b[21t', '\x1b[20t', // title report requests
  '\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07', // a link
  '\x1bP+q544e\x1b\\', `\x1bPtmux;\x1b\x1b]52;c;${b64}\x07\x1b\\`, // DCS, and tmux passthrough of OSC 52
  '\x9d0;C1-TITLE\x9c', '\x9b?1000h', // C1 controls (8-bit OSC, CSI)
  '\x1b[?1000h\x1b[?1002h\x1b[?1006h', '\x1b[?1049h', '\x1b[?25l', '\x1b[?2004h', '\x1b[?1h\x1b=', // mouse, alt screen, cursor, paste, keypad
  '\x1bc', // full reset
].join('');

const FLAGS = '#{pane_title}|#{alternate_on}|#{mouse_any_flag}|#{mouse_button_flag}|#{mouse_sgr_flag}|#{cursor_flag}|#{keypad_flag}|#{keypad_cursor_flag}';

describe.runIf(tmux.ok)('fault: hostile agent output under the dashboard', () => {
  it('no paste buffer, the title and the modes stay the dashboard\'s own', async () => {
    ws = makeWorkspace('autodeck-fault-');
    ws.module('hostile');
    const script = join(ws.dir, 'hostile-agent.cjs');
    const rounds = scale(40, 400);
    writeFileSync(script, `let n = 0;
const t = setInterval(() => { process.stdout.write(${JSON.stringify(HOSTILE)} + 'line ' + n + '\\r\\n'); if (++n >= ${rounds}) { clearInterval(t); require('node:fs').writeFileSync(${JSON.stringify(join(ws.dir, 'hostile-done'))}, ''); } }, 25);
setInterval(() => {}, 1 << 30);\n`);
    const args = ['--root', ws.root, '--db', ws.db, '--agent', `${process.execPath} ${script}`, '--heartbeat', '0.5', '--stall-threshold', '1000'];
    pane = await DashboardPane.start({ ws, name: 'hostile', args, env: DashboardPane.envFor(ws), cols: 120, rows: 40 });
    await pane.tmux(['set-option', '-g', 'set-clipboard', 'on', ';', 'set-option', '-g', 'set-titles', 'on', ';', 'set-option', '-g', 'allow-passthrough', 'on']);
    await pane.waitScreen((s) => s.includes('hostile'), 'the dashboard');
    const before = (await pane.tmux(['display-message', '-p', '-t', pane.session, FLAGS])).trim();
    await pane.keys('s');
    await pane.waitScreen((s) => s.includes('Start a loop on hostile'), 'the start dialog');
    await pane.keys('Enter');
    const dir = join(ws.root, 'hostile');
    await waitFor(() => loopRow(ws.db, dir)?.agent_pid, 'the hostile agent running');
    await pane.waitScreen((s) => s.includes('▶ running'), 'the loop running on screen');
    await pane.keys('d'); // the detail pane (the agent's screen, when the dashboard shows one)
    // Every byte went through the dashboard's pty reader and its terminal emulator.
    await waitFor(() => existsSync(join(ws.dir, 'hostile-done')), 'every hostile round printed', 60_000);
    await pane.waitScreen((s) => s.includes('▶ running'), 'the dashboard still drawing');
    const buffers = (await pane.tmux(['list-buffers', '-F', '#{buffer_name}:#{buffer_sample}'])).trim();
    const after = (await pane.tmux(['display-message', '-p', '-t', pane.session, FLAGS])).trim();
    const screen = await pane.screen();
    const pass = buffers === '' && after === before && !screen.includes('HOSTILE-TITLE');
    recordRow({ fault: `hostile agent output under the dashboard in tmux (OSC 52, titles, reports, OSC 8, DCS, C1, modes) x${rounds}`, atRisk: 1, lost: 0, doubled: 0, pass,
      note: `paste buffers: ${buffers === '' ? 'none' : buffers}; title+modes before/after: ${before === after ? 'same' : `${before} -> ${after}`}` });
    expect(buffers).toBe('');
    expect(after).toBe(before);
  });
});
