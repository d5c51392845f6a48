import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { removeIfPresent, writeFileAtomic } from '../protocol/atomic.js';
import { readModuleInfo, type LifecycleStatus } from '../protocol/modules.js';
import { SIGNAL_FILE, SIGNAL_TMP_FILE, readSignalFile, type Signal } from '../protocol/signal.js';
import { readStopFile } from '../protocol/stopFile.js';
import { entryStep, resumeFrom, route, statusAtStop, statusDuring, stepKey, type Position } from './routing.js';
import { SCENARIO_FILE, readScenario, type Scenario } from './scenario.js';
import { SYMLINK_TARGET, writeInvalidSignal, writeSignal } from './signals.js';
import { clearState, loadState, saveState, takeResult, type SimState } from './state.js';
import { STEP_TEXT, floodLine } from './text.js';
import { LineReader, drained, sleep } from './waits.js';
import { SimTranscript } from './transcript.js';
import { callStopHook, completeOneTask } from './interactive.js';
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';

export interface SimOptions {
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  /** Read only for prompts, quota waits and idling; lines typed earlier are kept. */
  stdin?: NodeJS.ReadableStream;
  now?: () => Date;
  /** Where AUTODECK_* come from for `envFile`. */
  env?: NodeJS.ProcessEnv;
}

/** `{epoch}` / `{epoch+N}` / `{epoch-N}`: the Unix time in seconds, shifted by N. */
export function withEpoch(template: string, now: Date): string {
  return template.replace(/\{epoch(?:([+-])(\d+))?\}/g, (_, sign: string | undefined, n: string | undefined) => {
    const shift = n ? Number(n) * (sign === '-' ? -1 : 1) : 0;
    return String(Math.floor(now.getTime() / 1000) + shift);
  });
}

/** Exit status of a process ended by SIGTERM. */
const SIGTERM_EXIT = 128 + 15;

/**
 * The simulated auto-mode agent: runs the auto loop's routing over TASK_DIR, writes
 * `.auto-signal` after each step, and misbehaves as `TASK_DIR/.sim.json` says. Resolves
 * to the exit code; the caller exits with it (stdin may still be open).
 */
export async function runSim(taskDir: string, opts: SimOptions = {}): Promise<number> {
  const stderr = opts.stderr ?? process.stderr;
  const parsed = readScenario(taskDir);
  if (parsed.errors.length > 0) {
    const line = `autodeck sim: ${join(taskDir, SCENARIO_FILE)}: ${parsed.errors.join('; ')}`;
    stderr.write(`${line.replace(/\s*[\r\n]+\s*/g, ' ')}\n`);
    return 2;
  }
  const sim = new Sim(taskDir, parsed.value, opts);
  const onTerm = (): void => sim.terminate();
  process.on('SIGTERM', onTerm);
  try {
    return await sim.run();
  } finally {
    process.off('SIGTERM', onTerm);
    sim.close();
  }
}

class Sim {
  private readonly out: NodeJS.WritableStream;
  private readonly now: () => Date;
  private readonly abort = new AbortController();
  private reader: LineReader | undefined;
  private state: SimState;
  private pos: Position;
  private iteration = 1;
  private lastResult: string | undefined;
  /** Why there is nothing to run, when that is known at start. */
  private idleReason: string | undefined;
  private readonly transcript: SimTranscript | undefined;

  constructor(private readonly dir: string, private readonly scenario: Scenario, private readonly opts: SimOptions) {
    this.out = opts.stdout ?? process.stdout;
    this.now = opts.now ?? ((): Date => new Date());
    const env = opts.env ?? process.env;
    if (scenario.transcript) this.transcript = new SimTranscript(env.HOME ?? homedir(), process.cwd(), this.now);
    const previous = readSignalFile(join(dir, SIGNAL_FILE));
    const resumeAt = previous.ok && previous.signal.iteration !== undefined ? previous.signal : undefined;
    this.state = loadState(dir, resumeAt?.iteration);
    if (resumeAt) {
      // A restart after a crash: go on from where the last signal routed to.
      this.iteration = (resumeAt.iteration ?? 0) + 1;
      this.lastResult = resumeAt.result;
      const at = resumeFrom(resumeAt);
      if (!at) this.idleReason = 'The last signal already ended the loop.';
      this.pos = at ?? { step: 'report', checkpoint: '' };
    } else {
      const at = entryStep(readModuleInfo(dir).status);
      if (!at) this.idleReason = 'The task is cancelled; nothing to do.';
      this.pos = at ?? { step: 'report', checkpoint: '' };
    }
  }

