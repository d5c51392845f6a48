import type { LoopEvent } from '../store/events.js';
import { postNotification, runNotifyCommand, type DeliveryResult, type PostOptions } from './deliver.js';
import { payloadFor, type NotifyPayload } from './payload.js';
import { NotifyGate } from './gate.js';

/** Deliveries under way at once; past that a notification is dropped (and said so). */
const MAX_IN_FLIGHT = 8;

export interface ExternalNotifierOptions {
  /** argv of `notifyCommand`; empty: none. */
  command: readonly string[];
  /** `notifyUrl`; empty: none. */
  url: string;
  host: string;
  now: () => number;
  env: NodeJS.ProcessEnv;
  /** Whether a person is attached to the loop of this task folder: then nothing is sent. */
  attached?: (taskDir: string) => boolean;
  /** The loop's iteration and screen now, when this process runs it. */
  live?: (taskDir: string) => { iteration?: number; screen?: readonly string[] } | undefined;
  /** Told of each delivery that failed, in one line with the URL redacted. */
  onProblem?: (message: string) => void;
  windowMs?: number;
  commandTimeoutMs?: number;
  post?: PostOptions;
}

/**
 * `notifyCommand` and `notifyUrl`: the notifications of decide.ts, as a payload a program
 * can use. Works in the background: `handle` returns at once and never throws, so the
 * supervisor never waits on a slow hook or a dead server.
 */
export class ExternalNotifier {
  private readonly gate: NotifyGate;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly opts: ExternalNotifierOptions) {
    this.gate = new NotifyGate(opts);
  }

  get enabled(): boolean {
    return this.opts.command.length > 0 || this.opts.url !== '';
  }

  /** The payload sent for the event, if one was (for tests and logs). */
  handle(event: LoopEvent): NotifyPayload | undefined {
    try {
      return this.dispatch(event);
    } catch (err) {
      this.opts.onProblem?.(`notification dropped: ${(err as Error).message.split('\n')[0]}`);
      return undefined;
    }
  }

  /** Resolves when every delivery under way has ended, or after `ms`. */
  async drain(ms = 15_000): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((r) => { timer = setTimeout(r, ms); timer.unref(); }),
    ]);
    clearTimeout(timer);
  }

  private dispatch(event: LoopEvent): NotifyPayload | undefined {
    if (!this.enabled) return undefined;
    const n = this.gate.pass(event);
    if (!n) return undefined;
    const live = this.opts.live?.(event.taskDir);
    // an event read from another host is that host's
    const payload = payloadFor(event, n, { host: event.host ?? this.opts.host, ...(live ?? {}) });
    if (this.opts.command.length > 0) {
      const { command, env, commandTimeoutMs } = this.opts;
      this.launch(() => runNotifyCommand(command, payload, { env, ...(commandTimeoutMs ? { timeoutMs: commandTimeoutMs } : {}) }));
    }
    if (this.opts.url !== '') this.launch(() => postNotification(this.opts.url, payload, this.opts.post));
    return payload;
  }

  private launch(deliver: () => Promise<DeliveryResult>): void {
    if (this.inFlight.size >= MAX_IN_FLIGHT) {
      this.opts.onProblem?.(`notification dropped: ${MAX_IN_FLIGHT} deliveries are still under way`);
      return;
    }
    const watched = deliver().then((r) => { if (!r.ok) this.opts.onProblem?.(r.message); });
    this.inFlight.add(watched);
    void watched.finally(() => this.inFlight.delete(watched));
  }
}
