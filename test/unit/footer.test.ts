import { describe, expect, it } from 'vitest';
import { footerItems } from '../../src/deck/footer.js';
import { breakpointFor } from '../../src/deck/layout.js';
import { loopRow, moduleRow } from '../helpers/fakeModel.js';

const textAt = (width: number, row = moduleRow('m', { loop: loopRow('/ws/AiTasks/m') }), key = 'ctrl-q'): string =>
  footerItems({ row }, breakpointFor(width), width, key).map((i) => i.text).join('  ');

describe('the footer', () => {
  it('names the way back from attach where there is room, with the configured key', () => {
    expect(textAt(160)).toContain('Enter attach (Ctrl-Q back)');
    expect(textAt(160, undefined, 'ctrl-b')).toContain('Enter attach (Ctrl-B back)');
  });

  it.each([160, 120, 100, 80, 60, 45, 40, 30])('fits %i columns, and always ends with help and quit', (width) => {
    const text = textAt(width);
    if (width >= 40) expect([...text].length, text).toBeLessThanOrEqual(width);
    expect(text).toMatch(/\? help {2}q quit$/);
  });

  it('drops the least used first: at 45 columns moving, start, stop and attach give way before help and quit', () => {
    const narrow = textAt(45);
    expect(narrow.endsWith('? help  q quit')).toBe(true);
    expect(textAt(45)).not.toContain('(Ctrl-Q back)');
    expect(textAt(120)).toContain('l log');
    expect(textAt(100)).toContain('Enter attach (Ctrl-Q back)'); // the way back goes after the views, before the loops' keys
  });
});
