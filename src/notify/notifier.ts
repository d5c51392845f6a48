import type { NotifyChannel } from '../config/schema.js';
import type { LoopEvent } from '../store/events.js';
import type { Notification } from './decide.js';
import { NotifyGate } from './gate.js';
import { BELL, osc9, tmuxDisplayArgv } from './sequences.js';
import { runUserTmux } from './tmux.js';

export interface NotifierOptions {
  /** From the `notify` setting; empty: the notifier does nothing. */
  channels: readonly NotifyChannel[];
  /** Bytes for the user's terminal (bell, OSC 9): the real stdout/stderr TTY, not a pipe. */
  write: (bytes: string) => void;
  /** Runs `['tmux', ...]` without a shell; default: execFile, errors swallowed. */
  runTmux?: (argv: readonly string[]) => void;
  now: () => number;
  /** $TMUX set: OSC 9 goes through tmux passthrough, and the tmux channel works. */
  env: NodeJS.ProcessEnv;
  /** Default NOTIFY_WINDOW_MS. */
  windowMs?: number;
  /** Whether a person is attached to the loop of this task folder: then nothing is sent. */
  attached?: (taskDir: string) => boolean;
}

/**
 * Tells the user when a loop ends, stalls or needs input, through the channels they chose.
 * Wire it to the supervisor: `supervisor.on('event', (e) => notifier.handle(e))`.
 * It never throws: a notification that cannot be delivered is dropped.
 */
export class Notifier {
  private readonly gate: NotifyGate;
  private readonly channels: readonly NotifyChannel[];
  private readonly runTmux: (argv: readonly string[]) => void;
  private readonly inTmux: boolean;

  constructor(private readonly opts: NotifierOptions) {
    this.channels = [...new Set(opts.channels)];
    this.runTmux = opts.runTmux ?? runUserTmux;
    this.inTmux = Boolean(opts.env.TMUX);
    this.gate = new NotifyGate(opts);
  }

  get enabled(): boolean {
    return this.channels.length > 0;
  }

  /** Returns the notification sent, if any (for logs and tests). */
  handle(event: LoopEvent): Notification | undefined {
    if (!this.enabled) return undefined;
    const n = this.gate.pass(event);
    if (!n) return undefined;

    // The terminal's bytes in one write, so nothing else can land between them.
    let bytes = '';
    for (const channel of this.channels) {
      if (channel === 'bell') bytes += BELL;
      else if (channel === 'osc9') bytes += osc9(n.text, this.inTmux);
    }
    if (bytes) {
      try {
        this.opts.write(bytes);
      } catch { /* a closed terminal: nothing to tell */ }
    }
    if (this.channels.includes('tmux') && this.inTmux) {
      try {
        this.runTmux(tmuxDisplayArgv(n.text));
      } catch { /* swallowed, like the default runner's errors */ }
    }
    return n;
  }
}
