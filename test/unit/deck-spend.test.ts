import { describe, expect, it } from 'vitest';
import { rowCells, spendCells } from '../../src/deck/cells.js';
import { columnWidths, columnsFor, tableOverflows, MARK_WIDTH, WIDE_SPEND_MIN_COLUMNS } from '../../src/deck/layout.js';
import { ctxCellText, spendCellText, tokensText } from '../../src/spend/text.js';
import { loopRow, moduleRow } from '../helpers/fakeModel.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const LIMITS = { stallThreshold: 3, recoveryTotal: 10 };

describe('the tokens/$ and ctx % cells', () => {
  it('read 12.3k $0.41; tokens only without a price; – without a transcript, never 0', () => {
    expect(spendCellText(12_345, 0.4149)).toBe('12.3k $0.41');
    expect(spendCellText(12_345, null)).toBe('12.3k');
    expect(spendCellText(null, null)).toBe('–');
    expect(spendCellText(0, 0)).toBe('0 $0.00'); // a transcript that shows nothing spent yet is a measured 0
    expect([tokensText(950), tokensText(1_250_000), tokensText(250_000)]).toEqual(['950', '1.3M', '250k']);
    expect(ctxCellText(850_310, 1_000_000)).toBe('85%');
    expect(ctxCellText(5000, null)).toBe('–'); // a model without a window
    expect(ctxCellText(null, null)).toBe('–');
  });

  it("a loop's row shows its figures now, a finished run its spend and no ctx, a module never run nothing", () => {
    const running = moduleRow('m', { loop: { ...loopRow('/ws/m'), tokens: 41_000, costUsd: 0.125, contextTokens: 150_000, contextWindow: 200_000 } });
    expect(rowCells(running, NOW, LIMITS)).toMatchObject({ spend: '41.0k $0.13', ctx: '75%' });
    const noTranscript = moduleRow('m', { loop: loopRow('/ws/m') });
    expect(spendCells(noTranscript)).toEqual({ spend: '–', ctx: '–' });
    const lastRun = { id: 1, outcome: 'budget' as const, endedAt: new Date(NOW).toISOString(), iterations: 3, maxIterations: 20, forced: false, tokens: 9_000, costUsd: null };
    expect(rowCells(moduleRow('m', { lastRun }), NOW, LIMITS)).toMatchObject({ spend: '9.0k', ctx: '' });
    expect(spendCells(moduleRow('m', {}))).toEqual({ spend: '', ctx: '' });
  });
});

describe('the spend columns in the layout', () => {
  it(`come in the wide layout from ${WIDE_SPEND_MIN_COLUMNS} columns, after the step; the narrow layouts do not change`, () => {
    const ids = (cols: readonly { id: string }[]) => cols.map((c) => c.id);
    expect(ids(columnsFor('wide', WIDE_SPEND_MIN_COLUMNS - 1))).toEqual(ids(columnsFor('wide')));
    expect(ids(columnsFor('wide', WIDE_SPEND_MIN_COLUMNS))).toEqual(['name', 'state', 'iteration', 'step', 'spend', 'ctx', 'elapsed', 'stalls', 'recoveries', 'lastSignal']);
    expect(columnsFor('normal', 500)).toBe(columnsFor('normal'));
    expect(columnsFor('side', 500)).toBe(columnsFor('side'));
    // the same array each time (memoised rows stay memoised)
    expect(columnsFor('wide', 200)).toBe(columnsFor('wide', 140));
  });

  it.each([WIDE_SPEND_MIN_COLUMNS, 143, 200])('at %i columns the name and step keep at least 10 columns, and the table fills the width exactly', (width) => {
    const cols = columnsFor('wide', width);
    const widths = columnWidths(cols, width);
    expect(MARK_WIDTH + widths.reduce((n, w) => n + w, 0)).toBe(width);
    cols.forEach((c, i) => c.width === undefined && expect(widths[i]).toBeGreaterThanOrEqual(10));
    expect(tableOverflows(cols, width)).toBe(false);
    // the widest usual values fit with their gap: `999.9k $99.99` is cut, `99.9k $9.99` and `100%` are not
    expect(widths[cols.findIndex((c) => c.id === 'spend')]! - 1).toBeGreaterThanOrEqual('99.9k $9.99'.length);
    expect(widths[cols.findIndex((c) => c.id === 'ctx')]! - 1).toBeGreaterThanOrEqual('100%'.length);
  });
});
