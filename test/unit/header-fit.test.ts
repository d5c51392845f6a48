import { describe, expect, it } from 'vitest';
import { headerFitting, headerText } from '../../src/deck/header.js';
import { stateDef } from '../../src/deck/states.js';

// The demo's end: a row in each of five groups, the counts' words wider than 80 columns.
const states = [
  stateDef('loop', 'running'), stateDef('outcome', 'complete'), stateDef('outcome', 'complete'), stateDef('outcome', 'complete'),
  stateDef('outcome', 'max_iterations'), stateDef('loop', 'quota_wait'), stateDef('outcome', 'blocked'),
];

describe('the header at a width', () => {
  it('says the counts in words when they fit', () => {
    const { parts, compact } = headerFitting('autodeck demo', 'vm', states, 160, false);
    expect(compact).toBe(false);
    expect(headerText(parts, false)).toBe('autodeck demo · host vm · 7 modules  ✗ 1 failed  ‖ 1 waiting  ▶ 1 running  ■ 1 stopped  ✓ 3 done');
  });

  it('goes compact rather than cut a count off the end of the line', () => {
    const { parts, compact } = headerFitting('autodeck demo', 'vm', states, 80, false);
    expect(compact).toBe(true);
    const text = headerText(parts, true);
    expect(text).toBe('autodeck demo ✗1 ‖1 ▶1 ■1 ✓3 · vm');
    expect(text.length).toBeLessThanOrEqual(80);
  });

  it('is compact in a side pane whatever its width', () => {
    expect(headerFitting('autodeck', 'vm', states, 200, true).compact).toBe(true);
  });
});