  terminate(): void {
    if (this.scenario.ignoreSigterm) this.say('  ⎿  (SIGTERM ignored)');
    else this.abort.abort();
  }

  close(): void {
    this.reader?.close();
  }

  private get aborted(): boolean {
    return this.abort.signal.aborted;
  }

  private say(line: string): void {
    this.out.write(`${line}\n`);
  }

  private input(): LineReader {
    this.reader ??= new LineReader(this.opts.stdin ?? process.stdin);
    return this.reader;
  }

  /** A PTY echoes what is typed, Enter included; without one, end the prompt's line ourselves. */
  private endPromptLine(): void {
    const input = (this.opts.stdin ?? process.stdin) as { isTTY?: boolean };
    if (!input.isTTY) this.out.write('\n');
  }

  async run(): Promise<number> {
    this.writeEnvFile();
    this.say(`✻ autodeck sim · ${basename(this.dir)}`);
    if (this.scenario.hookTurns) return this.hookTurns(this.scenario.hookTurns.maxTurns);
    if (this.idleReason) {
      this.say(this.idleReason);
      return this.finish();
    }
    this.say(this.iteration > 1 ? `↻ Resuming at ${stepKey(this.pos)}, iteration ${this.iteration}` : `Starting at ${stepKey(this.pos)}`);
    for (;;) {
      if (!this.scenario.ignoreStop) {
        const stop = readStopFile(this.dir);
        if (stop) {
          this.say(`■ Stop requested (${stop.reason}); stopping before iteration ${this.iteration}.`);
          return this.finish();
        }
      }
      const crash = this.scenario.crash;
      if (crash && crash.atIteration === this.iteration && (crash.times === -1 || this.state.crashes < crash.times)) {
        this.state = { ...this.state, crashes: this.state.crashes + 1 };
        saveState(this.dir, this.state);
        this.say(`✗ Simulated crash before iteration ${this.iteration} (exit ${crash.exitCode})`);
        return crash.exitCode;
      }
      const ended = await this.step();
      if (this.aborted) return SIGTERM_EXIT;
      if (!ended) continue;
      if (!this.scenario.resumeOnInput || this.scenario.exitAtStop) return this.finish();
      const more = await this.waitForMore();
      if (more !== 'resume') return more;
    }
  }

  /**
   * After the loop's end, at its prompt: a line other than `/exit` is a new request (a
   * failed verify's report): noted in `heardFile`, then the loop goes on at exec.
   */
  private async waitForMore(): Promise<number | 'resume'> {
    removeIfPresent(join(this.dir, SIGNAL_TMP_FILE));
    for (;;) {
      this.out.write('> ');
      const got = await this.input().next(this.abort.signal);
      if ('end' in got) return got.end === 'aborted' ? SIGTERM_EXIT : this.finish(false);
      this.endPromptLine();
      const line = got.line.trim();
      if (line === '/exit') {
        this.say('Bye.');
        return this.finish(false);
      }
      if (line === '') continue;
      if (this.scenario.heardFile) appendFileSync(join(this.dir, this.scenario.heardFile), `${line}\n`);
      this.say(`● Back to work: ${line.slice(0, 80)}`);
      this.pos = { step: 'exec', checkpoint: '' };
      this.iteration = (this.state.lastIteration ?? this.iteration) + 1;
      this.lastResult = undefined;
      return 'resume';
    }
  }

