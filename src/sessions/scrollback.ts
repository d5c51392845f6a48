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

  push(line: string): void {
    if (this.capacity <= 0) return;
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
