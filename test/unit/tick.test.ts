import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { dueOnTick, everyNthTick, nextDue, ticksIn, TICK_MS } from '../../src/supervisor/tick.js';

describe('jobs on the supervisor tick', () => {
  it('a job is due within half a tick of its time, not before', () => {
    expect(dueOnTick(10_000, 10_000)).toBe(true);
    expect(dueOnTick(10_000 - TICK_MS / 2, 10_000)).toBe(true);
    expect(dueOnTick(10_000 - TICK_MS / 2 - 1, 10_000)).toBe(false);
  });

  it('keeps its own beat when ticks come a little early or late', () => {
    // ticks TICK_MS apart, drifting a few ms: a 10 s job runs every (10 s / TICK_MS)-th tick
    const every = 10_000 / TICK_MS;
    let due = 10_000;
    const ran: number[] = [];
    for (let i = 1; i <= 5 * every; i++) {
      const now = i * TICK_MS + (i % 3) - 1;
      if (dueOnTick(now, due)) {
        ran.push(i);
        due = nextDue(now, due, 10_000);
      }
    }
    expect(ran).toEqual([1, 2, 3, 4, 5].map((n) => n * every));
  });

  it('after a pause (a suspended machine) runs once, then a period later, not in a burst', () => {
    expect(nextDue(65_000, 10_000, 10_000)).toBe(75_000);
    expect(nextDue(10_100, 10_000, 10_000)).toBe(20_000);
  });

  it('counts a period in ticks, at least one', () => {
    expect(ticksIn(5 * TICK_MS)).toBe(5);
    expect(ticksIn(TICK_MS)).toBe(1);
    expect(ticksIn(TICK_MS / 10)).toBe(1);
    expect(ticksIn(0)).toBe(1);
  });

  it('calls a listener every n-th tick until stopped', () => {
    const source = new EventEmitter();
    let calls = 0;
    const stop = everyNthTick(source, 2, () => calls++);
    for (let i = 0; i < 5; i++) source.emit('tick');
    expect(calls).toBe(2);
    stop();
    for (let i = 0; i < 4; i++) source.emit('tick');
    expect(calls).toBe(2);
    expect(source.listenerCount('tick')).toBe(0);
  });
});
