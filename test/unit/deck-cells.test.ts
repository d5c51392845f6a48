import { describe, expect, it } from 'vitest';
import { clockDuration, fill, rowCells, shortAge, stateCell, TIMED_CELLS } from '../../src/deck/cells.js';
import { bar } from '../../src/deck/bar.js';
import { countText, stateCounts, triageOf } from '../../src/deck/header.js';
import { tmuxSegment } from '../../src/deck/needsYou.js';
import { breakpointFor, columnWidths, columnsFor, cutCell, fitCell, tableOverflows, visibleWindow, MARK_WIDTH, NARROW } from '../../src/deck/layout.js';
import stringWidth from 'string-width';
import { nextField, validateStartForm } from '../../src/deck/startForm.js';
import { screenLines } from '../../src/deck/screenFeed.js';
import { loopRow, moduleRow } from '../helpers/fakeModel.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const LIMITS = { stallThreshold: 3, recoveryTotal: 10 };

describe('row cells', () => {
  it('asked again of the same row at a later time, move with the time; with other limits, follow them', () => {
    // worked out once per row object (timeless cells kept): what time moves must still move
    const row = moduleRow('m', {
      quotaUntil: new Date(NOW + 90_000).toISOString(),
      loop: loopRow('/ws/m', { status: 'quota_wait', startedAt: new Date(NOW - 65_000).toISOString(), quotaWaitSince: new Date(NOW - 5000).toISOString(), lastSignalAt: new Date(NOW - 4000).toISOString(), stallCount: 1 }),
    });
    const a = rowCells(row, NOW, LIMITS);
    const b = rowCells(row, NOW + 61_000, LIMITS);
    expect([a.step, a.lastSignal, a.stalls]).toEqual(['reset in 1:30', '4s', '1/3']);
    expect([b.step, b.lastSignal, b.stalls]).toEqual(['reset in 0:29', '1m', '1/3']);
    expect(rowCells(row, NOW, { ...LIMITS, stallThreshold: 5 }).stalls).toBe('1/5');
    const running = moduleRow('r', { loop: loopRow('/ws/r', { startedAt: new Date(NOW - 65_000).toISOString() }) });
    expect(rowCells(running, NOW, LIMITS).elapsed).toBe('1:05/30m');
    expect(rowCells(running, NOW + 60_000, LIMITS).elapsed).toBe('2:05/30m');
  });

  it('time alone changes only the cells TIMED_CELLS names (a clock\'s tick works out no other column)', () => {
    const at = (ms: number) => new Date(NOW - ms).toISOString();
    const rows = [
      moduleRow('run', { loop: loopRow('/ws/run', { startedAt: at(65_000), lastSignalAt: at(4000) }) }),
      moduleRow('quota', { quotaUntil: new Date(NOW + 90_000).toISOString(), loop: loopRow('/ws/quota', { status: 'quota_wait', startedAt: at(65_000), quotaWaitSince: at(5000), lastSignalAt: at(4000) }) }),
      moduleRow('stalled', { loop: loopRow('/ws/stalled', { status: 'stalled', stallCount: 2, startedAt: at(3_600_000), lastSignalAt: at(600_000) }) }),
      moduleRow('failed', { loop: loopRow('/ws/failed', { status: 'failed', startedAt: at(65_000) }) }),
      moduleRow('done', { lastRun: { id: 1, outcome: 'complete', endedAt: at(30_000), iterations: 4, maxIterations: 20, forced: false } }),
      moduleRow('idle'),
    ];
    const moved = new Set<string>();
    for (const row of rows) {
      for (const later of [1000, 61_000, 3_600_000, 86_400_000]) {
        const a = rowCells(row, NOW, LIMITS);
        const b = rowCells(row, NOW + later, LIMITS);
        for (const k of new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof typeof a>) {
          if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) moved.add(k);
        }
      }
    }
    // every timed cell does move in these rows, and nothing else does
    expect([...moved].filter((k) => !k.endsWith('Fill')).sort()).toEqual([...TIMED_CELLS].sort());
  });

  it.each([
    ['running', '▶', 'running'], ['starting', '○', 'starting'], ['stalled', '!', 'stalled'], ['quota_wait', '‖', 'quota'],
    ['stopping', '■', 'stopping'], ['suspended', '‖', 'suspended'], ['failed', '✗', 'failed'],
  ] as const)('a %s loop reads %s %s', (status, glyph, word) => {
    expect(stateCell(moduleRow('m', { loop: loopRow('/ws/m', { status }) }))).toMatchObject({ glyph, word });
  });

  it('a module without a loop shows its lifecycle; an orphan of a dead owner is marked', () => {
    expect(stateCell(moduleRow('m', { lifecycle: 'complete' }))).toMatchObject({ glyph: '✓', word: 'complete', tone: 'ok' });
    expect(stateCell(moduleRow('m', { lifecycle: 'blocked' }))).toMatchObject({ glyph: '·', word: 'blocked', tone: 'bad' });
    expect(stateCell(moduleRow('m', { here: false, ownerAlive: false, loop: loopRow('/ws/m') })).word).toBe('running?');
    expect(stateCell(moduleRow('m', { here: false, ownerAlive: true, loop: loopRow('/ws/m') })).word).toBe('running');
  });

  it("without a loop shows the last run's outcome and how long ago it ended", () => {
    const lastRun = { id: 4, outcome: 'max_iterations' as const, endedAt: new Date(NOW - 180_000).toISOString(), iterations: 5, maxIterations: 5, forced: false };
    const row = moduleRow('m', { lifecycle: 'executing', lastRun });
    expect(stateCell(row)).toMatchObject({ glyph: '■', word: 'max iter', tone: 'warn' });
    // in their own columns: the end in LAST, the active time in ELAPSED (when known); STEP empty
    expect(rowCells(row, NOW, LIMITS)).toMatchObject({ iteration: '5/5', step: '', elapsed: '', lastSignal: '3m ago', iterationFill: 1 });
    expect(rowCells({ ...row, lastRun: { ...lastRun, activeMs: 125_000 } }, NOW, LIMITS).elapsed).toBe('2:05');
    expect(stateCell({ ...row, lastRun: { ...lastRun, outcome: 'complete' } })).toMatchObject({ glyph: '✓', word: 'complete' });
    expect(rowCells({ ...row, lastRun: { ...lastRun, endedAt: new Date(NOW - 59_000).toISOString() } }, NOW, LIMITS).lastSignal).toBe('just now');
    // a running loop wins over the last run
    expect(stateCell({ ...row, loop: loopRow('/ws/m') }).word).toBe('running');
  });

  it('stalled, quota and failed loops are loud (drawn inverse); running ones and finished runs are not', () => {
    const loud = (status: string): boolean => Boolean(stateCell(moduleRow('m', { loop: loopRow('/ws/m', { status: status as never }) })).loud);
    expect(['stalled', 'quota_wait', 'failed'].filter(loud)).toEqual(['stalled', 'quota_wait', 'failed']);
    expect(['running', 'starting', 'stopping', 'suspended'].filter(loud)).toEqual([]);
    // an orphan is muted, whatever its state
    expect(stateCell(moduleRow('m', { here: false, ownerAlive: false, loop: loopRow('/ws/m', { status: 'stalled' }) })).loud).toBe(false);
  });

  it('bars: block glyphs in eighths, the empty part drawn so the length reads without colour', () => {
    expect(bar(0, 5)).toBe('░░░░░');
    expect(bar(0.5, 5)).toBe('██▌░░');
    expect(bar(1, 5)).toBe('█████');
    expect(bar(1 / 40, 5)).toBe('▏░░░░');
    expect(bar(7, 5)).toBe('█████'); // over the limit (6/5): full, never longer
    expect(bar(Number.NaN, 3)).toBe('░░░');
    for (let i = 0; i <= 40; i++) expect([...bar(i / 40, 5)]).toHaveLength(5);
    expect(fill(3, 0)).toBe(0);
    expect(fill(6, 5)).toBe(1);
  });

  it('the header counts the four groups the tmux segment counts, those needing a person first', () => {
    const rows = [
      moduleRow('a', { loop: loopRow('/ws/a') }), moduleRow('b', { loop: loopRow('/ws/b') }),
      moduleRow('c', { loop: loopRow('/ws/c', { status: 'failed' }) }), moduleRow('d', { lifecycle: 'complete' }),
      // a stalled loop still runs; a run stuck at its stall limit failed; a module never run is in no group
      moduleRow('e', { loop: loopRow('/ws/e', { status: 'stalled' }) }), moduleRow('f', { lifecycle: 'planning' }),
      moduleRow('g', { lastRun: { id: 1, outcome: 'stall_limit', endedAt: new Date(NOW).toISOString(), iterations: 3, maxIterations: 5, forced: false } }),
      moduleRow('h', { lastRun: { id: 2, outcome: 'max_iterations', endedAt: new Date(NOW).toISOString(), iterations: 5, maxIterations: 5, forced: false } }),
    ];
    const counts = stateCounts(rows);
    expect(counts.map((c) => countText(c, false))).toEqual(['✗ 2 failed', '▶ 3 running', '✓ 1 done']);
    expect(counts.map((c) => countText(c, true)).join(' ')).toBe('✗2 ▶3 ✓1');
    expect(tmuxSegment(triageOf(rows), true)).toBe('▶3 ✓1 ✗2');
    expect(stateCounts([])).toEqual([]);
  });

  it('counts elapsed active time, paused in quota wait, and the age of the last signal', () => {
    const loop = loopRow('/ws/m', {
      startedAt: new Date(NOW - 10 * 60_000).toISOString(), quotaWaitMs: 60_000, quotaWaitSince: new Date(NOW - 2 * 60_000).toISOString(),
      lastSignalAt: new Date(NOW - 125_000).toISOString(), timeoutMinutes: 90, iteration: 4, maxIterations: 12, stallCount: 1, recoveryStep: 2, recoveryTotal: 3,
      step: 'exec', result: '(done)', next: 'check',
    });
    const c = rowCells(moduleRow('m', { loop }), NOW, LIMITS);
    expect(c.elapsed).toBe('7:00/90m'); // 10 min less 1 min waited less 2 min waiting now
    expect(c.paused).toBe(true);
    expect(c.lastSignal).toBe('2m');
    expect(c.iteration).toBe('4/12');
    expect(c.stalls).toBe('1/3');
    expect(c.recoveries).toBe('2/3 of 10');
    expect(c.step).toBe('exec (done) -> check');
    expect(rowCells(moduleRow('m', { loop: { ...loop, timeoutMinutes: 120 } }), NOW, LIMITS).elapsed).toBe('7:00/2h');
  });

  it('a failed loop shows why it failed where its step was', () => {
    const why = 'the agent does not know the command /ai-cli-task: run `autodeck init` in the project, or set `agent`';
    const failed = loopRow('/ws/m', { status: 'failed', stopReason: why, step: 'exec' });
    expect(rowCells(moduleRow('m', { loop: failed }), NOW, LIMITS).step).toBe(why);
    // a running loop's stop reason is no failure: it keeps its step
    expect(rowCells(moduleRow('m', { loop: { ...failed, status: 'stopping', stopReason: 'user_stop' } }), NOW, LIMITS).step).toBe('exec PASS -> exec');
  });

  it("takes a loop's own stall threshold over the default, and makes names and steps printable", () => {
    const loop = loopRow('/ws/m', { settings: { stallThreshold: 5 }, step: 'exec\x1b[2J' });
    const c = rowCells(moduleRow('evil\x1b]0;x\x07', { loop }), NOW, LIMITS);
    expect(c.stalls).toBe('0/5');
    expect(c.name).toBe('evil\\x1b]0;x\\x07');
    expect(c.step).not.toContain('\x1b');
  });

  it('formats durations with a fixed shape', () => {
    expect(clockDuration(65_400)).toBe('1:05');
    expect(clockDuration(3_723_000)).toBe('1:02:03');
    expect(clockDuration(-5)).toBe('0:00');
    expect([shortAge(59_999), shortAge(60_000), shortAge(7_200_000), shortAge(2 * 86_400_000)]).toEqual(['59s', '1m', '2h', '2d']);
  });
});

