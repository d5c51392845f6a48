import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STEP_KEYS, positionOf, resultsOf, route, type StepKey } from './routing.js';
import { describeValue } from '../format/bounded.js';

export const SCENARIO_FILE = '.sim.json';

export const INVALID_KINDS = ['not-json', 'bad-step', 'oversized', 'missing-field', 'symlink'] as const;
export type InvalidKind = (typeof INVALID_KINDS)[number];

/** How the simulated agent misbehaves, from `TASK_DIR/.sim.json`. Every field is optional there. */
export interface Scenario {
  /** Seconds each step takes (decimal). */
  stepSeconds: number;
  /** Results per step key, used in order before the well-behaved default. */
  results: Partial<Record<StepKey, string[]>>;
  /** Extra exec `(step-N)` progress steps before the first exec `(done)`, to make a loop long. */
  steps: number;
  /** Exit with `exitCode` when about to run iteration `atIteration`, at most `times` times (-1: always). */
  crash?: { atIteration: number; exitCode: number; times: number };
  /** Never look at `.auto-stop`. */
  ignoreStop: boolean;
  /** Trap SIGTERM and keep running, so only SIGKILL ends it. */
  ignoreSigterm: boolean;
  /** Print nothing and sleep `seconds` before iteration `atIteration` (a stall). */
  hang?: { atIteration: number; seconds: number };
  /**
   * Hang while drawing: a spinner line ticking every 0.25 s for `seconds` at iteration
   * `atIteration`, deaf to input, the first `times` starts that reach it (counted in the
   * sim's state file, so a restarted agent goes on normally).
   */
  spin?: { atIteration: number; seconds: number; times: number };
  /** Print `text` and wait for a line on stdin during iteration `atIteration`. */
  prompt?: { atIteration: number; text: string };
  /**
   * Print a usage-limit `message`, then wait `seconds` or until a line arrives on stdin.
   * `{epoch}`, `{epoch+N}`, `{epoch-N}` in the message become the Unix time (plus N seconds).
   */
  quota?: { atIteration: number; message: string; seconds: number };
  /** Compact the conversation `times` times (a transcript's compaction markers; needs `transcript`). */
  compact?: { atIteration: number; times: number };
  /** Print the same assistant message `text` `times` times. */
  repeat?: { atIteration: number; text: string; times: number };
  /** Print `lines` lines of output as fast as possible. */
  flood?: { atIteration: number; lines: number };
  /** Write these invalid signals, `pauseSeconds` apart, before the valid one of that iteration. */
  invalidSignals?: { atIteration: number; kinds: InvalidKind[]; pauseSeconds: number };
  /** Write `count` valid signals at once, the last the real one; `increment`: iterations N..N+count-1. */
  burst?: { atIteration: number; count: number; increment: boolean };
  /** false: once the loop is over (a `(stop)` signal or the stop file), idle at `> ` until `/exit` or EOF. */
  exitAtStop: boolean;
  /** File name under TASK_DIR to write the agent's environment, argv and cwd to, at start. */
  envFile?: string;
  /** Finish the turn and sit idle at a bare `> ` prompt `times` times in that iteration, until a line arrives. */
  idle?: { atIteration: number; times: number };
  /** Also write a Claude Code-like JSONL transcript under $HOME/.claude/projects/ (assistant texts, API 429s). */
  transcript: boolean;
  /**
   * Behave like an interactive agent under the Stop hook instead of running the
   * auto loop: each turn completes one `.checklist.json` task, then calls `autodeck hook
   * stop`; a block starts another turn (at most `maxTurns`), an allow leaves it idle at `> `.
   */
  hookTurns?: { maxTurns: number };
}

export const DEFAULT_SCENARIO: Readonly<Scenario> = Object.freeze({
  stepSeconds: 0.3, results: {}, steps: 0, ignoreStop: false, ignoreSigterm: false, exitAtStop: true, transcript: false,
});

export interface ScenarioParse {
  value: Scenario;
  /** One line each, naming the field. */
  errors: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown): string => describeValue(v, 40);

/** Reads fields of one JSON object, collecting an error per bad field. */
class Fields {
  constructor(private readonly o: Obj, private readonly path: string, private readonly errors: string[], known: readonly string[]) {
    for (const key of Object.keys(o)) if (!known.includes(key)) this.fail(key, `is not a known field (known: ${known.join(', ')})`);
  }

