import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ScreenFeed, SCREEN_UPDATES_PER_SECOND } from '../../src/deck/screenFeed.js';
import type { Session } from '../../src/sessions/session.js';

/** A session whose screen the test sets; it counts how often it is captured. */
function fakeSession() {
  const listeners = new Set<(d: string) => void>();
  let lines = ['$ '];
  const s = {
    captures: 0,
    set(text: string[]) {
      lines = text;
      for (const l of listeners) l('bytes');
    },
    screen() {
      s.captures++;
      return [...lines, '', '   '];
    },
    onOutput(l: (d: string) => void) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    listeners,
  };
  return s;
}

describe('the throttled screen feed', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it(`passes a flood of output on at most ${SCREEN_UPDATES_PER_SECOND} times a second, ending on the last screen`, () => {
    const s = fakeSession();
    const feed = new ScreenFeed(s as unknown as Session, () => Date.now());
    let updates = 0;
    feed.subscribe(() => updates++);
    expect(feed.getSnapshot()).toEqual(['$']);
    for (let i = 0; i < 1000; i++) {
      s.set([`line ${i}`]);
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(200);
    expect(updates).toBeGreaterThan(5);
    expect(updates).toBeLessThanOrEqual(SCREEN_UPDATES_PER_SECOND + 1);
    expect(s.captures).toBeLessThanOrEqual(SCREEN_UPDATES_PER_SECOND + 2);
    expect(feed.getSnapshot()).toEqual(['line 999']);
    feed.close();
  });

  it('follows the output only while watched, catching up when watched again', () => {
    const s = fakeSession();
    const feed = new ScreenFeed(s as unknown as Session, () => Date.now());
    expect(s.listeners.size).toBe(0);
    const stop = feed.subscribe(() => {});
    expect(s.listeners.size).toBe(1);
    stop();
    expect(s.listeners.size).toBe(0);
    s.set(['while nobody watched']);
    vi.advanceTimersByTime(100);
    const captures = s.captures;
    expect(feed.getSnapshot()).toEqual(['$']);
    feed.subscribe(() => {});
    expect(feed.getSnapshot()).toEqual(['while nobody watched']);
    expect(s.captures).toBe(captures + 1);
    feed.close();
  });

  it('keeps its snapshot when nothing visible changed, and lets go of the session on close', () => {
    const s = fakeSession();
    const feed = new ScreenFeed(s as unknown as Session, () => Date.now());
    let updates = 0;
    feed.subscribe(() => updates++);
    const first = feed.getSnapshot();
    s.set(['$ ']); // same text, new bytes (a cursor blink)
    vi.advanceTimersByTime(100);
    expect(updates).toBe(0);
    expect(feed.getSnapshot()).toBe(first);
    feed.close();
    expect(s.listeners.size).toBe(0);
    s.set(['later']);
    vi.advanceTimersByTime(100);
    expect(feed.getSnapshot()).toBe(first);
  });

  it('captures once the emulator has parsed the bytes, however late that is (an agent then silent at a prompt)', () => {
    // Like the PTY session: output is announced when it arrives, the screen changes only
    // once the emulator has parsed it; here 300 ms later, as on a machine short of a core.
    let onScreen = ['$ '];
    const announce = new Set<(d: string) => void>();
    const parses: Array<() => void> = [];
    const session = {
      screen: () => [...onScreen],
      onOutput(l: (d: string) => void) {
        announce.add(l);
        return () => announce.delete(l);
      },
      whenParsed: (fn: () => void) => void parses.push(fn),
    };
    const feed = new ScreenFeed(session as unknown as Session, () => Date.now());
    feed.subscribe(() => {});
    for (const l of announce) l('Overwrite the config? (y/n)');
    vi.advanceTimersByTime(300);
    expect(feed.getSnapshot()).toEqual(['$']);
    onScreen = ['Overwrite the config? (y/n)']; // parsed; the agent now waits, printing nothing
    for (const fn of parses.splice(0)) fn();
    expect(feed.getSnapshot()).toEqual(['Overwrite the config? (y/n)']);
    feed.close();
  });
});
