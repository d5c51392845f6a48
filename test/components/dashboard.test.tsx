import { afterEach, describe, expect, it } from 'vitest';
import { renderApp, KEYS, type Rendered } from '../helpers/renderApp.js';
import { FakeModel, FakeScreen, finishedRun, loopRow, moduleRow } from '../helpers/fakeModel.js';
import { COMMANDS } from '../../src/keymap.js';
import { suggestLimits } from '../../src/history/suggest.js';
import displayWidth from 'string-width';
import { hostname } from 'node:os';

// The dashboard's components against a fake model: what a person sees at each width,
// and what each key asks the supervisor to do.

let app: Rendered | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

const lines = (frame: string): string[] => frame.split('\n');
/** Columns a line takes: every glyph the dashboard uses is one column wide. */
const stringWidth = (line: string): number => [...line.replace(/\x1b\[[0-9;]*m/g, '')].length;

function threeModules(): FakeModel {
  return new FakeModel([
    moduleRow('add-login', { loop: loopRow('/ws/AiTasks/add-login', { iteration: 3, maxIterations: 20, step: 'check', result: 'PASS', next: 'exec', recoveryStep: 1, recoveryTotal: 2 }) }),
    moduleRow('fix-cache', { lifecycle: 'complete' }),
    moduleRow('port-api', { loop: loopRow('/ws/AiTasks/port-api', { status: 'stalled', stallCount: 2 }) }),
  ]);
}

describe('the table at each width', () => {
  it('120 columns: every column, state as glyph and word', async () => {
    app = renderApp({ model: threeModules(), columns: 120 });
    const f = await app.waitForFrame((f) => f.includes('add-login'), 'the modules');
    for (const h of ['MODULE', 'STATE', 'ITER', 'STEP', 'ELAPSED', 'STALL', 'RECOV', 'LAST']) expect(f).toContain(h);
    expect(f).toContain('▶ running');
    expect(f).toContain('3/20');
    expect(f).toContain('check PASS -> exec');
    expect(f).toContain('1/2 of 10');
    expect(f).toContain('! stalled');
    expect(f).toContain('2/3');
    expect(f).toContain('✓ complete');
    expect(f).toMatch(/1:0\d\/30m/);
  });

  it('80 columns: fewer columns; 40 columns: name, state, iteration and elapsed only', async () => {
    app = renderApp({ model: threeModules(), columns: 80 });
    let f = await app.waitForFrame((f) => f.includes('add-login'), 'the modules');
    expect(f).toContain('STEP');
    expect(f).not.toContain('RECOV');
    app.unmount();
    app = renderApp({ model: threeModules(), columns: 40 });
    f = await app.waitForFrame((f) => f.includes('add-login'), 'the modules');
    for (const h of ['MODULE', 'STATE', 'ITER', 'ELAPSED']) expect(f).toContain(h);
    for (const h of ['STEP', 'STALL', 'RECOV', 'LAST']) expect(f).not.toContain(h);
    expect(f).toContain('▶ running');
  });

  it.each([30, 40, 80, 120])('at %i columns no line is wider than the terminal and the frame is shorter than it', async (columns) => {
    const rows = Array.from({ length: 40 }, (_, i) => moduleRow(`module-with-a-rather-long-name-${String(i).padStart(2, '0')}`, { loop: loopRow(`/ws/AiTasks/m${i}`) }));
    app = renderApp({ model: new FakeModel(rows), columns, rows: 12 });
    const f = await app.waitForFrame((f) => f.includes('modu') && f.includes('▶ running'), 'the modules');
    expect(lines(f).length).toBeLessThan(12);
    for (const l of lines(f)) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
    expect(f).toMatch(/of 40/); // says it is scrolled
  });

  it('keeps every column in line under its heading, wide characters and marks included', async () => {
    const model = new FakeModel([
      moduleRow('日本語-モジュール-とても長い名前', { loop: loopRow('/ws/AiTasks/jp', { status: 'stalled' }) }),
      moduleRow('plain', { loop: loopRow('/ws/AiTasks/plain', { quotaWaitSince: new Date().toISOString(), status: 'quota_wait' }) }),
      moduleRow('theirs', { here: false, ownerAlive: true, loop: loopRow('/ws/AiTasks/theirs') }),
    ]);
    app = renderApp({ model, columns: 120, color: true });
    const f = await app.waitForFrame((f) => f.includes('theirs'), 'the rows');
    const plainLines = lines(f).map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
    const columnOf = (line: string, text: string): number => displayWidth(line.slice(0, line.indexOf(text)));
    const header = plainLines.find((l) => l.includes('MODULE'))!;
    for (const [heading, cell] of [['STATE', /[!‖▶] \w+/], ['ITER', /[█▉▊▋▌▍▎▏░]{5} \d+\/20/], ['ELAPSED', /‖?[█▉▊▋▌▍▎▏░]{5} \d+:\d\d\/30m/]] as const) {
      const rows = plainLines.filter((l) => /\d\/20 /.test(l));
      expect(rows).toHaveLength(3);
      for (const row of rows) expect(columnOf(row, cell.exec(row)![0]), `${heading} in "${row}"`).toBe(columnOf(header, heading));
    }
    for (const l of plainLines) expect(displayWidth(l)).toBeLessThanOrEqual(120);
  });

  it('follows a resize from 120 to 45 columns without garbage', async () => {
    app = renderApp({ model: threeModules(), columns: 120, rows: 20 });
    await app.waitForFrame((f) => f.includes('RECOV'), 'the wide table');
    app.stdout.resize(45, 20);
    const f = await app.waitForFrame((f) => !f.includes('STEP') && f.includes('add-login'), 'the side-pane table');
    for (const l of lines(f)) expect(stringWidth(l)).toBeLessThanOrEqual(45);
  });

  it('without colour loses nothing: no colour codes, the states still read', async () => {
    app = renderApp({ model: threeModules(), columns: 100, color: false });
    const f = await app.waitForFrame((f) => f.includes('add-login'), 'the modules');
    expect(f).not.toMatch(/\x1b\[3\dm/);
    expect(f).toContain('› ');
    expect(f).toContain('! stalled');
  });

  it('a hostile module name cannot drive the terminal: table, dialog and messages show it escaped', async () => {
    const model = new FakeModel([moduleRow('evil\x1b[2J\x1b]0;t\x07')]);
    app = renderApp({ model, columns: 100 });
    await app.waitForFrame((f) => f.includes('evil\\x1b[2J'), 'the escaped name');
    await app.type('s');
    await app.waitForFrame((f) => f.includes('Start a loop on evil\\x1b[2J'), 'the dialog');
    await app.type(KEYS.enter);
    await app.waitForFrame((f) => f.includes('started evil\\x1b'), 'the message');
    for (const frame of app.stdout.frames) {
      expect(frame).not.toContain('\x1b[2J');
      expect(frame).not.toContain('\x1b]0;');
    }
  });

  it('marks loops of other autodeck processes, and one whose owner died', async () => {
    const model = new FakeModel([
      moduleRow('theirs', { here: false, ownerAlive: true, loop: loopRow('/ws/AiTasks/theirs') }),
      moduleRow('orphan', { here: false, ownerAlive: false, loop: loopRow('/ws/AiTasks/orphan') }),
    ]);
    app = renderApp({ model, columns: 100 });
    const f = await app.waitForFrame((f) => f.includes('theirs'), 'the rows');
    expect(f).toContain('↗ theirs');
    expect(f).toContain('running?');
  });

  it('shows a new signal at once and ticks the elapsed time each second', async () => {
    const model = threeModules();
    app = renderApp({ model, columns: 120 });
    const first = await app.waitForFrame((f) => /1:0\d\/30m/.test(f), 'elapsed');
    const shown = /(1:0\d)\/30m/.exec(first)![1];
    await app.waitForFrame((f) => /1:0\d\/30m/.test(f) && !f.includes(`${shown}/30m`), 'the next second', 3000);
    model.patchRow('/ws/AiTasks/add-login', { loop: loopRow('/ws/AiTasks/add-login', { iteration: 4, step: 'exec', result: 'DONE', next: 'check' }) });
    await app.waitForFrame((f) => f.includes('exec DONE -> check') && f.includes('4/20'), 'the new signal', 1000);
  });
});

/** One module in each state the header counts, a finished run among them. */
function everyState(): FakeModel {
  return new FakeModel([
    moduleRow('halfway', { loop: loopRow('/ws/AiTasks/halfway', { iteration: 10, maxIterations: 20 }) }),
    moduleRow('asks-yes-no', { loop: loopRow('/ws/AiTasks/asks-yes-no', { status: 'stalled', stallCount: 2 }) }),
    moduleRow('waits-quota', { loop: loopRow('/ws/AiTasks/waits-quota', { status: 'quota_wait', quotaWaitSince: new Date().toISOString() }) }),
    moduleRow('crashed', { loop: loopRow('/ws/AiTasks/crashed', { status: 'failed' }) }),
    moduleRow('all-done', { lifecycle: 'complete', lastRun: { id: 1, outcome: 'complete', endedAt: new Date(Date.now() - 180_000).toISOString(), iterations: 7, maxIterations: 20, forced: false, activeMs: 12 * 60_000 } }),
  ]);
}
const BAR = /[█▉▊▋▌▍▎▏░]{5}/;

describe('the header and the bars', () => {
  it('120 columns: host, module count, counts by group (those needing a person first); bars for iterations and time; a finished row in its own columns', async () => {
    app = renderApp({ model: everyState(), columns: 120 });
    const f = await app.waitForFrame((f) => f.includes('all-done'), 'the rows');
    const head = lines(f)[0]!;
    expect(head).toContain(`autodeck · ${hostname()} · 5 modules`);
    // stalled and in a quota wait still run: the groups are the tmux segment's
    expect(head).toMatch(/5 modules {2}✗ 1 failed {2}▶ 3 running {2}✓ 1 done$/);
    const row = (name: string): string => lines(f).find((l) => l.includes(name))!;
    expect(row('halfway')).toContain('██▌░░ 10/20'); // half the iterations: two and a half cells of five
    expect(row('halfway')).toMatch(/▏░░░░ 1:0\d\/30m/); // a minute of thirty: one eighth of a cell
    expect(row('waits-quota')).toMatch(new RegExp(`‖${BAR.source} \\d+:\\d\\d/30m`));
    // finished: outcome in STATE, iterations with their bar, active time in ELAPSED, the end in LAST; STEP empty
    expect(row('all-done')).toMatch(/✓ complete\s+█▊░░░ 7\/20\s+12:00\s+3m ago$/);
    expect(f).not.toContain('ended');
    for (const l of lines(f)) expect(stringWidth(l)).toBeLessThanOrEqual(120);
  });

  it('80 columns: the same header, the table without bars; 40 columns: compact counts, the host last, every line fits', async () => {
    app = renderApp({ model: everyState(), columns: 80 });
    let f = await app.waitForFrame((f) => f.includes('all-done'), 'the rows');
    expect(lines(f)[0]).toMatch(/5 modules {2}✗ 1 failed {2}▶ 3 running/);
    expect(f).not.toMatch(BAR);
    for (const l of lines(f)) expect(stringWidth(l)).toBeLessThanOrEqual(80);
    app.unmount();
    app = renderApp({ model: everyState(), columns: 40 });
    f = await app.waitForFrame((f) => f.includes('all-done'), 'the rows');
    expect(lines(f)[0]).toMatch(/^autodeck ✗1 ▶3 ✓1 · /);
    for (const h of ['MODULE', 'STATE', 'ITER', 'ELAPSED']) expect(f).toContain(h);
    for (const l of lines(f)) expect(stringWidth(l)).toBeLessThanOrEqual(40);
  });

  it('without colour (NO_COLOR) keeps the bars, the glyphs and the words', async () => {
    app = renderApp({ model: everyState(), columns: 120, color: false });
    const f = await app.waitForFrame((f) => f.includes('all-done'), 'the rows');
    expect(f).not.toMatch(/\x1b\[3\dm/);
    expect(f).toContain('██▌░░ 10/20');
    expect(lines(f)[0]).toContain('✗ 1 failed');
    for (const w of ['! stalled', '‖ quota', '✗ failed', '✓ complete']) expect(f).toContain(w);
  });
});

describe('following the row that wants an eye (the demo)', () => {
  it('selects a stalled row when one appears, until a key moves the selection', async () => {
    const model = new FakeModel([
      moduleRow('alpha', { loop: loopRow('/ws/AiTasks/alpha') }),
      moduleRow('beta', { loop: loopRow('/ws/AiTasks/beta') }),
      moduleRow('gamma', { loop: loopRow('/ws/AiTasks/gamma') }),
    ]);
    app = renderApp({ model, columns: 100, follow: true });
    await app.waitForFrame((f) => /^› alpha/m.test(f), 'the first row followed');
    model.patchRow('/ws/AiTasks/gamma', { loop: loopRow('/ws/AiTasks/gamma', { status: 'stalled' }) });
    await app.waitForFrame((f) => /^› gamma/m.test(f) && f.includes('── gamma'), 'the stalled row selected, its detail shown');
    // a person moves: from the followed row, and the selection stays theirs
    await app.type(KEYS.up);
    await app.waitForFrame((f) => /^› beta/m.test(f), 'beta selected by hand');
    model.patchRow('/ws/AiTasks/alpha', { loop: loopRow('/ws/AiTasks/alpha', { status: 'failed' }) });
    await app.waitForFrame((f) => f.includes('✗ failed'), 'alpha failed');
    expect(app.frame()).toMatch(/^› beta/m);
  });
});

describe('the footer', () => {
  it.each([100, 108, 120])('at %i columns keeps `q quit` in view, leaving out what the ? overlay lists', async (columns) => {
    app = renderApp({ model: threeModules(), columns });
    const f = await app.waitForFrame((f) => f.includes('add-login'), 'the table');
    const footer = lines(f).filter((l) => l.trim() !== '').at(-1)!;
    expect(footer).toMatch(/\? help {2}q quit$/);
    expect(footer.includes('h runs')).toBe(columns >= 108);
  });
});

describe('the history view', () => {
  it('h lists the selected module\'s finished runs with outcome, iterations, time and score; Esc closes', async () => {
    const model = threeModules();
    model.pastRuns.set('/ws/AiTasks/fix-cache', [
      finishedRun('/ws/AiTasks/fix-cache', 'complete', 7, 12),
      finishedRun('/ws/AiTasks/fix-cache', 'max_iterations', 20, 40, { recoveries: 2 }),
    ]);
    app = renderApp({ model, columns: 100 });
    await app.waitForFrame((f) => f.includes('fix-cache'), 'the table');
    await app.type('h');
    await app.waitForFrame((f) => f.includes('Runs of add-login'), 'the first module\'s (empty) history');
    expect(app.frame()).toContain('no finished runs yet');
    await app.type(KEYS.escape);
    await app.type(KEYS.down, 'h');
    const f = await app.waitForFrame((f) => f.includes('Runs of fix-cache'), 'the history');
    for (const h of ['ENDED', 'OUTCOME', 'ITER', 'ACTIVE', 'SCORE']) expect(f).toContain(h);
    const rows = lines(f).filter((l) => /ago/.test(l));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/1m ago\s+✓ complete\s+7\/20\s+12m\s+\d\.\d\d/);
    expect(rows[1]).toMatch(/✗? ?■ max iter\s+20\/20\s+40m\s+0\.00\s+2/);
    await app.type(KEYS.escape);
    await app.waitForFrame((f) => !f.includes('Runs of') && f.includes('MODULE'), 'the table again');
  });
});

describe('the start dialog', () => {
  it('starts with a changed maxIterations; Tab, Shift-Tab and arrows move between fields', async () => {
    const model = threeModules();
    app = renderApp({ model, columns: 100 });
    await app.waitForFrame((f) => f.includes('fix-cache'), 'the table');
    await app.type(KEYS.down, 's');
    await app.waitForFrame((f) => f.includes('Start a loop on fix-cache'), 'the dialog');
    expect(app.frame()).toContain('defaults 20 / 30 min: no completed runs');
    await app.type(KEYS.backspace, KEYS.backspace, '7');
    await app.type(KEYS.tab, KEYS.shiftTab, KEYS.down, KEYS.up);
    await app.type(KEYS.enter);
    await app.waitForFrame((f) => f.includes('started fix-cache'), 'the started message');
    expect(model.calls).toEqual([{ action: 'start', key: '/ws/AiTasks/fix-cache', arg: { maxIterations: 7, timeoutMinutes: 30 } }]);
  });

  it('an invalid value shows an inline error and starts nothing; Esc cancels', async () => {
    const model = threeModules();
    app = renderApp({ model, columns: 100 });
    await app.waitForFrame((f) => f.includes('fix-cache'), 'the table');
    await app.type(KEYS.down, 's', KEYS.tab, KEYS.backspace, KEYS.backspace, '0', KEYS.enter);
    await app.waitForFrame((f) => /✗ .*0/.test(f) && f.includes('Start a loop'), 'the inline error');
    await app.type(KEYS.shiftTab, KEYS.backspace, KEYS.backspace, 'x', KEYS.enter);
    await app.waitForFrame((f) => f.includes('"x" is not a number'), 'the error of the first field');
    expect(model.calls).toEqual([]);
    await app.type(KEYS.escape);
    await app.waitForFrame((f) => !f.includes('Start a loop') && f.includes('MODULE'), 'the table again');
    expect(model.calls).toEqual([]);
  });

  it.each([
    [0, 'defaults 20 / 30 min: no completed runs'],
    [1, 'defaults 20 / 30 min: 1 completed run; a suggestion needs 2'],
    [2, 'suggested from p90 of 2 completed runs + 50%; defaults 20 / 30 min'],
  ])('with %i completed runs, says where its figures come from', async (n, text) => {
    const model = threeModules();
    const runs = Array.from({ length: n }, (_, i) => finishedRun('/ws/AiTasks/fix-cache', 'complete', 8 + i, 10 + i));
    model.suggestions.set('/ws/AiTasks/fix-cache', suggestLimits(runs, model.settings));
    app = renderApp({ model, columns: 100 });
    await app.waitForFrame((f) => f.includes('fix-cache'), 'the table');
    await app.type(KEYS.down, 's');
    const f = await app.waitForFrame((f) => f.includes('Start a loop on fix-cache'), 'the dialog');
    expect(f).toContain(text);
    // two runs of 8 and 9 iterations: p90 9 x 1.5 rounds up to 15
    if (n === 2) expect(f).toMatch(/max iterations\s+15/);
  });

  it('offers the suggestion from past runs, and says why a start was refused', async () => {
    const model = threeModules();
    model.suggestions.set('/ws/AiTasks/fix-cache', { maxIterations: 12, timeoutMinutes: 45, basis: 'p90 of 5 completed runs + 50%', fromRuns: 5 });
    model.startResult = { ok: false, message: 'a loop already runs on fix-cache' };
    app = renderApp({ model, columns: 100 });
    await app.waitForFrame((f) => f.includes('fix-cache'), 'the table');
    await app.type(KEYS.down, 's');
    const f = await app.waitForFrame((f) => f.includes('p90 of 5'), 'the suggestion');
    expect(f).toContain('12');
    expect(f).toContain('45');
    await app.type(KEYS.enter);
    await app.waitForFrame((f) => f.includes('not started: a loop already runs'), 'the refusal');
    expect(model.calls).toEqual([{ action: 'start', key: '/ws/AiTasks/fix-cache', arg: { maxIterations: 12, timeoutMinutes: 45 } }]);
  });

  it('takes keys that arrive together (key repeat, ssh): two Backspaces in one read erase two digits', async () => {
    const model = threeModules();
    app = renderApp({ model, columns: 100 });
    await app.waitForFrame((f) => f.includes('fix-cache'), 'the table');
    await app.type('jj', 'k', 's');
    await app.waitForFrame((f) => f.includes('Start a loop on fix-cache'), 'the dialog on the second row');
    await app.type(KEYS.backspace + KEYS.backspace + '3', KEYS.tab + KEYS.backspace + '5', KEYS.enter);
    await app.waitForFrame((f) => f.includes('started fix-cache'), 'the start');
    expect(model.calls).toEqual([{ action: 'start', key: '/ws/AiTasks/fix-cache', arg: { maxIterations: 3, timeoutMinutes: 35 } }]);
  });

  it('is refused where a loop runs, with the reason', async () => {
    app = renderApp({ model: threeModules(), columns: 100 });
    await app.waitForFrame((f) => f.includes('add-login'), 'the table');
    await app.type('s');
    await app.waitForFrame((f) => f.includes('start: a loop already runs here'), 'the reason');
  });
});

describe('stop, force stop, restart, attach', () => {
  it('x asks first and stops on y; X asks and does nothing on n', async () => {
    const model = threeModules();
    app = renderApp({ model, columns: 100 });
    await app.waitForFrame((f) => f.includes('add-login'), 'the table');
    await app.type('x');
    await app.waitForFrame((f) => f.includes('Stop add-login?'), 'the stop dialog');
    await app.type('y');
    await app.waitForFrame((f) => f.includes('stopping add-login'), 'the message');
    await app.type('X');
    await app.waitForFrame((f) => f.includes('Force stop add-login?') && f.includes('killed now'), 'the force-stop dialog');
    await app.type('n');
    await app.waitForFrame((f) => !f.includes('Force stop'), 'the dialog gone');
    expect(model.calls).toEqual([{ action: 'stop', key: '/ws/AiTasks/add-login' }]);
  });

  it('r restarts a failed loop and is refused elsewhere; Enter attaches to a loop of this process', async () => {
    const model = new FakeModel([
      moduleRow('broken', { loop: loopRow('/ws/AiTasks/broken', { status: 'failed' }) }),
      moduleRow('busy', { loop: loopRow('/ws/AiTasks/busy') }),
    ]);
    const attached: string[] = [];
    app = renderApp({ model, columns: 100, onAttach: (k) => attached.push(k) });
    await app.waitForFrame((f) => f.includes('✗ failed'), 'the failed row');
    await app.type(KEYS.enter);
    await app.waitForFrame((f) => f.includes('attach: no agent of this process runs here'), 'attach refused');
    await app.type('r');
    await app.waitForFrame((f) => f.includes('restarted broken'), 'the restart');
    await app.type('j', 'r');
    await app.waitForFrame((f) => f.includes('restart: only a failed loop restarts'), 'restart refused');
    await app.type(KEYS.enter);
    expect(model.calls).toEqual([{ action: 'restart', key: '/ws/AiTasks/broken' }]);
    expect(attached).toEqual(['/ws/AiTasks/busy']);
  });
});

describe('views', () => {
  it('the help overlay lists every command of the table', async () => {
    app = renderApp({ model: threeModules(), columns: 140, rows: 60 });
    await app.waitForFrame((f) => f.includes('add-login'), 'the table');
    await app.type('?');
    const f = await app.waitForFrame((f) => f.includes('autodeck keys'), 'the help');
    for (const c of COMMANDS) expect(f).toContain(c.description);
    await app.type(' ');
    await app.waitForFrame((f) => f.includes('MODULE'), 'the table again');
  });

  it('the help scrolls in a short terminal and never overflows it', async () => {
    app = renderApp({ model: threeModules(), columns: 80, rows: 14 });
    await app.waitForFrame((f) => f.includes('add-login'), 'the table');
    await app.type('?');
    const f = await app.waitForFrame((f) => f.includes('scroll'), 'a scrollable help');
    expect(lines(f).length).toBeLessThan(14);
    await app.type(KEYS.down);
    await app.waitForFrame((f) => /scroll {2}2-/.test(f), 'scrolled by one');
  });

  it('without modules, says how to make one', async () => {
    app = renderApp({ model: new FakeModel([]), columns: 100 });
    await app.waitForFrame((f) => f.includes('no task modules under the roots: autodeck new NAME makes one'), 'the empty table');
  });

  it('the filter narrows the table while typing; Esc clears it', async () => {
    app = renderApp({ model: threeModules(), columns: 100 });
    await app.waitForFrame((f) => f.includes('port-api'), 'the table');
    await app.type('/', 'c', 'a');
    await app.waitForFrame((f) => f.includes('fix-cache') && !f.includes('port-api') && !f.includes('add-login'), 'the filtered table');
    await app.type(KEYS.enter);
    await app.waitForFrame((f) => f.includes('filter "ca"'), 'the kept filter');
    await app.type(KEYS.escape);
    await app.waitForFrame((f) => f.includes('port-api') && !f.includes('filter "'), 'the whole table');
  });

  it('the event log shows the events of every loop', async () => {
    const model = threeModules();
    model.addEvent({ at: new Date().toISOString(), session: 's', taskDir: '/ws/AiTasks/add-login', kind: 'stop_requested', detail: { reason: 'user_stop', by: 'me', force: false } });
    app = renderApp({ model, columns: 120 });
    await app.waitForFrame((f) => f.includes('add-login'), 'the table');
    await app.type('l');
    await app.waitForFrame((f) => f.includes('Event log') && f.includes('stop requested (user_stop) by me'), 'the log');
    model.addEvent({ at: new Date().toISOString(), session: 's', taskDir: '/ws/AiTasks/port-api', kind: 'quota_resume', detail: { why: 'reset time', waitedMs: 60_000 } });
    await app.waitForFrame((f) => f.includes('quota wait over'), 'a new event, live');
    await app.type(KEYS.escape);
    await app.waitForFrame((f) => f.includes('MODULE'), 'the table again');
  });

  it('the detail pane shows the agent screen as text, the last events and the summary; d hides it', async () => {
    const model = threeModules();
    const screen = new FakeScreen();
    screen.set(['Working on the plan', 'evil \x1b]0;pwned\x07 title', '> _']);
    model.screens.set('/ws/AiTasks/add-login', screen);
    model.summaries.set('/ws/AiTasks/add-login', ['# Add login', 'Done: the form.']);
    model.addEvent({ at: new Date().toISOString(), session: 's', taskDir: '/ws/AiTasks/add-login', kind: 'signal', detail: { iteration: 3, step: 'check', result: 'PASS', next: 'exec' } });
    app = renderApp({ model, columns: 100, rows: 30 });
    let f = await app.waitForFrame((f) => f.includes('Working on the plan'), 'the agent screen');
    expect(f).toContain('iteration 3: check PASS -> exec');
    expect(f).toContain('# Add login');
    expect(f).not.toContain('\x1b]0;');
    expect(f).toContain('\\x1b]0;pwned\\x07');
    screen.set(['Now executing']);
    await app.waitForFrame((f) => f.includes('Now executing'), 'the screen, live');
    await app.type('d');
    f = await app.waitForFrame((f) => !f.includes('Now executing'), 'the pane hidden');
    expect(f).toContain('add-login');
  });
});

describe('quit', () => {
  it('quits at once without loops of this process', async () => {
    let quit = 0;
    app = renderApp({ model: threeModules(), columns: 100, onQuit: () => quit++ });
    await app.waitForFrame((f) => f.includes('add-login'), 'the table');
    await app.type('q');
    expect(quit).toBe(1);
  });

  it('asks first when loops run, saying what happens to them', async () => {
    let quit = 0;
    const model = threeModules();
    model.here = { pty: 2, tmux: 1 };
    app = renderApp({ model, columns: 100, onQuit: () => quit++ });
    await app.waitForFrame((f) => f.includes('add-login'), 'the table');
    await app.type('q');
    const f = await app.waitForFrame((f) => f.includes('Quit autodeck?'), 'the quit dialog');
    expect(f).toContain('2 pty loops: suspended now, resumed at the next launch');
    expect(f).toContain('1 tmux loop: keeps running');
    await app.type('n');
    await app.waitForFrame((f) => !f.includes('Quit autodeck?'), 'the dialog gone');
    expect(quit).toBe(0);
    await app.type('q', 'y');
    expect(quit).toBe(1);
  });
});
