/**
 * The oldest part of an agent's scrollback, as plain text: lines that left the emulator's
 * own (short, coloured) scrollback, most recent last, at most `capacity` of them. An
 * emulator line costs a cell array the width of the terminal (about 1.4 KB at 120
 * columns) however short its text; twenty agents with a thousand lines each held 36 MB.
 */
export class TextScrollback {
  private readonly ring: string[] = [];
  private start = 0;

  constructor(readonly capacity: number) {}

  push(text: string): void {
    if (this.capacity <= 0) return;
    const line = flat(text);
    if (this.ring.length < this.capacity) {
      this.ring.push(line);
      return;
    }
    this.ring[this.start] = line;
    this.start = (this.start + 1) % this.capacity;
  }

  /** Oldest first. */
  lines(): string[] {
    return [...this.ring.slice(this.start), ...this.ring.slice(0, this.start)];
  }

  get length(): number {
    return this.ring.length;
  }
}

/**
 * The same text as one flat string. xterm builds a line's text a character at a time, and
 * V8 keeps such a string as a rope of one 32-byte node per piece: 18,000 kept lines of a
 * few dozen characters held 20 MB, flat they take under 2. A round trip through UTF-16
 * bytes is lossless (lone surrogates included) and always makes a new, flat string.
 */
export function flat(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}
