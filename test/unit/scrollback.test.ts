import { expect, it } from 'vitest';

import { runInNewContext } from 'node:vm';
import v8 from 'node:v8';
import { TextScrollback, flat } from '../../src/sessions/scrollback.js';

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

it('keeps text exactly as given: wide characters, emoji, lone surrogates, empty lines', () => {
  const odd = ['', 'plain', '漢字 and ✻', '🙂 x', 'half \ud83d of a pair', 'x'.repeat(300)];
  const s = new TextScrollback(10);
  for (const l of odd) s.push(l);
  expect(s.lines()).toEqual(odd);
  for (const l of odd) expect(flat(l)).toBe(l);
});

it('stores a line built a character at a time (as xterm builds it) as one flat string', () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const lines = 5000;
  const built = (i: number): string => {
    let text = '';
    for (const c of `line ${i}: the agent printed this, some sixty characters long`) text += c;
    return text;
  };
  /** Heap kept by what `fill` returns, measured with a forced collection either side. */
  const heapKept = (fill: () => { length: number }): number => {
    gc();
    const before = v8.getHeapStatistics().used_heap_size;
    const kept = fill();
    gc();
    const used = v8.getHeapStatistics().used_heap_size - before;
    expect(kept.length).toBe(lines);
    return used;
  };
  const flatLines = heapKept(() => {
    const s = new TextScrollback(lines);
    for (let i = 0; i < lines; i++) s.push(built(i));
    return s;
  });
  const ropes = heapKept(() => Array.from({ length: lines }, (_, i) => built(i)));
  // About 0.5 MB flat against about 10 MB as ropes.
  expect(flatLines).toBeLessThan(ropes / 4);
});