describe('layout', () => {
  it('names the width breakpoints', () => {
    expect([breakpointFor(140), breakpointFor(100), breakpointFor(99), breakpointFor(60), breakpointFor(59), breakpointFor(40)])
      .toEqual(['wide', 'wide', 'normal', 'normal', 'side', 'side']);
    expect(columnsFor('side').map((c) => c.id)).toEqual(['name', 'state', 'iteration', 'elapsed']);
  });

  it.each([['wide', 100], ['normal', 60], ['side', 40]] as const)('%s columns leave the name at least 10 columns at %i', (bp, width) => {
    const fixed = columnsFor(bp).reduce((n, c) => n + (c.width ?? 0), 0);
    const flexible = columnsFor(bp).filter((c) => c.width === undefined).length;
    expect((width - 2 - fixed) / flexible).toBeGreaterThanOrEqual(10);
  });

  it.each([['wide', 120], ['wide', 101], ['normal', 80], ['normal', 61], ['side', 45]] as const)('%s columns at %i fill the width exactly', (bp, width) => {
    const widths = columnWidths(columnsFor(bp), width);
    expect(MARK_WIDTH + widths.reduce((n, w) => n + w, 0)).toBe(width);
    // fixed columns keep their width; the shared ones differ by one column at most
    columnsFor(bp).forEach((c, i) => c.width !== undefined && expect(widths[i]).toBe(c.width));
    const shared = widths.filter((_, i) => columnsFor(bp)[i]!.width === undefined);
    expect(Math.max(...shared) - Math.min(...shared)).toBeLessThanOrEqual(1);
    expect(tableOverflows(columnsFor(bp), width)).toBe(false);
  });

  it('below 40 columns the table is wider than the terminal, and says so', () => {
    expect(tableOverflows(columnsFor('side'), 30)).toBe(true);
    expect(columnWidths(columnsFor('side'), 30)[0]).toBe(6);
  });

  it('cuts a cell to leave its last column as the gap, counting wide characters as two', () => {
    expect(cutCell('check PASS -> exec', 12)).toBe('check PASS…');
    expect(cutCell('short', 12)).toBe('short');
    expect(cutCell('anything', 1)).toBe('');
    expect(stringWidth(cutCell('日本語-モジュール', 9))).toBeLessThanOrEqual(8);
    for (const text of ['日本語-モジュール', 'plain', '▶ running', '']) {
      expect(stringWidth(fitCell(text, 9))).toBe(9);
      expect(fitCell(text, 9).endsWith(' ')).toBe(true);
    }
  });

  it('measures the cells of a running row without the Unicode tables: every glyph of its own is one narrow cell', () => {
    // Each clock tick cuts every cell; a glyph outside NARROW sends its cell through string-width.
    const row = moduleRow('m', { loop: loopRow('/ws/m', { startedAt: new Date(NOW - 65_000).toISOString(), lastSignalAt: new Date(NOW - 5_000).toISOString(), step: 'plan', result: 'ok', next: 'check' }) });
    const cells = rowCells(row, NOW, LIMITS);
    const texts = [...Object.values(cells).filter((v): v is string => typeof v === 'string'), cells.state.glyph, bar(0.37, 6)];
    expect(cells.ctx).toBe('–');
    for (const t of texts) {
      expect(NARROW.test(t), t).toBe(true);
      expect(stringWidth(t)).toBe(t.length);
    }
  });

  it('keeps the selection in view, moving the window as little as it can', () => {
    expect(visibleWindow(5, 4, 10)).toEqual({ start: 0, end: 5 });
    expect(visibleWindow(30, 0, 10)).toEqual({ start: 0, end: 10 });
    expect(visibleWindow(30, 12, 10, 0)).toEqual({ start: 3, end: 13 });
    expect(visibleWindow(30, 5, 10, 3)).toEqual({ start: 3, end: 13 });
    expect(visibleWindow(30, 2, 10, 3)).toEqual({ start: 2, end: 12 });
    expect(visibleWindow(30, 29, 10, 25)).toEqual({ start: 20, end: 30 });
  });
});