  fail(key: string, message: string): undefined {
    this.errors.push(`${this.path}${key}: ${message}`);
    return undefined;
  }

  number(key: string, dflt: number, min: number, max: number, integer: boolean): number {
    const v = this.o[key];
    if (v === undefined) return dflt;
    const ok = typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max && (!integer || Number.isInteger(v));
    if (ok) return v;
    this.fail(key, `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max} (got ${show(v)})`);
    return dflt;
  }

  /** A required positive iteration number. */
  iteration(key = 'atIteration'): number {
    if (this.o[key] === undefined) {
      this.fail(key, 'is required');
      return 1;
    }
    return this.number(key, 1, 1, 1_000_000, true);
  }

  boolean(key: string, dflt: boolean): boolean {
    const v = this.o[key];
    if (v === undefined || typeof v === 'boolean') return v ?? dflt;
    this.fail(key, `must be true or false (got ${show(v)})`);
    return dflt;
  }

  text(key: string, dflt: string): string {
    const v = this.o[key];
    if (v === undefined) return dflt;
    if (typeof v === 'string' && v.trim() !== '' && !/[\r\n]/.test(v) && v.length <= 1000) return v;
    this.fail(key, `must be one line of text, 1 to 1000 characters (got ${show(v)})`);
    return dflt;
  }

  object(key: string): Fields | undefined {
    const v = this.o[key];
    if (v === undefined) return undefined;
    if (!isObj(v)) return this.fail(key, `must be an object (got ${show(v)})`);
    return new Fields(v, `${this.path}${key}.`, this.errors, KNOWN[key] ?? []);
  }

  raw(key: string): unknown {
    return this.o[key];
  }
}

const KNOWN: Record<string, readonly string[]> = {
  top: ['stepSeconds', 'results', 'steps', 'crash', 'ignoreStop', 'ignoreSigterm', 'hang', 'spin', 'prompt', 'quota', 'repeat',
    'flood', 'invalidSignals', 'burst', 'exitAtStop', 'envFile', 'idle', 'transcript', 'hookTurns', 'compact'],
  compact: ['atIteration', 'times'],
  hookTurns: ['maxTurns'],
  idle: ['atIteration', 'times'],
  crash: ['atIteration', 'exitCode', 'times'],
  hang: ['atIteration', 'seconds'],
  spin: ['atIteration', 'seconds', 'times'],
  prompt: ['atIteration', 'text'],
  quota: ['atIteration', 'message', 'seconds'],
  repeat: ['atIteration', 'text', 'times'],
  flood: ['atIteration', 'lines'],
  invalidSignals: ['atIteration', 'kinds', 'pauseSeconds'],
  burst: ['atIteration', 'count', 'increment'],
};

const DAY = 86_400;

