import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { dueOnTick, everyNthTick, nextDue, TICK_MS } from '../../src/supervisor/tick.js';

describe('jobs on the supervisor tick', () => {
  it('a job is due within half a tick of its time, not before', () => {
    expect(dueOnTick(10_000, 10_000)).toBe(true);
    expect(dueOnTick(10_000 - TICK_MS / 2, 10_000)).toBe(true);
    expect(dueOnTick(10_000 - TICK_MS / 2 - 1, 10_000)).toBe(false);
  });

  it('keeps its own beat when ticks come a little early or late', () => {
    // ticks 500 ms apart, drifting a few ms: a 10 s job runs every 20th tick
    let due = 10_000;
    const ran: number[] = [];
    for (let i = 1; i <= 100; i++) {
      const now = i * TICK_MS + (i % 3) - 1;
      if (dueOnTick(now, due)) {
        ran.push(i);
        due = nextDue(now, due, 10_000);
      }
    }
    expect(ran).toEqual([20, 40, 60, 80, 100]);
  });

  it('after a pause (a suspended machine) runs once, then a period later, not in a burst', () => {
    expect(nextDue(65_000, 10_000, 10_000)).toBe(75_000);
    expect(nextDue(10_100, 10_000, 10_000)).toBe(20_000);
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
