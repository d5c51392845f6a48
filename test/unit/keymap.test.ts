import { describe, expect, it } from 'vitest';
import { COMMANDS, commandForKey, keyListMarkdown } from '../../src/keymap.js';
import type { DeckRow } from '../../src/deck/deck.js';
import type { LoopRow } from '../../src/store/loops.js';

const row = (loop?: Partial<LoopRow>, here = true): DeckRow =>
  ({ key: '/t/a', name: 'a', lifecycle: 'review', here, ownerAlive: true, loop: loop as LoopRow | undefined });

describe('the command table', () => {
  it('gives every command a key, a description and a footer label', () => {
    for (const c of COMMANDS) {
      expect(c.keys.length, c.id).toBeGreaterThan(0);
      expect(c.description.trim(), c.id).not.toBe('');
      expect(c.label.trim(), c.id).not.toBe('');
    }
  });
  it('never binds one key twice', () => {
    const keys = COMMANDS.flatMap((c) => c.keys);
    expect(new Set(keys).size).toBe(keys.length);
  });
  it('has the dashboard keys', () => {
    for (const [key, id] of [['j', 'down'], ['k', 'up'], ['s', 'start'], ['x', 'stop'], ['X', 'forceStop'], ['return', 'attach'],
      ['r', 'restart'], ['l', 'log'], ['/', 'filter'], ['d', 'detail'], ['?', 'help'], ['q', 'quit']] as const) {
      expect(commandForKey(key)?.id, key).toBe(id);
    }
  });
  it('says why a command cannot run now', () => {
    const start = commandForKey('s')!;
    const stop = commandForKey('x')!;
    const restart = commandForKey('r')!;
    expect(start.disabled?.({})).toMatch(/no module/);
    expect(start.disabled?.({ row: row() })).toBeUndefined();
    expect(start.disabled?.({ row: row({ status: 'running' }) })).toMatch(/already runs/);
    expect(stop.disabled?.({ row: row({ status: 'running' }) })).toBeUndefined();
    expect(restart.disabled?.({ row: row({ status: 'running' }) })).toMatch(/failed/);
    expect(restart.disabled?.({ row: row({ status: 'failed' }) })).toBeUndefined();
    expect(commandForKey('return')!.disabled?.({ row: row({ status: 'running' }, false) })).toMatch(/this process/);
    expect(stop.dangerous && commandForKey('X')!.dangerous).toBe(true);
  });
  it('renders the key list for the README', () => {
    expect(keyListMarkdown()).toMatch(/\| `↑` \/ `k` \| Move the selection up \|/);
  });
});