  /** Runs the step at `pos`; true when its signal ended the loop. */
  private async step(): Promise<boolean> {
    const { scenario: sc, iteration: n, pos } = this;
    if (sc.hang?.atIteration === n && !(await sleep(sc.hang.seconds, this.abort.signal))) return false;
    const key = stepKey(pos);
    this.writeStatus(statusDuring(pos, this.lastResult), key);
    this.say(`● ${STEP_TEXT[key].doing}… (iteration ${n})`);
    this.transcript?.assistant(`${STEP_TEXT[key].doing} (iteration ${n})`);
    if (sc.compact?.atIteration === n) {
      for (let i = 0; i < sc.compact.times; i++) {
        this.say('✻ Conversation compacted');
        this.transcript?.compaction();
      }
    }
    if (sc.spin?.atIteration === n && (this.state.spins ?? 0) < sc.spin.times && !(await this.spin(sc.spin.seconds))) return false;
    if (sc.prompt?.atIteration === n && !(await this.prompt(sc.prompt.text))) return false;
    if (sc.quota?.atIteration === n && !(await this.quota(sc.quota.message, sc.quota.seconds))) return false;
    if (sc.repeat?.atIteration === n) {
      for (let i = 0; i < sc.repeat.times; i++) {
        this.say(`● ${sc.repeat.text}`);
        this.transcript?.assistant(sc.repeat.text);
      }
    }
    if (sc.idle?.atIteration === n) {
      for (let i = 0; i < sc.idle.times; i++) if (!(await this.idle())) return false;
    }
    if (sc.flood?.atIteration === n && !(await this.flood(sc.flood.lines))) return false;
    if (!(await sleep(sc.stepSeconds / 2, this.abort.signal))) return false;
    this.say(`  ⎿  ${STEP_TEXT[key].detail}`);
    if (!(await sleep(sc.stepSeconds / 4, this.abort.signal))) return false;

    const taken = takeResult(pos, sc, this.state);
    const routed = route(pos.step, pos.checkpoint, taken.result);
    if (!routed) throw new Error(`no route for ${key} ${taken.result}`); // the scenario parser rules this out
    const signal = (iteration: number): Signal =>
      ({ step: pos.step, result: taken.result, next: routed.next, checkpoint: pos.checkpoint, iteration, timestamp: this.now().toISOString() });

    if (sc.invalidSignals?.atIteration === n) {
      for (const kind of sc.invalidSignals.kinds) {
        writeInvalidSignal(this.dir, kind, signal(n));
        if (!(await sleep(sc.invalidSignals.pauseSeconds, this.abort.signal))) return false;
      }
    }
    let last = n;
    if (sc.burst?.atIteration === n) {
      for (let i = 0; i < sc.burst.count - 1; i++) writeSignal(this.dir, signal(sc.burst.increment ? n + i : n));
      last = sc.burst.increment ? n + sc.burst.count - 1 : n;
    }
    writeSignal(this.dir, signal(last));
    this.state = { ...taken.state, lastIteration: last };
    saveState(this.dir, this.state);
    this.say(`  ⎿  ${key}: ${taken.result} → ${routed.next}`);

    if (routed.next === '(stop)') {
      this.writeStatus(statusAtStop(pos, taken.result), key);
      this.say(`✻ Loop finished after ${last} iterations: ${key} ${taken.result}.`);
      return true;
    }
    this.lastResult = taken.result;
    this.pos = { step: routed.next, checkpoint: routed.checkpoint };
    this.iteration = last + 1;
    // the rest of the step's time goes to reading the loop's files before the next one, as an
    // agent does: a stop written because of this signal is seen before another step begins
    await sleep(sc.stepSeconds / 4, this.abort.signal);
    return false;
  }

  /** Hung but drawing: a spinner that ticks over nothing, input ignored. False when aborted. */
  private async spin(seconds: number): Promise<boolean> {
    this.state = { ...this.state, spins: (this.state.spins ?? 0) + 1 };
    saveState(this.dir, this.state);
    const glyphs = ['✢', '✳', '✶', '✻', '✽'];
    for (let i = 0; i < seconds * 4; i++) {
      this.out.write(`\r${glyphs[i % glyphs.length]} Thinking… (${Math.floor(i / 4)}s · esc to interrupt)\x1b[K`);
      if (!(await sleep(0.25, this.abort.signal))) return false;
    }
    this.out.write('\r\x1b[K');
    return true;
  }

  /** A yes/no question; any answer goes on, a "no" is only reported. False when aborted. */
  private async prompt(text: string): Promise<boolean> {
    this.out.write(`${text} `);
    const got = await this.input().next(this.abort.signal);
    if ('end' in got && got.end === 'aborted') return false;
    this.endPromptLine();
    const answer = 'line' in got ? got.line.trim() : '';
    if (/^(y|yes)$/i.test(answer)) this.say('  ⎿  Confirmed.');
    else this.say(`  ⎿  Declined (${'line' in got ? JSON.stringify(answer) : 'end of input'}); going on anyway.`);
    return true;
  }

  /** The turn is over: a bare prompt, like an interactive agent waiting for a person. */
  private async idle(): Promise<boolean> {
    this.out.write('> ');
    const got = await this.input().next(this.abort.signal);
    if ('end' in got && got.end === 'aborted') return false;
    this.endPromptLine();
    this.say('line' in got ? `  ⎿  Got it: ${got.line.trim().slice(0, 60)}` : '  ⎿  (end of input)');
    return true;
  }

