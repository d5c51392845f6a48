import type { LoopEvent } from '../store/events.js';
import { notificationFor, type Notification } from './decide.js';
import { admit, NOTIFY_WINDOW_MS, type SentAt } from './rateLimit.js';

export interface GateOptions {
  now: () => number;
  /** Default NOTIFY_WINDOW_MS. */
  windowMs?: number | undefined;
  /** Whether a person is attached to the loop of this task folder: then nothing is sent. */
  attached?: ((taskDir: string) => boolean) | undefined;
}

/**
 * What every notifier asks first: is this event worth telling, is nobody attached to its
 * loop, and has the same loop and kind not been told within the window. Keeps the window.
 */
export class NotifyGate {
  private sent: SentAt = new Map();

  constructor(private readonly opts: GateOptions) {}

  /** The notification to send for `event`, or undefined. */
  pass(event: LoopEvent): Notification | undefined {
    const n = notificationFor(event);
    if (!n) return undefined;
    if (this.opts.attached?.(event.taskDir)) return undefined;
    const { send, sent } = admit(this.sent, n, this.opts.now(), this.opts.windowMs ?? NOTIFY_WINDOW_MS);
    this.sent = sent;
    return send ? n : undefined;
  }
}