/** Parses the text of `.sim.json`; blank text is the default scenario. Pure. */
export function parseScenario(text: string): ScenarioParse {
  const errors: string[] = [];
  const value: Scenario = { ...DEFAULT_SCENARIO, results: {} };
  if (text.trim() === '') return { value, errors };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { value, errors: [`not JSON (${(err as Error).message})`] };
  }
  if (!isObj(raw)) return { value, errors: [`must be a JSON object (got ${show(raw)})`] };
  const f = new Fields(raw, '', errors, KNOWN.top!);

  value.stepSeconds = f.number('stepSeconds', value.stepSeconds, 0, 3600, false);
  value.steps = f.number('steps', 0, 0, 100_000, true);
  value.ignoreStop = f.boolean('ignoreStop', false);
  value.ignoreSigterm = f.boolean('ignoreSigterm', false);
  value.exitAtStop = f.boolean('exitAtStop', true);
  value.transcript = f.boolean('transcript', false);
  value.results = parseResults(f, errors);

  const envFile = f.raw('envFile');
  if (envFile !== undefined) {
    if (typeof envFile === 'string' && /^[^/\\\0]+$/.test(envFile) && envFile !== '.' && envFile !== '..') value.envFile = envFile;
    else f.fail('envFile', `must be a plain file name inside the task folder (got ${show(envFile)})`);
  }

  const crash = f.object('crash');
  if (crash) value.crash = { atIteration: crash.iteration(), exitCode: crash.number('exitCode', 1, 0, 255, true), times: crash.number('times', 1, -1, 1_000_000, true) };
  if (value.crash?.times === 0) errors.push('crash.times: must be -1 (always) or at least 1 (got 0)');
  const hang = f.object('hang');
  if (hang) value.hang = { atIteration: hang.iteration(), seconds: hang.number('seconds', 60, 0, DAY, false) };
  const spin = f.object('spin');
  if (spin) value.spin = { atIteration: spin.iteration(), seconds: spin.number('seconds', 600, 0, DAY, false), times: spin.number('times', 1, 1, 1000, true) };
  const prompt = f.object('prompt');
  if (prompt) value.prompt = { atIteration: prompt.iteration(), text: prompt.text('text', 'Continue? (y/n)') };
  const quota = f.object('quota');
  if (quota) {
    value.quota = {
      atIteration: quota.iteration(),
      message: quota.text('message', '5-hour limit reached ∙ resets 5am'),
      seconds: quota.number('seconds', 30, 0, DAY, false),
    };
  }
  const compact = f.object('compact');
  if (compact) value.compact = { atIteration: compact.iteration(), times: compact.number('times', 1, 1, 1000, true) };
  const repeat = f.object('repeat');
  if (repeat) value.repeat = { atIteration: repeat.iteration(), text: repeat.text('text', 'Let me check the tests again.'), times: repeat.number('times', 3, 1, 10_000, true) };
  const flood = f.object('flood');
  if (flood) value.flood = { atIteration: flood.iteration(), lines: flood.number('lines', 5000, 1, 2_000_000, true) };
  const invalid = f.object('invalidSignals');
  if (invalid) {
    value.invalidSignals = {
      atIteration: invalid.iteration(),
      kinds: parseKinds(invalid, errors),
      pauseSeconds: invalid.number('pauseSeconds', value.stepSeconds, 0, 3600, false),
    };
  }
  const idle = f.object('idle');
  if (idle) value.idle = { atIteration: idle.iteration(), times: idle.number('times', 1, 1, 1000, true) };
  const hookTurns = f.object('hookTurns');
  if (hookTurns) value.hookTurns = { maxTurns: hookTurns.number('maxTurns', 50, 1, 10_000, true) };
  const burst = f.object('burst');
  if (burst) value.burst = { atIteration: burst.iteration(), count: burst.number('count', 10, 1, 100_000, true), increment: burst.boolean('increment', false) };
  return { value, errors };
}

function parseResults(f: Fields, errors: string[]): Scenario['results'] {
  const raw = f.raw('results');
  const out: Scenario['results'] = {};
  if (raw === undefined) return out;
  if (!isObj(raw)) {
    f.fail('results', `must be an object of step keys (got ${show(raw)})`);
    return out;
  }
  for (const [key, list] of Object.entries(raw)) {
    if (!(STEP_KEYS as readonly string[]).includes(key)) {
      errors.push(`results.${key}: is not a step key (one of ${STEP_KEYS.join(', ')})`);
      continue;
    }
    const pos = positionOf(key as StepKey);
    if (!Array.isArray(list)) {
      errors.push(`results.${key}: must be a list of results (got ${show(list)})`);
      continue;
    }
    const good: string[] = [];
    list.forEach((result: unknown, i) => {
      if (typeof result === 'string' && route(pos.step, pos.checkpoint, result)) good.push(result);
      else errors.push(`results.${key}[${i}]: ${show(result)} is not a result of ${key} (${resultsOf(pos).join(', ')})`);
    });
    out[key as StepKey] = good;
  }
  return out;
}

function parseKinds(f: Fields, errors: string[]): InvalidKind[] {
  const raw = f.raw('kinds');
  if (raw === undefined) return [...INVALID_KINDS];
  if (!Array.isArray(raw) || raw.length === 0) {
    errors.push(`invalidSignals.kinds: must be a non-empty list (got ${show(raw)})`);
    return [];
  }
  const kinds: InvalidKind[] = [];
  raw.forEach((k: unknown, i) => {
    if ((INVALID_KINDS as readonly unknown[]).includes(k)) kinds.push(k as InvalidKind);
    else errors.push(`invalidSignals.kinds[${i}]: ${show(k)} is not one of ${INVALID_KINDS.join(', ')}`);
  });
  return kinds;
}

/** Reads `TASK_DIR/.sim.json`; a missing file is the default scenario. */
export function readScenario(taskDir: string): ScenarioParse {
  let text: string;
  try {
    text = readFileSync(join(taskDir, SCENARIO_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return parseScenario('');
    return { value: { ...DEFAULT_SCENARIO, results: {} }, errors: [`unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})`] };
  }
  return parseScenario(text);
}
