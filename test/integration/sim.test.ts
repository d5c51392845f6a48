import { describe, it, expect, afterEach } from 'vitest';
import { existsSync, lstatSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { readSignalFile, SIGNAL_FILE, SIGNAL_TMP_FILE, type Signal } from '../../src/protocol/signal.js';
import { writeStopFile } from '../../src/protocol/stopFile.js';
import { runSim, type SimOptions } from '../../src/sim/agent.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A task module with a lifecycle status and, optionally, a scenario (stepSeconds 0.01 unless given). */
function makeModule(status: string, scenario: Record<string, unknown> = {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'autodeck-sim-')));
  dirs.push(dir);
  writeFileSync(join(dir, '.index.json'), JSON.stringify({ status, title: 'sim test' }));
  writeFileSync(join(dir, '.sim.json'), JSON.stringify({ stepSeconds: 0.01, ...scenario }));
  return dir;
}

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  return { stream, text: () => text };
}

/** Runs the sim in-process with its output captured. */
function start(dir: string, opts: SimOptions = {}) {
  const out = sink();
  const err = sink();
  const done = runSim(dir, { stdout: out.stream, stderr: err.stream, ...opts });
  return { done, out: out.text, err: err.text };
}

async function waitFor(what: string, predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function finalSignal(dir: string): Signal {
  const read = readSignalFile(join(dir, SIGNAL_FILE));
  if (!read.ok) throw new Error(`no valid signal: ${read.reason}`);
  return read.signal;
}

/** The step keys in the order the sim reported them. */
function stepsRun(output: string): string[] {
  return [...output.matchAll(/^ {2}⎿ {2}(\S+): \S+ → /gm)].map((m) => m[1]!);
}

const lifecycle = (dir: string): unknown => JSON.parse(readFileSync(join(dir, '.working', '.status.json'), 'utf8')).status;

describe('runSim', () => {
  it('runs a planning module to the end and leaves only the final signal', async () => {
    const dir = makeModule('planning');
    const run = start(dir);
    expect(await run.done).toBe(0);
    expect(finalSignal(dir)).toMatchObject({ step: 'report', result: '(done)', next: '(stop)', checkpoint: '', iteration: 6 });
    expect(stepsRun(run.out())).toEqual(['plan', 'check@post-plan', 'exec', 'check@post-exec', 'merge', 'report']);
    expect(existsSync(join(dir, SIGNAL_TMP_FILE))).toBe(false);
    expect(existsSync(join(dir, '.working', '.sim-state.json'))).toBe(false);
    expect(lifecycle(dir)).toBe('complete');
  });

  it('uses the clock it is given for timestamps', async () => {
    const dir = makeModule('planning');
    expect(await start(dir, { now: () => new Date('2030-01-02T03:04:05.000Z') }).done).toBe(0);
    expect(finalSignal(dir).timestamp).toBe('2030-01-02T03:04:05.000Z');
  });

  it('starts a review module at check', async () => {
    const dir = makeModule('review');
    const run = start(dir);
    expect(await run.done).toBe(0);
    expect(stepsRun(run.out())).toEqual(['check@post-plan', 'exec', 'check@post-exec', 'merge', 'report']);
    expect(finalSignal(dir).iteration).toBe(5);
  });

  it('writes nothing when a stop file is there before it starts', async () => {
    const dir = makeModule('planning');
    writeStopFile(dir, 'user_stop');
    const run = start(dir);
    expect(await run.done).toBe(0);
    expect(run.out()).toContain('Stop requested (user_stop)');
    expect(existsSync(join(dir, SIGNAL_FILE))).toBe(false);
    expect(existsSync(join(dir, '.working'))).toBe(false);
  });

  it('stops before the next iteration when a stop file appears', async () => {
    const dir = makeModule('planning', { stepSeconds: 0.05 });
    const run = start(dir);
    await waitFor('the first signal', () => existsSync(join(dir, SIGNAL_FILE)));
    writeStopFile(dir, 'timeout');
    expect(await run.done).toBe(0);
    expect(finalSignal(dir).next).not.toBe('(stop)');
    expect(run.out()).toMatch(/Stop requested \(timeout\); stopping before iteration \d/);
  });

  it('keeps going past a stop file when told to ignore it', async () => {
    const dir = makeModule('planning', { ignoreStop: true });
    writeStopFile(dir, 'user_stop');
    expect(await start(dir).done).toBe(0);
    expect(finalSignal(dir)).toMatchObject({ next: '(stop)', iteration: 6 });
  });

  it('crashes at iteration 2, then a restart resumes at iteration 2 and finishes', async () => {
    const dir = makeModule('planning', { crash: { atIteration: 2, exitCode: 3 } });
    const first = start(dir);
    expect(await first.done).toBe(3);
    expect(finalSignal(dir)).toMatchObject({ step: 'plan', next: 'check', iteration: 1 });
    expect(existsSync(join(dir, '.working', '.sim-state.json'))).toBe(true);

    const second = start(dir);
    expect(await second.done).toBe(0);
    expect(second.out()).toContain('Resuming at check@post-plan, iteration 2');
    expect(stepsRun(second.out())).toEqual(['check@post-plan', 'exec', 'check@post-exec', 'merge', 'report']);
    expect(finalSignal(dir)).toMatchObject({ step: 'report', next: '(stop)', iteration: 6 });
  });

  it('remembers the results it used across a crash', async () => {
    const dir = makeModule('planning', { results: { 'check@post-exec': ['NEEDS_FIX'] }, crash: { atIteration: 5 } });
    expect(await start(dir).done).toBe(1);
    expect(finalSignal(dir)).toMatchObject({ step: 'check', result: 'NEEDS_FIX', iteration: 4 });
    const second = start(dir);
    expect(await second.done).toBe(0);
    expect(stepsRun(second.out())).toEqual(['exec', 'check@post-exec', 'merge', 'report']);
    expect(finalSignal(dir)).toMatchObject({ step: 'report', iteration: 8 });
  });

  it('crashes on every restart with times -1', async () => {
    const dir = makeModule('planning', { crash: { atIteration: 1, exitCode: 9, times: -1 } });
    for (let i = 0; i < 3; i++) expect(await start(dir).done).toBe(9);
    expect(existsSync(join(dir, SIGNAL_FILE))).toBe(false);
  });

  it('exits 0 at once when restarted after a signal that ended the loop', async () => {
    const dir = makeModule('planning');
    expect(await start(dir).done).toBe(0);
    const before = readFileSync(join(dir, SIGNAL_FILE), 'utf8');
    expect(await start(dir).done).toBe(0);
    expect(readFileSync(join(dir, SIGNAL_FILE), 'utf8')).toBe(before);
  });

  it('loops back through exec after NEEDS_FIX at post-exec', async () => {
    const dir = makeModule('planning', { results: { 'check@post-exec': ['NEEDS_FIX'] } });
    const run = start(dir);
    expect(await run.done).toBe(0);
    expect(stepsRun(run.out())).toEqual(['plan', 'check@post-plan', 'exec', 'check@post-exec', 'exec', 'check@post-exec', 'merge', 'report']);
    expect(finalSignal(dir)).toMatchObject({ step: 'report', iteration: 8 });
  });

  it('ends with a merge conflict', async () => {
    const dir = makeModule('planning', { results: { merge: ['conflict'] } });
    expect(await start(dir).done).toBe(0);
    expect(finalSignal(dir)).toMatchObject({ step: 'merge', result: 'conflict', next: '(stop)', iteration: 5 });
    expect(lifecycle(dir)).toBe('blocked');
  });

  it('adds exec progress steps', async () => {
    const dir = makeModule('executing', { steps: 2 });
    const run = start(dir);
    expect(await run.done).toBe(0);
    expect(run.out()).toContain('exec: (step-1) → exec');
    expect(run.out()).toContain('exec: (step-2) → exec');
    expect(finalSignal(dir).iteration).toBe(6);
  });

  it('writes each kind of invalid signal before the valid one', async () => {
    const dir = makeModule('planning', { invalidSignals: { atIteration: 2, pauseSeconds: 0.15 } });
    const seen = new Set<string>();
    const run = start(dir);
    const poll = setInterval(() => {
      const read = readSignalFile(join(dir, SIGNAL_FILE));
      if (!read.ok) seen.add(read.reason);
    }, 3);
    try {
      expect(await run.done).toBe(0);
    } finally {
      clearInterval(poll);
    }
    const reasons = [...seen].join(' | ');
    for (const r of ['not JSON', 'step "deploy"', 'larger than', 'field "next" is missing', 'a symlink']) expect(reasons).toContain(r);
    expect(lstatSync(join(dir, SIGNAL_FILE)).isFile()).toBe(true);
    expect(finalSignal(dir)).toMatchObject({ step: 'report', next: '(stop)', iteration: 6 });
    expect(existsSync(join(dir, '.working', '.sim-symlink-target.json'))).toBe(false);
  });

  it('bursts signals with the same iteration', async () => {
    const dir = makeModule('planning', { burst: { atIteration: 3, count: 50 } });
    expect(await start(dir).done).toBe(0);
    expect(finalSignal(dir)).toMatchObject({ step: 'report', iteration: 6 });
  });

  it('bursts signals with growing iterations, and goes on from the last', async () => {
    const dir = makeModule('planning', { burst: { atIteration: 3, count: 50, increment: true }, results: { merge: ['conflict'] } });
    const run = start(dir);
    expect(await run.done).toBe(0);
    expect(run.out()).toContain('(iteration 53)'); // the check after the burst's last signal (52)
    expect(finalSignal(dir)).toMatchObject({ step: 'merge', result: 'conflict', iteration: 54 });
  });

  it('writes its environment to envFile', async () => {
    const dir = makeModule('planning', { envFile: 'env.json' });
    const env = { AUTODECK_TASK_DIR: dir, AUTODECK_SESSION: 'auto-x-abcdef', AUTODECK_DB: '/tmp/x.db' };
    expect(await start(dir, { env }).done).toBe(0);
    const written = JSON.parse(readFileSync(join(dir, 'env.json'), 'utf8'));
    expect(written).toMatchObject({ ...env, cwd: process.cwd() });
    expect(written.argv).toEqual(process.argv);
  });

  it('refuses a bad scenario with one line on stderr and exit 2', async () => {
    const dir = makeModule('planning', { crash: { atIteration: 'two' } });
    const run = start(dir);
    expect(await run.done).toBe(2);
    expect(run.err()).toMatch(/^autodeck sim: .*\.sim\.json: crash\.atIteration: must be an integer.*\n$/);
    expect(run.err().split('\n')).toHaveLength(2);
    expect(existsSync(join(dir, SIGNAL_FILE))).toBe(false);
  });

  it('waits at a prompt for a line on stdin', async () => {
    const dir = makeModule('planning', { prompt: { atIteration: 2, text: 'Continue? (y/n)' } });
    const stdin = new PassThrough();
    const run = start(dir, { stdin });
    await waitFor('the prompt', () => run.out().includes('Continue? (y/n)'));
    expect(finalSignal(dir).iteration).toBe(1);
    stdin.write('y\r');
    expect(await run.done).toBe(0);
    expect(run.out()).toContain('Confirmed.');
  });

  it('goes on after a declined prompt and says so', async () => {
    const dir = makeModule('planning', { prompt: { atIteration: 1 } });
    const stdin = new PassThrough();
    const run = start(dir, { stdin });
    await waitFor('the prompt', () => run.out().includes('Continue? (y/n)'));
    stdin.write('n\n');
    expect(await run.done).toBe(0);
    expect(run.out()).toContain('Declined ("n"); going on anyway.');
  });

  it('waits out a quota message until a line arrives', async () => {
    const message = '5-hour limit reached ∙ resets 5am';
    const dir = makeModule('planning', { quota: { atIteration: 3, message, seconds: 600 } });
    const stdin = new PassThrough();
    const run = start(dir, { stdin });
    await waitFor('the quota message', () => run.out().includes(message));
    stdin.write('continue\n');
    expect(await run.done).toBe(0);
    expect(run.out()).toContain('Continuing.');
  });

  it('waits out a quota message for its seconds without input', async () => {
    const dir = makeModule('planning', { quota: { atIteration: 1, seconds: 0.05 } });
    const run = start(dir, { stdin: new PassThrough() });
    expect(await run.done).toBe(0);
    expect(run.out()).toContain('Limit reset; continuing.');
  });

  it('repeats a message and floods output', async () => {
    const dir = makeModule('planning', { repeat: { atIteration: 2, text: 'Let me look again.', times: 4 }, flood: { atIteration: 3, lines: 1000 } });
    const run = start(dir);
    expect(await run.done).toBe(0);
    expect(run.out().split('\n').filter((l) => l === '● Let me look again.')).toHaveLength(4);
    expect(run.out()).toContain('1000/1000  PASS');
    expect(run.out().split('\n').length).toBeGreaterThan(1000);
  });

  it('hangs without output, and SIGTERM ends it with 143', async () => {
    const dir = makeModule('planning', { hang: { atIteration: 2, seconds: 600 } });
    const before = new Set(process.listeners('SIGTERM'));
    const run = start(dir);
    await waitFor('the first signal', () => existsSync(join(dir, SIGNAL_FILE)));
    const [onTerm] = process.listeners('SIGTERM').filter((l) => !before.has(l));
    const printed = run.out();
    expect(printed).not.toContain('(iteration 2)');
    (onTerm as () => void)();
    expect(await run.done).toBe(143);
    expect(run.out()).toBe(printed);
    expect(process.listeners('SIGTERM')).toHaveLength(before.size);
  });

  it('ignores SIGTERM when told to', async () => {
    const dir = makeModule('planning', { ignoreSigterm: true, stepSeconds: 0.05 });
    const before = new Set(process.listeners('SIGTERM'));
    const run = start(dir);
    const [onTerm] = process.listeners('SIGTERM').filter((l) => !before.has(l));
    (onTerm as () => void)();
    expect(await run.done).toBe(0);
    expect(run.out()).toContain('(SIGTERM ignored)');
    expect(finalSignal(dir).next).toBe('(stop)');
  });

  it('idles at a prompt after the loop until /exit when exitAtStop is false', async () => {
    const dir = makeModule('planning', { exitAtStop: false });
    const stdin = new PassThrough();
    const run = start(dir, { stdin });
    await waitFor('the idle prompt', () => run.out().endsWith('> '));
    expect(finalSignal(dir).next).toBe('(stop)');
    expect(existsSync(join(dir, '.working', '.sim-state.json'))).toBe(false);
    stdin.write('hello\n');
    await waitFor('the reply', () => run.out().includes('type /exit to quit'));
    stdin.write('/exit\n');
    expect(await run.done).toBe(0);
  });

  it('idles after a stop file too, and ends at end of input', async () => {
    const dir = makeModule('planning', { exitAtStop: false });
    writeStopFile(dir, 'user_stop');
    const stdin = new PassThrough();
    const run = start(dir, { stdin });
    await waitFor('the idle prompt', () => run.out().endsWith('> '));
    stdin.end();
    expect(await run.done).toBe(0);
  });
});
