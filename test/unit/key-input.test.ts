import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { KeyInput, splitKeys } from '../../src/deck/keyInput.js';

/** A reader as Ink's: on 'readable', takes every key there is; `got` collects them. */
function drain(keys: KeyInput): { got: string[]; reader: () => void } {
  const got: string[] = [];
  const reader = (): void => {
    let k: string | null;
    while ((k = keys.read()) !== null) got.push(k);
  };
  return { got, reader };
}

class FakeTty extends EventEmitter {
  isTTY = true;
  isRaw = false;
  chunks: (Buffer | string)[] = [];
  setRawMode(m: boolean) {
    this.isRaw = m;
  }
  read() {
    return this.chunks.shift() ?? null;
  }
  push(chunk: Buffer | string) {
    this.chunks.push(chunk);
    this.emit('readable');
  }
}

describe('key input for Ink', () => {
  it('splits a read into keys: code points, astral ones whole, and escape sequences whole', () => {
    expect(splitKeys('jj\x7f\x7f3😀')).toEqual(['j', 'j', '\x7f', '\x7f', '3', '😀']);
    expect(splitKeys('\x1b[A\x1b[B\x1b[Zk\x1bOP\x1b[1;5A\x1b[[A')).toEqual(['\x1b[A', '\x1b[B', '\x1b[Z', 'k', '\x1bOP', '\x1b[1;5A', '\x1b[[A']);
    expect(splitKeys('\x1bx\x1b\x1b[A\x1b')).toEqual(['\x1bx', '\x1b\x1b[A', '\x1b']);
    expect(splitKeys('\x1b[')).toEqual(['\x1b[']); // cut short: Ink's parser keeps it pending
    // a terminal's own replies are no keys: XTVERSION (DCS), an OSC colour, DA, a cursor report
    expect(splitKeys('a\x1bP>|tmux 3.3a\x1b\\b\x1b]11;rgb:0/0/0\x07c\x1b[?1;2cd\x1b[>0;95;0ce\x1b[12;40Rf')).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(splitKeys('\x1bP>|unterminated x')).toEqual([]);
    expect(splitKeys('\x1b[?2026;2$yq\x1b[?1u\x1b[97;5u')).toEqual(['q', '\x1b[97;5u']); // a kitty key event stays
  });

  it('gives one key per turn, decodes UTF-8 split across chunks, and listens to the terminal only while someone reads', async () => {
    const tty = new FakeTty();
    const keys = new KeyInput(tty);
    expect(tty.listenerCount('readable')).toBe(0);
    const { got, reader } = drain(keys);
    keys.on('readable', reader);
    expect(tty.listenerCount('readable')).toBe(1);
    const euro = Buffer.from('€');
    tty.push(Buffer.concat([Buffer.from('ab'), euro.subarray(0, 1)]));
    tty.push(euro.subarray(1));
    tty.push('\x1b[A');
    expect(got).toEqual(['a']);
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 25));
    expect(got).toEqual(['a', 'b', '€', '\x1b[A']);
    keys.setRawMode(true);
    expect(tty.isRaw).toBe(true);
    keys.off('readable', reader);
    expect(tty.listenerCount('readable')).toBe(0); // the terminal is free for an attached agent
  });

  it('holds raw mode across the moments Ink lets go of the keys, and keeps the keys read meanwhile', async () => {
    const tty = new FakeTty();
    const keys = new KeyInput(tty);
    keys.hold();
    expect(tty.isRaw).toBe(true);
    const { got, reader } = drain(keys);
    keys.on('readable', reader);
    tty.push('ab');
    // Between a closing dialog and the table, Ink turns raw mode off and stops listening.
    keys.setRawMode(false);
    keys.off('readable', reader);
    expect(tty.isRaw).toBe(true);
    keys.setRawMode(true);
    keys.on('readable', reader);
    for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 25));
    expect(got).toEqual(['a', 'b']);
    // Before an attach: the terminal goes back, and what was read but not taken ('d') is dropped.
    tty.push('cd');
    keys.off('readable', reader);
    keys.release();
    expect(tty.isRaw).toBe(false);
    keys.setRawMode(false);
    keys.on('readable', reader);
    for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 25));
    expect(got).toEqual(['a', 'b', 'c']);
  });

  it('hands out keys still queued when Ink listens again after a longer absence', async () => {
    const tty = new FakeTty();
    const keys = new KeyInput(tty);
    keys.hold();
    const { got, reader } = drain(keys);
    keys.on('readable', reader);
    tty.push('jk');
    expect(got).toEqual(['j']);
    keys.off('readable', reader);
    // Longer than the gap between keys: the timer that would hand out 'k' finds nobody.
    for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 25));
    expect(got).toEqual(['j']);
    keys.on('readable', reader);
    for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 25));
    expect(got).toEqual(['j', 'k']);
  });
});