describe('the start form', () => {
  it('accepts the settings ranges and names what is wrong', () => {
    expect(validateStartForm({ maxIterations: '7', timeoutMinutes: '0.5' })).toEqual({ ok: true, limits: { maxIterations: 7, timeoutMinutes: 0.5 } });
    const bad = validateStartForm({ maxIterations: '0', timeoutMinutes: '' });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors.maxIterations).toMatch(/1\.\.1000/);
    expect(bad.errors.timeoutMinutes).toBe('a value is needed');
    for (const v of ['1.5', '1001', 'x', '-3', '1e3']) expect(validateStartForm({ maxIterations: v, timeoutMinutes: '30' }).ok).toBe(false);
    for (const v of ['0', '1441', 'abc']) expect(validateStartForm({ maxIterations: '5', timeoutMinutes: v }).ok).toBe(false);
  });

  it('moves between fields in both directions, wrapping', () => {
    expect(nextField('maxIterations', 1)).toBe('timeoutMinutes');
    expect(nextField('timeoutMinutes', 1)).toBe('maxIterations');
    expect(nextField('maxIterations', -1)).toBe('timeoutMinutes');
  });
});

it('screen lines are right-trimmed with trailing blank lines dropped', () => {
  expect(screenLines(['a  ', '', 'b', '   ', ''])).toEqual(['a', '', 'b']);
});
