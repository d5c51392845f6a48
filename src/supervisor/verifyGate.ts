import type { Signal } from '../protocol/signal.js';
import type { EventKind } from '../store/events.js';
import type { LoopRow } from '../store/loops.js';
import type { VerifyRow } from '../store/verifies.js';
import { isTransientWriteError } from '../store/db.js';
import { describeVerify, verifyArgv, type VerifyCommand } from '../verify/command.js';
import { feedbackMessage, historyTail, judgeVerify, VERIFY_OUTPUT_BYTES, verifyEnding, verifyEnv } from '../verify/policy.js';
import { passed, startVerify, type RunningVerify, type VerifyResult } from '../verify/runner.js';
import { outcomeOfStopSignal } from './limits.js';
import type { LoopEntry } from './loopBoundary.js';
import type { Session } from '../sessions/session.js';
import { ENTER_DELAY_MS } from '../agents/exit.js';

/** How one loop verifies its work: the command and its limits (kept with the loop's row). */
export interface VerifyConfig {
  command: VerifyCommand;
  timeoutMs: number;
  attempts: number;
  /** Where it runs: the loop's worktree, else the module's repository. */
  cwd: string;
  /** The environment it starts from (verifyEnv makes it the verify's own). */
  env: NodeJS.ProcessEnv;
  mode: 'signal' | 'hook';
}

/** What the gate needs of its loop. */
export interface VerifyGateHost {
  /** The loop's boundary: the verify's end comes into the loop through it. */
  enter: LoopEntry;
  row(): LoopRow;
  patch(patch: Partial<LoopRow>): void;
  event(kind: EventKind, detail: Record<string, unknown>): void;
  tx(fn: () => void): void;
  /** Wall time (ms), for what is stored. */
  wall(): number;
  /** Records one verify in the run's history; throws a transient error while the database is busy. */
  record(row: VerifyRow): void;
  /** The verify passed: the loop ends `complete` with this `(stop)` signal. */
  passed(signal: Signal): void;
  /** It failed, and the loop goes on: the agent is to be told `message` (see takeMessage). */
  retry(): void;
  /** It failed `attempts` times in a row: the loop ends `verify_failed`. */
  giveUp(signal: Signal): void;
  /** The agent's session when one runs and no person has it (attach mode); whether it is idle at its prompt. */
  agentAtHand(): Session | undefined;
  agentIdle(session: Session): boolean;
  later(ms: number, fn: () => void): void;
}

/** A short tail for the event log (the history keeps the longer one). */
const EVENT_TAIL_CHARS = 600;

/**
 * The verify before `complete`: when the agent signals the end of a loop that would be
 * complete, its verify command runs (state `verifying`); exit 0 completes the loop, a
 * failure sends the agent back to work with the command's output, and `attempts` failures
 * in a row end the loop `verify_failed`. Every verify is an event and a row of the run's
 * history. The decisions are the pure functions of src/verify/policy.ts.
 */
export class VerifyGate {
  private running: { handle: RunningVerify; signal: Signal; attempt: number; startedAt: string } | undefined;
  /** What the agent is to be told next (after a failed verify), until it is typed. */
  private message: string | undefined;
  /** Verify rows a busy database held back, written at the next chance. */
  private readonly unwritten: VerifyRow[] = [];

  constructor(private readonly host: VerifyGateHost, private readonly config: VerifyConfig | undefined) {}

  get enabled(): boolean {
    return this.config !== undefined;
  }

  /** A verify is running now. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Whether this `(stop)` must pass the verify first: only an end that would be `complete`. */
  wants(signal: Pick<Signal, 'step' | 'result'>): boolean {
    return this.config !== undefined && outcomeOfStopSignal(signal) === 'complete';
  }