  /** A usage-limit stop: the message, then a wait that a line on stdin cuts short. */
  private async quota(template: string, seconds: number): Promise<boolean> {
    const message = withEpoch(template, this.now());
    this.say(`  ⎿  ${message}`);
    this.transcript?.apiError(429, message);
    const got = await this.input().next(this.abort.signal, seconds);
    if ('end' in got && got.end === 'aborted') return false;
    this.say('line' in got ? '  ⎿  Continuing.' : '  ⎿  Limit reset; continuing.');
    return true;
  }

  private async flood(lines: number): Promise<boolean> {
    const CHUNK = 200;
    for (let i = 1; i <= lines; i += CHUNK) {
      const block: string[] = [];
      for (let j = i; j < i + CHUNK && j <= lines; j++) block.push(floodLine(j, lines));
      if (!this.out.write(`${block.join('\n')}\n`) && !(await drained(this.out, this.abort.signal))) return false;
      if (this.aborted) return false;
    }
    return true;
  }

  /**
   * An interactive agent under the Stop hook: one task per turn, then the hook decides
   * whether another turn starts; once it allows the stop, the agent idles at its prompt.
   */
  private async hookTurns(maxTurns: number): Promise<number> {
    const env = this.opts.env ?? process.env;
    const hook = [process.execPath, process.argv[1] ?? 'autodeck', 'hook', 'stop'];
    const sessionId = randomUUID();
    for (let turn = 1; turn <= maxTurns; turn++) {
      if (!(await sleep(this.scenario.stepSeconds, this.abort.signal))) return SIGTERM_EXIT;
      const done = completeOneTask(this.dir);
      const text = done ? `Completed: ${done}` : 'Nothing left that I can do.';
      this.say(`● ${text}`);
      this.transcript?.assistant(text);
      const answer = callStopHook(hook, {
        session_id: sessionId, transcript_path: this.transcript?.path ?? '', cwd: process.cwd(), hook_event_name: 'Stop',
        stop_hook_active: turn > 1, last_assistant_message: text,
      }, env);
      if (!answer.block) break;
      this.say(`  ⎿  Stop hook feedback: ${answer.reason?.split('\n')[0] ?? ''}`);
    }
    return this.finish(true);
  }

  /** The loop is over: clean up, then exit, or idle at a prompt like an interactive agent. */
  private async finish(idle = !this.scenario.exitAtStop): Promise<number> {
    removeIfPresent(join(this.dir, SIGNAL_TMP_FILE));
    removeIfPresent(join(this.dir, SYMLINK_TARGET));
    clearState(this.dir);
    if (!idle) return 0;
    for (;;) {
      this.out.write('> ');
      const got = await this.input().next(this.abort.signal);
      if ('end' in got) return got.end === 'aborted' ? SIGTERM_EXIT : 0;
      this.endPromptLine();
      if (got.line.trim() === '/exit') {
        this.say('Bye.');
        return 0;
      }
      this.say('  ⎿  The loop is over; type /exit to quit.');
    }
  }

  /** `.working/.status.json`, keeping fields written by others. */
  private writeStatus(status: LifecycleStatus, stage: string): void {
    const path = join(this.dir, '.working', '.status.json');
    let current: Record<string, unknown> = {};
    try {
      const raw: unknown = JSON.parse(readFileSync(path, 'utf8'));
      if (raw && typeof raw === 'object' && !Array.isArray(raw)) current = raw as Record<string, unknown>;
    } catch { /* absent or unreadable: start over */ }
    mkdirSync(join(this.dir, '.working'), { recursive: true });
    writeFileAtomic(path, `${JSON.stringify({ ...current, status, stage, updated_at: this.now().toISOString() }, null, 2)}\n`);
  }

  private writeEnvFile(): void {
    const name = this.scenario.envFile;
    if (!name) return;
    const env = this.opts.env ?? process.env;
    const record = {
      AUTODECK_TASK_DIR: env.AUTODECK_TASK_DIR ?? null,
      AUTODECK_SESSION: env.AUTODECK_SESSION ?? null,
      AUTODECK_DB: env.AUTODECK_DB ?? null,
      argv: process.argv,
      cwd: process.cwd(),
    };
    writeFileAtomic(join(this.dir, name), `${JSON.stringify(record, null, 2)}\n`);
  }
}
