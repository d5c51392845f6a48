import { stripVTControlCharacters } from 'node:util';

/**
 * The output of a verify, bounded: only its last `maxBytes` are kept, however much it
 * prints, and the count of all bytes seen. stdout and stderr go into one buffer in the
 * order they arrive, as a person at a terminal would read them.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private kept = 0;
  total = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (chunk.length >= this.maxBytes) {
      this.chunks = [chunk.subarray(chunk.length - this.maxBytes)];
      this.kept = this.maxBytes;
      return;
    }
    this.chunks.push(chunk);
    this.kept += chunk.length;
    while (this.kept - this.chunks[0]!.length >= this.maxBytes) this.kept -= this.chunks.shift()!.length;
  }

  /** Bytes were dropped from the head. */
  get truncated(): boolean {
    return this.total > this.maxBytes;
  }

  /** The kept bytes as text; a UTF-8 sequence cut at the head is dropped, not shown as garbage. */
  text(): string {
    let buf = Buffer.concat(this.chunks);
    if (buf.length > this.maxBytes) buf = buf.subarray(buf.length - this.maxBytes);
    if (this.truncated) {
      let i = 0;
      while (i < buf.length && i < 4 && (buf[i]! & 0xc0) === 0x80) i++;
      buf = buf.subarray(i);
    }
    return buf.toString('utf8');
  }
}

/**
 * Program output made safe to show and to send: escape sequences removed (colours,
 * cursor moves, titles, hyperlinks), a line redrawn with carriage returns kept as its
 * last drawing, other control characters dropped, tabs as spaces, trailing blanks
 * trimmed. Pure.
 */
export function cleanOutput(text: string): string {
  const plain = stripVTControlCharacters(text);
  return plain
    .split(/\r?\n/)
    .map((line) => {
      // a progress bar redraws its line: the last drawing is what a person saw
      const parts = line.split('\r');
      const last = parts.reverse().find((p) => p.trim() !== '') ?? '';
      return last
        .replace(/\t/g, '  ')
        .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
        .trimEnd();
    })
    .join('\n');
}

export interface TailLimits {
  /** The most lines kept from the end. */
  lines: number;
  /** The most characters kept from the end (a line cut at the head is marked with `…`). */
  chars: number;
}

/**
 * The last lines of cleaned output within both limits, without the blank lines at its
 * ends. Pure.
 */
export function tailOf(cleaned: string, limits: TailLimits): string {
  const lines = cleaned.split('\n');
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  let out = lines.slice(-limits.lines);
  while (out.length > 0 && out[0]!.trim() === '') out = out.slice(1);
  let text = out.join('\n');
  if (text.length > limits.chars) text = `…${text.slice(text.length - limits.chars + 1)}`;
  return text;
}
