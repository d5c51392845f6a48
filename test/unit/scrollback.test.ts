import { expect, it } from 'vitest';
import { TextScrollback } from '../../src/sessions/scrollback.js';

it('keeps the newest lines up to its capacity, oldest first', () => {
  const s = new TextScrollback(3);
  expect(s.lines()).toEqual([]);
  for (const l of ['a', 'b']) s.push(l);
  expect(s.lines()).toEqual(['a', 'b']);
  for (const l of ['c', 'd', 'e', 'f', 'g']) s.push(l);
  expect(s.lines()).toEqual(['e', 'f', 'g']);
  expect(s.length).toBe(3);
  const none = new TextScrollback(0);
  none.push('x');
  expect(none.lines()).toEqual([]);
});
