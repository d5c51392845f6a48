import { describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { ptyAttach, type ReplayableSession } from '../../src/attach/ptyAttach.js';
import { RESET_TERMINAL_MODES } from '../../src/attach/modes.js';
import { bannerBytes, bannerText } from '../../src/attach/banner.js';
import type { SessionExit } from '../../src/sessions/session.js';

// The hand-off from snapshot to live bytes, with a session whose parse point the test
// controls: output that arrives between the subscription and the snapshot must land
// after the snapshot, once, in order. (The real PTY rarely hits that window.)

class FakeSession implements ReplayableSession {
  readonly backend = 'pty' as const;
  readonly name = 'fake';
  readonly pid = 1;
  exited = false;
  cols = 120;
  rows = 40;
  readonly written: string[] = [];
  readonly sizes: [number, number][] = [];
  readonly outputListeners = new Set<(d: string) => void>();
  readonly exitListeners: ((e: SessionExit) => void)[] = [];
  readonly parsedCallbacks: (() => void)[] = [];
  write(d: string): void {
    this.written.push(d);
  }
  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    this.sizes.push([cols, rows]);
  }
  screen(): string[] {
    return [];
  }
  onExit(l: (e: SessionExit) => void): void {
    this.exitListeners.push(l);
  }
  onOutput(l: (d: string) => void): () => void {
    this.outputListeners.add(l);
    return () => this.outputListeners.delete(l);
  }
  kill(): void {}
  dispose(): void {}
  serialize(): string {
    return `<state ${this.cols}x${this.rows}>`;
  }
  whenParsed(fn: () => void): void {
    this.parsedCallbacks.push(fn);
  }
  at = { x: 4, y: 7 };
  cursor(): { x: number; y: number } {
    return this.at;
  }
  emit(d: string): void {
    for (const l of this.outputListeners) l(d);
  }
}

class FakeOutput extends EventEmitter {
  readonly chunks: string[] = [];
  constructor(public columns: number, public rows: number) {
    super();
  }
  write(d: string): boolean {
    this.chunks.push(d);
    return true;
  }
}

describe('ptyAttach hand-off', () => {
  it('holds output until the snapshot is drawn, then passes it through, until detached', async () => {
    const s = new FakeSession();
    const input = new PassThrough();
    const output = new FakeOutput(100, 30);
    const attached = ptyAttach(s, { input, output }, '\x11');

    s.emit('early-1;');
    s.emit('early-2;');
    expect(output.chunks).toEqual([]);
    expect(s.parsedCallbacks).toHaveLength(1);
    s.parsedCallbacks[0]!(); // everything before the subscription is parsed now
    // the way back on the last row (the agent has the 29 above it), then the snapshot, then the held output
    const line = bannerBytes(bannerText('fake', 'Ctrl-Q'), 30, 100, s.at);
    expect(output.chunks.join('')).toBe(`${RESET_TERMINAL_MODES}${line}\x1b[H<state 100x29>early-1;early-2;`);

    s.emit('live;');
    expect(output.chunks.at(-1)).toBe('live;');

    // a clear screen reaches the last row: later output waits until the line is drawn again,
    // at the cursor the emulator has after exactly the bytes the terminal got
    s.emit('\x1b[2Jcleared;');
    s.emit('after;');
    expect(output.chunks.at(-1)).toBe('\x1b[2Jcleared;');
    s.at = { x: 8, y: 0 };
    s.parsedCallbacks[1]!();
    expect(output.chunks.slice(-2)).toEqual([bannerBytes(bannerText('fake', 'Ctrl-Q'), 30, 100, { x: 8, y: 0 }), 'after;']);

    input.write('x\x11y');
    expect(await attached).toBe('detached');
    expect(s.written).toEqual(['x']);
    expect(s.outputListeners.size).toBe(0);
    expect(output.listenerCount('resize')).toBe(0);
    expect(input.listenerCount('data')).toBe(0);
    expect(output.chunks.at(-1)).toBe(RESET_TERMINAL_MODES);
    expect(s.sizes).toEqual([[100, 29], [120, 40]]);
  });

  it('draws nothing when the agent exits before the snapshot', async () => {
    const s = new FakeSession();
    const output = new FakeOutput(100, 30);
    const attached = ptyAttach(s, { input: new PassThrough(), output }, '\x11');
    s.exited = true;
    for (const l of s.exitListeners) l({ exitCode: 0 });
    expect(await attached).toBe('exited');
    s.parsedCallbacks[0]!();
    expect(output.chunks).toEqual([RESET_TERMINAL_MODES]);
    expect(s.sizes).toEqual([[120, 40]]);
  });
});