  /** Starts the verify for this `(stop)`; the row becomes `verifying`. */
  start(signal: Signal): void {
    const config = this.config;
    if (!config || this.running) return;
    this.message = undefined; // a new end of the loop: what it was to be told is stale
    const row = this.host.row();
    const attempt = (row.verifyFailures ?? 0) + 1;
    const startedAt = new Date(this.host.wall()).toISOString();
    const handle = startVerify({
      argv: verifyArgv(config.command), cwd: config.cwd, timeoutMs: config.timeoutMs, maxOutputBytes: VERIFY_OUTPUT_BYTES,
      env: verifyEnv(config.env, {
        taskDir: row.taskDir, taskName: row.taskName, worktree: row.worktreePath || undefined, cwd: config.cwd, attempt, session: row.session,
      }),
    });
    this.running = { handle, signal, attempt, startedAt };
    this.host.tx(() => {
      this.host.patch({ status: 'verifying', verifyStartedAt: startedAt, verifyPid: handle.pid ?? null });
      this.host.event('verify_started', { attempt, attempts: config.attempts, command: describeVerify(config.command), cwd: config.cwd, pid: handle.pid ?? null });
    });
    void handle.result.then((result) => this.host.enter('verify', () => {
      if (this.running?.handle === handle) this.finished(result);
    }));
  }

  /** Ends a running verify: the loop stops, or its agent went on by itself. */
  cancel(why: string): void {
    const run = this.running;
    if (!run) return;
    this.running = undefined;
    run.handle.cancel();
    this.host.patch({ verifyPid: null });
    this.host.event('verify_cancelled', { attempt: run.attempt, why });
  }

  /**
   * Types the failed verify's report once the agent is idle at its prompt: the text, a
   * pause, then Enter as its own write (a composer swallows an Enter inside a paste).
   */
  tell(): void {
    if (this.message === undefined) return;
    const session = this.host.agentAtHand();
    if (!session || !this.host.agentIdle(session)) return;
    const message = this.takeMessage()!;
    session.write(message);
    this.host.later(ENTER_DELAY_MS, () => session.write('\r'));
    this.host.event('verify_feedback', { chars: message.length, failures: this.host.row().verifyFailures ?? 0 });
  }

  /** A failed verify's report for the agent, once (the watchdog types it when it continues an idle agent). */
  takeMessage(): string | undefined {
    const m = this.message;
    this.message = undefined;
    return m;
  }

  /** Forgets what the agent was to be told (the loop is ending). */
  dropMessage(): void {
    this.message = undefined;
  }

  private finished(result: VerifyResult): void {
    const run = this.running!;
    const config = this.config!;
    this.running = undefined;
    const row = this.host.row();
    const command = describeVerify(config.command);
    const tail = historyTail(result);
    this.save({
      taskDir: row.taskDir, loopStartedAt: row.startedAt, session: row.session, attempt: run.attempt, command, cwd: config.cwd,
      startedAt: run.startedAt, durationMs: result.durationMs, exitCode: result.exitCode, signal: result.signal ?? '',
      timedOut: result.timedOut, passed: passed(result), outputBytes: result.outputBytes, tail,
    });
    const verdict = judgeVerify(result, row.verifyFailures ?? 0, config.attempts);
    const detail = {
      attempt: run.attempt, attempts: config.attempts, command, durationMs: result.durationMs, exitCode: result.exitCode,
      ...(result.signal ? { signal: result.signal } : {}), ...(result.timedOut ? { timedOut: true } : {}),
      ...(result.error !== undefined ? { error: result.error } : {}), outputBytes: result.outputBytes,
      how: verifyEnding(result, config.timeoutMs), tail: tail.slice(-EVENT_TAIL_CHARS),
    };
    if (verdict.kind === 'complete') {
      this.host.tx(() => {
        this.host.patch({ verifyPid: null });
        this.host.event('verify_passed', detail);
      });
      this.host.passed(run.signal);
      return;
    }
    this.host.tx(() => {
      this.host.patch({ verifyPid: null, verifyFailures: verdict.failures });
      this.host.event('verify_failed', { ...detail, failures: verdict.failures, final: verdict.kind === 'give_up' });
    });
    if (verdict.kind === 'give_up') {
      this.host.giveUp(run.signal);
      return;
    }
    this.message = feedbackMessage({ command, result, timeoutMs: config.timeoutMs, failures: verdict.failures, attempts: config.attempts, mode: config.mode });
    this.host.retry();
  }

  /** Writes a verify row; one a busy database refused waits for the next write. */
  private save(row: VerifyRow): void {
    this.unwritten.push(row);
    this.flush();
  }

  /** Writes what a busy database held back (the loop's end calls it). */
  flush(): void {
    while (this.unwritten.length > 0) {
      try {
        this.host.record(this.unwritten[0]!);
      } catch (err) {
        if (!isTransientWriteError(err)) throw err;
        return;
      }
      this.unwritten.shift();
    }
  }
}
