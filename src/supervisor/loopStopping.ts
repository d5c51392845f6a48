import { sha1Hex } from '../lazy.js';
import type { Signal } from '../protocol/signal.js';
import { writeStopFile, type StopReason, type StopRequest } from '../protocol/stopFile.js';
import type { Session } from '../sessions/session.js';
import type { EventKind } from '../store/events.js';
import type { LoopRow } from '../store/loops.js';
import type { Outcome } from '../store/runs.js';
import { ENTER_DELAY_MS, EOF_KEY, exitCommand } from '../agents/exit.js';
import type { Profile } from '../agents/profiles.js';
import { classifyScreen } from '../agents/classify.js';
import type { Clock } from './clock.js';
import { endOutcome } from './limits.js';
import type { LoopSettings } from './loopSpec.js';
import type { AgentProcess } from './agentProcess.js';
import type { ProgressFiles } from './progressFiles.js';
import { within } from './loopBoundary.js';

/** After SIGTERM, how long an agent has before SIGKILL. */
export const KILL_AFTER_TERM_MS = 5000;

/** What a loop's stopping needs of its loop. */
export interface StoppingHost {
  taskDir: string;
  clock: Clock;
  settings: LoopSettings;
  profile: Profile;
  agent: AgentProcess;
  files: ProgressFiles;
  row(): LoopRow;
  over(): boolean;
  patch(patch: Partial<LoopRow>): void;
  patchLater(patch: Partial<LoopRow>): void;
  tx(fn: () => void): void;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  later(ms: number, fn: () => void, where?: string): void;
  /** The agent is gone and the stop is done: the loop ends. */
  finish(): void;
}

/**
 * How a loop stops, in order: the stop file asks the agent to finish its step; an agent
 * that stays busy past the grace time gets SIGTERM, then SIGKILL; an agent idle at its
 * prompt once the loop is over is asked to leave (its exit command), then terminated. A
 * force stop kills at once. What ended the loop (the agent's own `(stop)`, the stop's
 * reason, a force stop) gives its outcome.
 */
export class LoopStopping {
  /** The `(stop)` signal the agent wrote, if it ended on its own. */
  private stopSignal: Signal | undefined;
  /** Why the loop was asked to stop, if it was. */
  reason: StopReason | undefined;
  private forceStop = false;
  /** The agent was ended by a signal, not by itself. */
  forced = false;
  /** Steps taken to end an idle agent after its loop is over: 0 none, 1 exit command, 2 SIGTERM. */
  private exitStage = 0;

  constructor(private readonly host: StoppingHost) {}

  get stopping(): boolean {
    return this.reason !== undefined || this.stopSignal !== undefined;
  }

  /** The outcome once the agent is gone. */
  outcome(): Outcome {
    return endOutcome({ stopSignal: this.stopSignal, stopReason: this.reason, forceStop: this.forceStop });
  }

  /** The agent wrote `(stop)`: the loop is over once it leaves (the grace time bounds it). */
  stopSignalled(signal: Signal): void {
    this.stopSignal = signal;
    this.host.patch({ status: 'stopping' });
    this.startGrace();
  }

  /** A stop file appeared: ours, or another process asking. */
  fromStopFile(request: StopRequest): void {
    if (request.force && !this.forceStop) {
      this.forceKill(request.reason, 'stop file');
      return;
    }
    if (this.stopping) return;
    this.reason = request.reason;
    this.noteStopRequested(request.reason, false, 'stop file');
  }

  /** Asks the agent to stop by writing the stop file; `force` kills at once. */
  request(reason: StopReason, opts: { force?: boolean } = {}): void {
    if (this.host.over()) return;
    if (opts.force) {
      if (this.forceStop) return;
      this.writeStop(reason, true);
      this.forceKill(reason, 'supervisor');
      return;
    }
    if (this.stopping) return;
    this.reason = reason;
    this.writeStop(reason, false);
    this.noteStopRequested(reason, false, 'supervisor');
  }

  private writeStop(reason: StopReason, force: boolean): void {
    try {
      writeStopFile(this.host.taskDir, reason, { force, now: new Date(this.host.clock.wall()) });
      this.host.files.stopWritten();
    } catch (err) {
      this.host.event('error', { where: 'stop file', message: (err as Error).message });
    }
  }

  private noteStopRequested(reason: StopReason, force: boolean, by: string): void {
    this.host.tx(() => {
      this.host.patch({ status: 'stopping', stopReason: reason });
      this.host.event('stop_requested', { reason, force, by });
    });
    if (!this.host.agent.alive) this.host.finish();
    else this.startGrace();
  }

  private forceKill(reason: StopReason, by: string): void {
    const agent = this.host.agent;
    this.forceStop = true;
    this.reason ??= reason;
    if (agent.alive) this.forced = true;
    this.host.tx(() => {
      this.host.patch({ status: 'stopping', stopReason: this.reason ?? reason, forced: this.forced });
      this.host.event('stop_requested', { reason, force: true, by });
    });
    if (agent.alive) agent.kill('SIGKILL');
    else this.host.finish();
  }

  /** The grace time bounds an agent that stays busy after a stop. */
  startGrace(): void {
    const { agent, settings } = this.host;
    this.host.later(settings.graceSeconds * 1000, () => {
      if (!agent.alive) return;
      this.forced = true;
      this.host.patch({ forced: true });
      this.host.event('agent_exit', { action: 'SIGTERM', why: `still running ${settings.graceSeconds}s after the stop` });
      agent.kill('SIGTERM');
      this.host.later(KILL_AFTER_TERM_MS, () => {
        if (agent.alive) agent.kill('SIGKILL');
      });
    });
  }

  /**
   * The heartbeat once the loop is stopping: an unchanged screen is an interactive agent
   * waiting at its prompt, over by its own `(stop)` or at its prompt after a stop file.
   * A quiet agent still in its step is not idle: it finishes the step (the grace time
   * bounds it).
   */
  beat(session: Session): void {
    const row = this.host.row();
    const lines = within('screen read', () => session.screen());
    const hash = sha1Hex(lines.join('\n'));
    const stallCount = hash === row.lastCaptureHash ? row.stallCount + 1 : 0;
    if (stallCount !== row.stallCount || hash !== row.lastCaptureHash) {
      this.host.patchLater({ lastCaptureHash: hash, stallCount });
    }
    const done = this.stopSignal !== undefined || classifyScreen(this.host.profile, lines).kind === 'idle';
    if (stallCount >= 1 && done) this.endIdleAgent(session);
  }

  /** Asks an idle agent to leave, then terminates it if it does not. */
  private endIdleAgent(session: Session): void {
    if (this.exitStage === 0) {
      this.exitStage = 1;
      const exit = exitCommand(this.host.settings.agentProfile);
      if (exit.kind === 'eof') {
        session.write(EOF_KEY);
      } else {
        session.write(exit.text);
        this.host.later(ENTER_DELAY_MS, () => session.write('\r'));
      }
      this.host.event('agent_exit', { action: 'exit command', why: 'the loop is over and the agent is idle', keys: exit.kind === 'eof' ? 'EOF' : exit.text });
    } else if (this.exitStage === 1) {
      this.exitStage = 2;
      this.host.event('agent_exit', { action: 'SIGTERM', why: 'still idle after the exit command' });
      session.kill('SIGTERM');
    }
  }

  /** An adopted `stopping` loop: the stop was wanted, so it ends with the reason it had. */
  restore(row: Pick<LoopRow, 'stopReason' | 'forced'>): void {
    this.reason = (row.stopReason || undefined) as StopReason | undefined;
    this.forced = row.forced;
  }
}
