import type { Session } from '../sessions/session.js';
import { sameItems } from './sameItems.js';

/** At most this many screen updates a second reach the dashboard (gemini-cli uses ~15). */
export const SCREEN_UPDATES_PER_SECOND = 15;
const MIN_INTERVAL_MS = Math.ceil(1000 / SCREEN_UPDATES_PER_SECOND);

export interface ScreenSource {
  getSnapshot(): readonly string[];
  subscribe(listener: () => void): () => void;
}

/** A screen as lines of text: right-trimmed, trailing blank lines dropped. */
export function screenLines(lines: readonly string[]): string[] {
  const out = lines.map((l) => l.trimEnd());
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

/**
 * An agent's screen as text for the detail pane, captured from the emulator (never the
 * raw bytes) and throttled: output arriving in a flood produces at most
 * SCREEN_UPDATES_PER_SECOND snapshots, the last one always taken after the flood. It
 * follows the agent's output only while someone watches: a row the selection left costs
 * nothing.
 */
export class ScreenFeed implements ScreenSource {
  private lines: readonly string[] = [];
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private lastAt = 0;
  private unfollow: (() => void) | undefined;

  constructor(private readonly session: Session, private readonly now: () => number = () => performance.now(), private readonly intervalMs = MIN_INTERVAL_MS) {
    this.capture();
  }

  getSnapshot = (): readonly string[] => this.lines;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    if (!this.unfollow) {
      this.unfollow = this.session.onOutput(() => this.schedule());
      this.capture(); // what it missed while nobody watched
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  };

  private schedule(): void {
    if (this.timer) return;
    const wait = Math.max(10, this.lastAt + this.intervalMs - this.now());
    const timer = setTimeout(() => {
      // The emulator parses asynchronously, later still on a busy machine: a capture taken
      // before it is done would keep an old screen until the agent prints again (for an
      // agent at a prompt, never).
      if (this.session.whenParsed) this.session.whenParsed(() => this.captureScheduled(timer));
      else this.captureScheduled(timer);
    }, wait);
    timer.unref?.();
    this.timer = timer;
  }

  private captureScheduled(timer: NodeJS.Timeout): void {
    if (this.timer !== timer) return; // stopped meanwhile
    this.timer = undefined;
    this.capture();
  }

  private capture(): void {
    this.lastAt = this.now();
    let next: string[];
    try {
      next = screenLines(this.session.screen());
    } catch {
      return; // a session that just went away: keep the last screen
    }
    if (sameItems(next, this.lines)) return;
    this.lines = next;
    for (const l of this.listeners) l();
  }

  private stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.unfollow?.();
    this.unfollow = undefined;
  }

  close(): void {
    this.stop();
    this.listeners.clear();
  }
}
