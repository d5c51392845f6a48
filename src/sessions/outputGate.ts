/**
 * Input first (issue 14, the output flood under the dashboard): while a key read from the
 * terminal has not yet been drawn, the agents' output waits in its session's queue instead
 * of being parsed by its emulator, so a key never waits behind a flood's parsing. Nothing is
 * dropped or reordered: each session feeds its queue to its emulator in order once the
 * gate opens. Open unless someone holds it (only the dashboard does: `serve` and `run` have
 * no keys), and never held longer than `maxMs` (a key that draws nothing, say).
 */
export class OutputGate {
  private heldAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];

  constructor(private readonly now: () => number = () => performance.now()) {}

  get open(): boolean {
    return this.heldAt === undefined;
  }

  /** When the current hold began (undefined when open). */
  get heldSince(): number | undefined {
    return this.heldAt;
  }

  /** Holds output from now until release(), or `maxMs` at most from this call. */
  hold(maxMs: number): void {
    this.heldAt ??= this.now();
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.release(), maxMs);
    this.timer.unref?.();
  }

  /** Opens the gate; whatever waited for it runs now, in the order it began waiting. */
  release(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.heldAt === undefined) return;
    this.heldAt = undefined;
    const waiting = this.waiters;
    this.waiters = [];
    for (const fn of waiting) {
      if (this.heldAt !== undefined) {
        // Held again by one of them: the rest wait for the next opening.
        this.waiters.push(fn);
        continue;
      }
      try {
        fn();
      } catch { /* one session's trouble must not keep the others waiting */ }
    }
  }

  /** Runs `fn` at once when open, else when the gate next opens (once). */
  whenOpen(fn: () => void): void {
    if (this.open) fn();
    else this.waiters.push(fn);
  }
}

/** The process's gate: the dashboard holds it from a key's read to its frame; the pty sessions wait on it. */
export const outputGate = new OutputGate();
