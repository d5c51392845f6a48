import { EventEmitter } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import { keyTrace, keyTraceOn } from '../trace.js';

const ESC = '\x1b';
/**
 * Between two keys of one read. A field shown by one key listens for keys only once
 * React has run its effects, after the render; 1 ms was not always enough in tests, 10 ms
 * was. A 100-character paste takes a second, fine for module filters and numbers.
 */
const KEY_GAP_MS = 10;

/** ESC P (DCS), ESC ] (OSC), ESC X (SOS), ESC ^ (PM), ESC _ (APC): strings up to ST or BEL. */
const STRING_INTRODUCERS = new Set(['P', ']', 'X', '^', '_']);

/**
 * Where the escape sequence starting at `i` ends (exclusive): CSI, SS3, a control string
 * (to its terminator, or the end of the read), or ESC + one key (Alt).
 */
function escapeEnd(text: string, i: number): number {
  const kind = text[i + 1];
  if (kind === undefined) return i + 1; // a lone Esc
  if (STRING_INTRODUCERS.has(kind)) {
    for (let j = i + 2; j < text.length; j++) {
      if (text[j] === '\x07') return j + 1;
      if (text[j] === ESC && text[j + 1] === '\\') return j + 2;
    }
    return text.length;
  }
  if (kind === '[') {
    let j = i + 2;
    if (text[j] === '[') j++; // the Linux console's ESC [ [ A
    while (j < text.length && /[\x20-\x3f]/.test(text[j]!)) j++;
    return Math.min(text.length, j + 1);
  }
  if (kind === 'O') return Math.min(text.length, i + 3);
  if (kind === ESC) return escapeEnd(text, i + 1); // Alt + an escape sequence
  return i + 1 + (text.codePointAt(i + 1)! > 0xffff ? 2 : 1);
}

/**
 * What a terminal sends back on its own (to a query of an agent we attached to, say), never
 * a key: control strings (a version, a colour) and device-attribute or cursor reports.
 */
function isTerminalReply(seq: string): boolean {
  // No key starts CSI ? / > / =: those are reports (DA, DECRPM for synchronized output, kitty flags).
  return STRING_INTRODUCERS.has(seq[1] ?? '') || /^\x1b\[[?>=]/.test(seq) || /^\x1b\[\d+;\d+R$/.test(seq);
}

/**
 * A read from the terminal cut into keys (terminal replies dropped): each escape sequence whole, every other code
 * point on its own. So a run of keys in one read (`jjj` from key repeat, two Backspaces
 * over ssh, a paste) arrives as that many key presses, instead of one unknown "input"
 * that a text field would insert raw.
 */
export function splitKeys(text: string): string[] {
  const keys: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === ESC) {
      const end = escapeEnd(text, i);
      const seq = text.slice(i, end);
      if (!isTerminalReply(seq)) keys.push(seq);
      i = end;
    } else {
      const cp = text.codePointAt(i)!;
      const len = cp > 0xffff ? 2 : 1;
      keys.push(text.slice(i, i + len));
      i += len;
    }
  }
  return keys;
}

/** The part of a terminal's input stream Ink uses. */
export interface InkInput {
  readonly isTTY?: boolean;
  readonly isRaw?: boolean;
  setRawMode?(mode: boolean): unknown;
  read(): string | Buffer | null;
  on(event: 'readable', listener: () => void): unknown;
  off(event: 'readable', listener: () => void): unknown;
  ref?(): unknown;
  unref?(): unknown;
  pause?(): unknown;
  resume?(): unknown;
}

/**
 * The terminal's input as Ink reads it ('readable', then read() until null): one key per
 * turn of the event loop, so the screen has taken each key (a moved selection, a dialog
 * opened) before the next one is read. It listens to the real stream only while Ink
 * does, so once Ink is unmounted the real stream is free to be handed to an attached agent.
 */
export class KeyInput extends EventEmitter {
  private queue: string[] = [];
  private decoder = new StringDecoder('utf8');
  private listening = false;
  /** A key was handed out this round; the next waits for the next round. */
  private handedOut = false;
  /** Raw mode is ours to keep (see hold). */
  private held = false;

  constructor(private readonly real: InkInput) {
    super();
    this.on('newListener', (event) => {
      if (event === 'readable' && !this.listening) {
        this.listening = true;
        real.on('readable', this.onReadable);
        // Keys read before Ink let go (a paste, `jj` in one read) and still queued: the
        // timer that would announce them may have run while nobody listened. Announced once
        // the new listener is in (it is added after this event).
        setImmediate(() => {
          if (this.listening && this.queue.length > 0 && !this.handedOut) this.emit('readable');
        });
      }
    });
    this.on('removeListener', (event) => {
      // Keys already read stay queued: Ink lets go between one dialog and the next.
      if (event === 'readable' && this.listenerCount('readable') === 0 && this.listening) {
        this.listening = false;
        real.off('readable', this.onReadable);
      }
    });
  }

  get isTTY(): boolean {
    return this.real.isTTY === true;
  }

  get isRaw(): boolean {
    return this.real.isRaw === true;
  }

  /**
   * Raw mode from now until release(), whatever Ink asks. Ink turns raw mode off whenever
   * no component listens for keys, as between a closing dialog and the table: a key typed
   * then is cooked by the terminal (Enter arrives as a line feed, Ctrl-C as SIGINT).
   */
  hold(): void {
    this.held = true;
    if (this.real.isTTY) this.real.setRawMode?.(true);
  }

  /** Gives the terminal back (before an attach, on quit): raw mode off, keys not yet taken dropped. */
  release(): void {
    this.held = false;
    if (this.real.isTTY) this.real.setRawMode?.(false);
    this.queue = [];
    this.decoder = new StringDecoder('utf8');
  }

  setRawMode(mode: boolean): this {
    if (!this.held) this.real.setRawMode?.(mode);
    return this;
  }

  /** Ink asks for UTF-8; the decoding is done here, across reads. */
  setEncoding(): this {
    return this;
  }

  ref(): this {
    this.real.ref?.();
    return this;
  }

  unref(): this {
    this.real.unref?.();
    return this;
  }

  pause(): this {
    this.real.pause?.();
    return this;
  }

  resume(): this {
    this.real.resume?.();
    return this;
  }

  read(): string | null {
    if (this.handedOut) return null;
    const key = this.queue.shift();
    if (key === undefined) return null;
    if (keyTraceOn) keyTrace(`key handed ${JSON.stringify(key)} queued ${this.queue.length}`);
    this.handedOut = true;
    // A timer, not setImmediate: React renders and then re-binds the key handlers after
    // this key; the next key must come after that.
    setTimeout(() => {
      this.handedOut = false;
      if (keyTraceOn && this.queue.length > 0 && !this.listening) keyTrace(`keys waiting, nobody listening: ${this.queue.length}`);
      if (this.queue.length > 0 && this.listening) this.emit('readable');
    }, KEY_GAP_MS);
    return key;
  }

  private readonly onReadable = (): void => {
    let chunk: string | Buffer | null;
    while ((chunk = this.real.read()) !== null) {
      if (keyTraceOn) keyTrace(`read ${JSON.stringify(typeof chunk === 'string' ? chunk : chunk.toString('latin1'))} handedOut ${this.handedOut}`);
      this.queue.push(...splitKeys(typeof chunk === 'string' ? chunk : this.decoder.write(chunk)));
    }
    if (this.queue.length > 0 && !this.handedOut) this.emit('readable');
  };
}
