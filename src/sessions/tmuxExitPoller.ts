import { PANE_FORMAT, parsePanes, tmuxAsync, type Client, type PaneState } from './tmuxServer.js';

/**
 * How often panes are checked for an exited agent. One asynchronous `list-panes -a` per
 * tmux server covers all of its sessions (a few ms of a short-lived process), so the cost
 * does not grow with the number of loops; a quarter second is quick enough for a restart.
 */
export const EXIT_POLL_MS = 250;
/** What the poller tells: the pane as listed, or undefined when it is gone. */
export interface ExitWatched {
  readonly paneId: string;
  observe(p: PaneState | undefined): void;
}

/** One exit poll per tmux server, for all of its sessions watched by this process. */
export class ExitPoller {
  private static readonly all = new Map<string, ExitPoller>();
  private readonly watched = new Map<ExitWatched, number>();
  private ticks = 0;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  private constructor(private readonly client: Client) {}

  static of(c: Client): ExitPoller {
    const key = `${c.program}\0${c.socket}`;
    let p = ExitPoller.all.get(key);
    if (!p) ExitPoller.all.set(key, (p = new ExitPoller(c)));
    return p;
  }

  add(s: ExitWatched): void {
    this.watched.set(s, this.ticks);
    this.arm();
  }

  remove(s: ExitWatched): void {
    this.watched.delete(s);
    if (this.watched.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private arm(): void {
    if (this.timer || this.busy || this.watched.size === 0) return;
    this.timer = setTimeout(() => void this.tick(), EXIT_POLL_MS);
    // Agents in tmux do not depend on this process: polling alone does not keep it alive.
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    this.busy = true;
    const tick = ++this.ticks;
    const r = await tmuxAsync(this.client, [['list-panes', '-a', '-F', PANE_FORMAT]]);
    this.busy = false;
    // A session added while the call ran may be missing from its answer: judged next time.
    const judged = [...this.watched].filter(([, since]) => since < tick).map(([s]) => s);
    if ('out' in r) {
      const panes = new Map(parsePanes(r.out).map((p) => [p.paneId, p]));
      for (const s of judged) s.observe(panes.get(s.paneId));
    } else if (r.err.gone) {
      for (const s of judged) s.observe(undefined);
    } // else: a failed call (timeout, fork): try again
    this.arm();
  }
}
