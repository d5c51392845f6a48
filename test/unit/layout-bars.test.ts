import { describe, expect, it } from 'vitest';
import { breakpointFor, columnsFor, columnWidths, WIDE_BARS_MIN_COLUMNS } from '../../src/deck/layout.js';

const nameWidth = (width: number): number => {
  const columns = columnsFor(breakpointFor(width), width);
  return columnWidths(columns, width)[columns.findIndex((c) => c.id === 'name')]!;
};

describe('the wide table between 100 and 120 columns', () => {
  it('gives its bars\' columns to the name and the step, so a usual name is not cut', () => {
    const narrow = columnsFor('wide', 100);
    expect(narrow.map((c) => c.id)).toEqual(columnsFor('wide', WIDE_BARS_MIN_COLUMNS).map((c) => c.id));
    expect(narrow.some((c) => c.bar !== undefined)).toBe(false);
    expect(columnsFor('wide', WIDE_BARS_MIN_COLUMNS).filter((c) => c.bar !== undefined).map((c) => c.id)).toEqual(['iteration', 'elapsed']);
    // `add-login-page` and its gap: 15 columns
    for (const width of [80, 100, 110, 119, 120, 130]) expect(nameWidth(width), `${width} columns`).toBeGreaterThanOrEqual(15);
    // the same array each time (rows are memoised on it)
    expect(columnsFor('wide', 105)).toBe(columnsFor('wide', 110));
  });
});
