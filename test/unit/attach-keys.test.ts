import { describe, expect, it } from 'vitest';
import { detachSequences, inputSplitter, splitAtDetach, tmuxKeyName } from '../../src/attach/keys.js';
import { controlKeyByte } from '../../src/config/settings.js';
import { stopReading } from '../../src/attach/io.js';

const Q = '\x11'; // ctrl-q
const seqs = detachSequences(Q);

describe('splitAtDetach', () => {
  it('passes text without the detach key through whole', () => {
    expect(splitAtDetach('hello\r', seqs)).toEqual({ forward: 'hello\r', detached: false });
    expect(splitAtDetach('', seqs)).toEqual({ forward: '', detached: false });
    // Other control bytes and escape sequences are the agent's.
    expect(splitAtDetach('\x03\x1b[A\x1b[113;3u', seqs)).toEqual({ forward: '\x03\x1b[A\x1b[113;3u', detached: false });
  });

  it('detaches on the key at the start, in the middle and at the end, keeping what came before', () => {
    expect(splitAtDetach(`${Q}abc`, seqs)).toEqual({ forward: '', detached: true });
    expect(splitAtDetach(`abc${Q}def`, seqs)).toEqual({ forward: 'abc', detached: true });
    expect(splitAtDetach(`abc${Q}`, seqs)).toEqual({ forward: 'abc', detached: true });
    expect(splitAtDetach(`a${Q}b${Q}c`, seqs)).toEqual({ forward: 'a', detached: true });
  });

  it('keeps multi-byte characters on either side of the key intact', () => {
    expect(splitAtDetach(`é日本🙂${Q}❯ñ`, seqs)).toEqual({ forward: 'é日本🙂', detached: true });
  });

  it('also detaches on the key as the kitty keyboard protocol and modifyOtherKeys send it', () => {
    expect(splitAtDetach('ab\x1b[113;5ucd', seqs)).toEqual({ forward: 'ab', detached: true });
    expect(splitAtDetach('ab\x1b[113;5:1u', seqs)).toEqual({ forward: 'ab', detached: true });
    expect(splitAtDetach('ab\x1b[27;5;113~', seqs)).toEqual({ forward: 'ab', detached: true });
    // The earliest form wins.
    expect(splitAtDetach(`x\x1b[113;5uy${Q}`, seqs)).toEqual({ forward: 'x', detached: true });
  });
});

describe('inputSplitter', () => {
  it('decodes Buffers, keeping a UTF-8 character cut between chunks whole', () => {
    const split = inputSplitter(Q);
    const bytes = Buffer.from('日🙂', 'utf8'); // 3 + 4 bytes
    expect(split(bytes.subarray(0, 2))).toEqual({ forward: '', detached: false });
    expect(split(bytes.subarray(2, 5))).toEqual({ forward: '日', detached: false });
    expect(split(Buffer.concat([bytes.subarray(5), Buffer.from(`é${Q}x`)]))).toEqual({ forward: '🙂é', detached: true });
  });

  it('takes strings as they are (a stream with an encoding, as Ink leaves stdin)', () => {
    expect(inputSplitter(Q)(`ü${Q}`)).toEqual({ forward: 'ü', detached: true });
  });
});

describe('detach key names', () => {
  it('derives every form from the setting', () => {
    expect(detachSequences(controlKeyByte('ctrl-q'))).toEqual([Q, '\x1b[113;5u', '\x1b[113;5:1u', '\x1b[27;5;113~']);
    expect(detachSequences(controlKeyByte('ctrl-]'))[1]).toBe('\x1b[93;5u');
    expect(tmuxKeyName(controlKeyByte('ctrl-q'))).toBe('C-q');
    expect(tmuxKeyName(controlKeyByte('ctrl-a'))).toBe('C-a');
    expect(tmuxKeyName(controlKeyByte('ctrl-]'))).toBe('C-]');
  });

  it('refuses what is not one control byte', () => {
    expect(() => detachSequences('q')).toThrow(/control key/);
    expect(() => detachSequences('\x11\x11')).toThrow(/control key/);
    expect(() => tmuxKeyName('\x00')).toThrow(/control key/);
  });
});

describe('stopReading', () => {
  it('pauses, and stops a tty read that pause() leaves running (as Node does on a pause event)', () => {
    const calls: string[] = [];
    const input = {
      on() {}, off() {}, pause: () => calls.push('pause'),
      _handle: { reading: true, readStop: () => calls.push('readStop') },
      _readableState: { reading: true },
    };
    stopReading(input);
    expect(calls).toEqual(['pause', 'readStop']);
    expect(input._handle.reading).toBe(false);
    expect(input._readableState.reading).toBe(false);
    stopReading(input); // not reading any more: nothing to stop
    expect(calls).toEqual(['pause', 'readStop', 'pause']);
  });

  it('leaves a stream without a tty handle (a test stand-in) paused, nothing more', () => {
    const calls: string[] = [];
    stopReading({ on() {}, off() {}, pause: () => calls.push('pause') });
    expect(calls).toEqual(['pause']);
  });
});
