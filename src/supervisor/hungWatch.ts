import { statSync } from 'node:fs';
import type { EventKind } from '../store/events.js';
import { cpuPercent, processTreeTicks } from './cpu.js';
import {
  decideHung, initialHungState, repeatedToolCalls, toolPending, transcriptSessionId,
  type DecisionSource, type HungAction, type HungLimits, type HungSign, type HungState,
} from './hung.js';

/** What the hung-agent watch needs of its loop's watchdog. */
export interface HungHost {
  event(kind: EventKind, detail: Record<string, unknown>): void;
  sendKeys(keys: readonly string[]): void;
  typeContinuation(): void;
  fail(message: string, code: string): void;
  agentPid?(): number | undefined;
  restartAgent?(extraArgs: readonly string[], detail: Record<string, unknown>): void;
}

/** Which source each sign stands for in events. */
const HUNG_SOURCE: Record<HungSign, DecisionSource> = { transcript: 'transcript', process: 'process', 'api-error': 'screen', 'repeated-tool-calls': 'transcript' };

/**
 * The hung-agent watch of one loop: gathers the signs the pure decider of
 * hung.ts reads (the transcript's size and tool calls, the process tree's CPU, the error
 * banner) and carries out the rungs it climbs, each as a stall and a recovery event.
 */
export class HungWatch {
  private state: HungState;
  /** What the transcript said at its last read: size, a pending tool call, repeated calls, the session id. */
  private facts: { bytes: number; pending: boolean; repeated: number; sessionId: string | undefined } | undefined;
  private cpuSample: { ticks: number; at: number } | undefined;

  constructor(
    private readonly host: HungHost,
    private readonly limits: HungLimits,
    /** The profile's resume flag (`--resume`), when it has one. */
    private readonly resumeFlag: string | undefined,
    now: number,
  ) {
    this.state = initialHungState(now);
  }

  /** The transcript was read again (its entries' tail). */
  noteTranscript(path: string, entries: readonly unknown[]): void {
    let bytes = 0;
    try {
      bytes = statSync(path).size;
    } catch { /* gone meanwhile: read as empty */ }
    this.facts = { bytes, pending: toolPending(entries), repeated: repeatedToolCalls(entries), sessionId: transcriptSessionId(entries) };
  }

  /** One heartbeat with nothing else to do; returns 'restarted' when the agent was started again. */
  beat(now: number, busy: boolean, banner: string | undefined): 'restarted' | undefined {
    const facts = this.facts;
    const { state, action } = decideHung(this.state, {
      now, busy, transcriptBytes: facts?.bytes, toolPending: facts?.pending,
      cpuPercent: this.sampleCpu(now), errorBanner: banner, repeatedToolCalls: facts?.repeated,
    }, this.limits);
    this.state = state;
    return action.type === 'rung' ? this.climb(action, now) : undefined;
  }

  /** The process tree's CPU use since the last sample, sampled at most once a minute (a look at each of its threads in /proc): the window it is judged on is 30 minutes by default. */
  private sampleCpu(now: number): number | undefined {
    const pid = this.host.agentPid?.();
    if (pid === undefined || this.limits.cpuIdleMs <= 0) return undefined;
    if (this.cpuSample && now - this.cpuSample.at < Math.min(60_000, this.limits.cpuIdleMs / 4)) return undefined;
    const ticks = processTreeTicks(pid);
    if (ticks === undefined) return undefined;
    const before = this.cpuSample;
    this.cpuSample = { ticks, at: now };
    return before ? cpuPercent(before, this.cpuSample) : undefined;
  }

  private climb(action: Extract<HungAction, { type: 'rung' }>, now: number): 'restarted' | undefined {
    const base = { kind: 'hung', sign: action.sign, source: HUNG_SOURCE[action.sign], rung: action.rung, detail: action.detail };
    this.host.event('stall', base);
    switch (action.rung) {
      case 'interrupt':
        this.host.event('recovery', { ...base, keys: 'Esc' });
        this.host.sendKeys(['\x1b']);
        return undefined;
      case 'continue':
        this.host.event('recovery', { ...base, keys: 'continuation message + Enter' });
        this.host.typeContinuation();
        return undefined;
      case 'restart': {
        if (!this.host.restartAgent) break;
        const id = this.resumeFlag ? this.facts?.sessionId : undefined;
        const args = id && this.resumeFlag ? [this.resumeFlag, id] : [];
        this.host.event('recovery', { ...base, keys: 'restart', resume: id ?? null });
        // a new process: its signs start over (the ladder goes on if it hangs again)
        this.state = { ...initialHungState(now), rung: this.state.rung, rungAt: now };
        this.facts = undefined;
        this.cpuSample = undefined;
        this.host.restartAgent(args, { why: 'hung', sign: action.sign, resume: id ?? null });
        return 'restarted';
      }
      case 'fail':
        break;
    }
    this.host.fail(`the agent hung (${action.detail.slice(0, 120)}); Esc, the continuation message and a restart did not help`, 'hung');
    return undefined;
  }
}
