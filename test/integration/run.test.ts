import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags, startCli, SIM_AGENT } from '../helpers/cli.js';
import { eventsOf, loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';

// The real CLI, the simulated agent in real PTYs, a real SQLite file. No timed
// assertions: short decimal durations, and waits for states with generous bounds.

let ws: Workspace;
afterEach(() => ws?.cleanup());

/** The loop's row once its agent runs. */
const agentRow = (dir: string) => {
  const row = loopRow(ws.db, dir);
  return row?.agent_pid ? row : undefined;
};

const transient = (dir: string): string[] => readdirSync(dir).filter((f) => f.startsWith('.auto-'));

describe('autodeck run', () => {
  it('runs a complete loop: plan, check, exec, check, merge, report', async () => {
    ws = makeWorkspace();
    // Steps far enough apart for each signal to be read before the next replaces it: the
    // file holds only the latest, and 50 ms apart one was missed on a loaded CI machine.
    const dir = ws.module('hello', { status: 'planning', scenario: { stepSeconds: 0.3 } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws)]);
    expect(r.code, r.stderr).toBe(0);
    const [run] = runsOf(ws.db, dir);
    expect(run).toMatchObject({ outcome: 'complete', forced: 0, iterations: 6, restarts: 0 });
    expect(loopRow(ws.db, dir)).toBeUndefined();
    expect(transient(dir)).toEqual([]);
    const steps = eventsOf(ws.db, dir, 'signal').map((e) => `${e.detail.step}:${e.detail.result}`);
    expect(steps).toEqual(['plan:(generated)', 'check:PASS', 'exec:(done)', 'check:ACCEPT', 'merge:success', 'report:(done)']);
    expect(eventsOf(ws.db, dir).map((e) => e.kind)).toEqual(expect.arrayContaining(['started', 'agent_exit', 'ended']));
    // one human line per event on stderr
    expect(r.stderr).toMatch(/hello {2}signal {2}iteration 6: report \(done\) -> \(stop\)/);
    expect(r.stderr).toMatch(/hello: complete after 6 iterations/);
  });

  it('prints NDJSON events on stdout with --json', async () => {
    ws = makeWorkspace();
    const dir = ws.module('json', { scenario: { stepSeconds: 0.02 } });
    const r = await runCli(ws, ['run', dir, '--json', ...runFlags(ws)]);
    expect(r.code).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; taskDir: string; taskName: string });
    expect(events[0]).toMatchObject({ kind: 'started', taskDir: dir, taskName: 'json' });
    expect(events.at(-1)).toMatchObject({ kind: 'ended' });
  });

  it('stops at maxIterations with the stop file', async () => {
    ws = makeWorkspace();
    const dir = ws.module('long', { scenario: { stepSeconds: 0.5, steps: 30 } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--max-iterations', '3'])]);
    expect(r.code).toBe(1);
    const [run] = runsOf(ws.db, dir);
    expect(run).toMatchObject({ outcome: 'max_iterations', stop_reason: 'max_iterations', forced: 0 });
    // the agent finishes the step it is in, then obeys the stop file
    expect(run!.iterations).toBeGreaterThanOrEqual(3);
    expect(run!.iterations).toBeLessThanOrEqual(4);
    expect(eventsOf(ws.db, dir, 'stop_requested')[0]!.detail).toMatchObject({ reason: 'max_iterations', by: 'supervisor' });
    expect(transient(dir)).toEqual([]);
  });

  it('stops at the timeout, counted in decimal minutes', async () => {
    ws = makeWorkspace();
    const dir = ws.module('slow', { scenario: { stepSeconds: 0.5, steps: 100 } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--timeout', '0.03', '--max-iterations', '1000'])]);
    expect(r.code).toBe(1);
    const [run] = runsOf(ws.db, dir);
    expect(run).toMatchObject({ outcome: 'timeout', forced: 0 });
    expect(run!.active_ms).toBeGreaterThanOrEqual(1800);
  });

  it('a user stop from a second process ends the loop gracefully', async () => {
    ws = makeWorkspace();
    const dir = ws.module('stopme', { scenario: { stepSeconds: 0.3, steps: 100 } });
    const loop = startCli(ws, ['run', dir, ...runFlags(ws, ['--max-iterations', '1000'])]);
    await waitFor(() => (loopRow(ws.db, dir)?.iteration_count ?? 0) >= 1, 'a first signal');
    const stop = await runCli(ws, ['stop', dir, '--db', ws.db]);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).toMatch(/stop requested/);
    expect(await loop.exited).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'user_stop', forced: 0 });
    expect(eventsOf(ws.db, dir, 'stop_requested')[0]!.detail).toMatchObject({ reason: 'user_stop', by: 'stop file' });
    expect(transient(dir)).toEqual([]);
    // nothing left to stop
    expect((await runCli(ws, ['stop', dir, '--db', ws.db])).code).toBe(1);
  });

  it('a stop lets a quiet agent finish its step even with a fast heartbeat (it is not idle)', async () => {
    ws = makeWorkspace();
    const dir = ws.module('quiet', { scenario: { stepSeconds: 3, steps: 100 } });
    const loop = startCli(ws, ['run', dir, ...runFlags(ws, ['--max-iterations', '1000', '--heartbeat', '0.3'])]);
    await waitFor(() => agentRow(dir), 'the agent');
    // Into its first step (it checks for a stop file only before one): a second of 3.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await runCli(ws, ['stop', dir, '--db', ws.db])).code).toBe(0);
    expect(await loop.exited).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'user_stop', forced: 0, iterations: 1 });
    // the agent ended its step and left by itself: no exit command, no SIGTERM
    expect(eventsOf(ws.db, dir, 'agent_exit').map((e) => e.detail)).toEqual([expect.objectContaining({ exitCode: 0 })]);
  });

  it('a force stop kills an agent that ignores the stop file at once', async () => {
    ws = makeWorkspace();
    const dir = ws.module('stubborn', { scenario: { stepSeconds: 0.3, steps: 100, ignoreStop: true, ignoreSigterm: true } });
    const loop = startCli(ws, ['run', dir, ...runFlags(ws, ['--max-iterations', '1000'])]);
    const row = await waitFor(() => agentRow(dir), 'the agent');
    expect((await runCli(ws, ['stop', dir, '--force', '--db', ws.db])).code).toBe(0);
    expect(await loop.exited).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'killed', forced: 1 });
    expect(() => process.kill(row.agent_pid!, 0)).toThrow();
  });

  it('an agent that ignores the stop file is terminated after the grace time', async () => {
    ws = makeWorkspace();
    const dir = ws.module('deaf', { scenario: { stepSeconds: 0.3, steps: 100, ignoreStop: true } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--max-iterations', '2', '--grace', '0.5'])]);
    expect(r.code).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'max_iterations', forced: 1 });
    expect(eventsOf(ws.db, dir, 'agent_exit').some((e) => e.detail.action === 'SIGTERM')).toBe(true);
  });

  it('SIGKILLs an agent that also traps SIGTERM, 5 s after it', async () => {
    ws = makeWorkspace();
    const dir = ws.module('deafer', { scenario: { stepSeconds: 0.3, steps: 100, ignoreStop: true, ignoreSigterm: true } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--max-iterations', '1', '--grace', '0.2'])]);
    expect(r.code).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'max_iterations', forced: 1 });
    const exit = eventsOf(ws.db, dir, 'agent_exit').find((e) => e.detail.exitCode !== undefined);
    expect(exit?.detail.signal).toBe(9);
  });

  it.each([
    ['generic', 'EOF'],
    ['claude', '/exit'],
  ])('ends an agent idling at its prompt after the loop, as a %s agent', async (profile, keys) => {
    ws = makeWorkspace();
    const dir = ws.module('idle', { scenario: { stepSeconds: 0.05, exitAtStop: false } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--heartbeat', '0.3', '--agent-profile', profile])]);
    expect(r.code, r.stderr).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', forced: 0 });
    const actions = eventsOf(ws.db, dir, 'agent_exit').map((e) => e.detail);
    expect(actions).toContainEqual(expect.objectContaining({ action: 'exit command', keys }));
    // it left on the exit command: no SIGTERM was needed
    expect(actions.some((a) => a.action === 'SIGTERM')).toBe(false);
    expect(actions.at(-1)).toMatchObject({ exitCode: 0 });
  });

  it('refuses a duplicate start with exit 3 and leaves the first loop alone', async () => {
    ws = makeWorkspace();
    const dir = ws.module('dup', { scenario: { stepSeconds: 0.3, steps: 8 } });
    const first = startCli(ws, ['run', dir, ...runFlags(ws)]);
    const row = await waitFor(() => agentRow(dir), 'the first agent');
    const second = await runCli(ws, ['run', dir, ...runFlags(ws)]);
    expect(second.code).toBe(3);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toMatch(/already running/);
    expect(loopRow(ws.db, dir)?.agent_pid).toBe(row.agent_pid);
    expect(await first.exited).toBe(0);
    expect(runsOf(ws.db, dir)).toHaveLength(1);
    expect(eventsOf(ws.db, dir, 'started')).toHaveLength(1);
  });

  it('two run processes racing for one module start exactly one agent', async () => {
    ws = makeWorkspace();
    const dir = ws.module('race', { scenario: { stepSeconds: 0.05, envFile: '.env.json' } });
    const [a, b] = await Promise.all([runCli(ws, ['run', dir, ...runFlags(ws)]), runCli(ws, ['run', dir, ...runFlags(ws)])]);
    expect([a.code, b.code].sort(), `${a.stderr}\n${b.stderr}`).toEqual([0, 3]);
    expect(eventsOf(ws.db, dir, 'started')).toHaveLength(1);
    expect(runsOf(ws.db, dir)).toHaveLength(1);
  });

  it('logs invalid and oversized signals and ignores them', async () => {
    ws = makeWorkspace();
    const dir = ws.module('noisy', {
      scenario: { stepSeconds: 0.05, invalidSignals: { atIteration: 2, kinds: ['not-json', 'bad-step', 'oversized', 'missing-field', 'symlink'], pauseSeconds: 0.6 } },
    });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws)]);
    expect(r.code, r.stderr).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', iterations: 6 });
    const reasons = eventsOf(ws.db, dir, 'signal_invalid').map((e) => String(e.detail.reason));
    for (const reason of [/not JSON/, /step "deploy"|step/, /larger than/, /missing/, /symlink/]) {
      expect(reasons.some((x) => reason.test(x)), `${reason} in ${reasons.join(' | ')}`).toBe(true);
    }
    // counters never moved on them: six valid signals, six iterations
    expect(eventsOf(ws.db, dir, 'signal')).toHaveLength(6);
  });

  it('a burst of hundreds of signals leaves the exact final state', async () => {
    ws = makeWorkspace();
    const dir = ws.module('burst', { scenario: { stepSeconds: 0.05, burst: { atIteration: 3, count: 400, increment: true } } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--max-iterations', '1000'])]);
    expect(r.code, r.stderr).toBe(0);
    const [run] = runsOf(ws.db, dir);
    // exec's signal is the burst, iterations 3..402; then check, merge, report
    expect(run).toMatchObject({ outcome: 'complete', iterations: 405 });
    const last = eventsOf(ws.db, dir, 'signal').at(-1)!.detail;
    expect(last).toMatchObject({ step: 'report', result: '(done)', next: '(stop)', iteration: 405 });
  });

  it('passes a path with spaces, quotes, $() and backticks intact and runs nothing from it', async () => {
    ws = makeWorkspace();
    const name = `it's "odd" $(touch pwned) \`touch pwned2\` & more`;
    const dir = ws.module(name, { scenario: { stepSeconds: 0.02, envFile: '.env.json' } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws)]);
    expect(r.code, r.stderr).toBe(0);
    const seen = JSON.parse(readFileSync(join(dir, '.env.json'), 'utf8')) as { argv: string[]; AUTODECK_TASK_DIR: string };
    expect(seen.AUTODECK_TASK_DIR).toBe(dir);
    expect(seen.argv).toContain(dir);
    for (const place of [ws.dir, ws.root, dir, process.cwd()]) {
      expect(existsSync(join(place, 'pwned'))).toBe(false);
      expect(existsSync(join(place, 'pwned2'))).toBe(false);
    }
  });

  it('gives the agent its environment and the git top level as working folder', async () => {
    ws = makeWorkspace();
    const dir = ws.module('env', { scenario: { stepSeconds: 0.02, envFile: '.env.json' } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws)], { env: { SOME_USER_VAR: 'kept' } });
    expect(r.code, r.stderr).toBe(0);
    const seen = JSON.parse(readFileSync(join(dir, '.env.json'), 'utf8')) as Record<string, unknown>;
    const session = eventsOf(ws.db, dir, 'started')[0] && (runsOf(ws.db, dir)[0] as unknown as { session_name: string }).session_name;
    expect(seen).toMatchObject({ AUTODECK_TASK_DIR: dir, AUTODECK_DB: ws.db, AUTODECK_SESSION: session, cwd: ws.dir });
    expect(session).toMatch(/^auto-env-[0-9a-f]{6}$/);
  });

  it('restarts a crashing agent with backoff and ends failed at the restart limit', async () => {
    ws = makeWorkspace();
    const dir = ws.module('crashy', { scenario: { stepSeconds: 0.02, crash: { atIteration: 1, exitCode: 3, times: -1 } } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--restart-limit', '2'])]);
    expect(r.code).toBe(1);
    const row = loopRow(ws.db, dir);
    expect(row).toMatchObject({ status: 'failed', restart_count: 2 });
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'failed', restarts: 2 });
    const restarts = eventsOf(ws.db, dir, 'restart').map((e) => e.detail.inMs);
    expect(restarts).toEqual([1000, 2000]);
    expect(eventsOf(ws.db, dir, 'failed')[0]!.detail.message).toMatch(/exceeded restart limit/);
    expect(r.stderr).toMatch(/crashy: failed/);
    // the failed row is kept for a person, and starting again replaces it
    const again = await runCli(ws, ['run', dir, ...runFlags(ws, ['--restart-limit', '0'])]);
    expect(again.code).toBe(1);
    expect(runsOf(ws.db, dir)).toHaveLength(2);
  });

  it('a crash after progress is restarted and the loop completes', async () => {
    ws = makeWorkspace();
    const dir = ws.module('once', { scenario: { stepSeconds: 0.02, crash: { atIteration: 3, exitCode: 1, times: 1 } } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws)]);
    expect(r.code, r.stderr).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', iterations: 6 });
    expect(eventsOf(ws.db, dir, 'restart')).toHaveLength(1);
  });

  it('Ctrl-C stops the loops gracefully and exits 130', async () => {
    ws = makeWorkspace();
    const dir = ws.module('interrupted', { scenario: { stepSeconds: 0.3, steps: 100 } });
    const loop = startCli(ws, ['run', dir, ...runFlags(ws, ['--max-iterations', '1000'])]);
    await waitFor(() => (loopRow(ws.db, dir)?.iteration_count ?? 0) >= 1, 'a first signal');
    loop.child.kill('SIGINT');
    expect(await loop.exited).toBe(130);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'user_stop', forced: 0 });
  });

  it('a second Ctrl-C kills agents that do not stop', async () => {
    ws = makeWorkspace();
    const dir = ws.module('interrupted2', { scenario: { stepSeconds: 0.3, steps: 100, ignoreStop: true } });
    const loop = startCli(ws, ['run', dir, ...runFlags(ws, ['--max-iterations', '1000'])]);
    await waitFor(() => (loopRow(ws.db, dir)?.iteration_count ?? 0) >= 1, 'a first signal');
    loop.child.kill('SIGINT');
    await waitFor(() => loopRow(ws.db, dir)?.status === 'stopping', 'stopping');
    loop.child.kill('SIGINT');
    expect(await loop.exited).toBe(130);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'killed', forced: 1 });
  });
});

describe('a killed supervisor', () => {
  it('leaves its loop to the next run, which adopts it and finishes the work', async () => {
    ws = makeWorkspace();
    const dir = ws.module('orphan', { scenario: { stepSeconds: 0.4, envFile: '.env.json' } });
    const first = startCli(ws, ['run', dir, ...runFlags(ws)]);
    const before = await waitFor(() => {
      const row = loopRow(ws.db, dir);
      return row && row.iteration_count >= 2 ? row : undefined;
    }, 'two iterations');
    first.child.kill('SIGKILL');
    await first.exited;
    // the row survives its owner's death
    expect(loopRow(ws.db, dir)).toMatchObject({ owner_pid: first.child.pid });
    const second = await runCli(ws, ['run', dir, ...runFlags(ws)]);
    expect(second.code, second.stderr).toBe(0);
    const recovered = eventsOf(ws.db, dir, 'recovered');
    expect(recovered).toHaveLength(1);
    expect(recovered[0]!.detail).toMatchObject({ action: 'restart', from: { pid: first.child.pid } });
    const [run] = runsOf(ws.db, dir);
    // the restarted agent resumed where the signal file said: no iteration lost or repeated
    expect(run).toMatchObject({ outcome: 'complete', iterations: 6, restarts: 1 });
    expect(before.agent_pid).not.toBeNull();
    expect(() => process.kill(before.agent_pid!, 0)).toThrow();
  });
});

describe('refusals', () => {
  it('refuses a missing agent program before anything is written', async () => {
    ws = makeWorkspace();
    const dir = ws.module('nobody');
    const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, '--agent', 'definitely-not-installed-agent {taskDir}']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^autodeck: agent program "definitely-not-installed-agent" is not installed.*--agent/); // the prefix once
    expect(loopRow(ws.db, dir)).toBeUndefined();
    expect(eventsOf(ws.db, dir)).toEqual([]);
  });

  it.each([
    ['an out-of-range setting', ['--max-iterations', '0'], /--max-iterations: 0 is out of range/],
    ['a non-numeric timeout', ['--timeout', 'soon'], /--timeout/],
    ['an unknown flag', ['--bogus'], /bogus/],
    ['a shell operator in the agent', ['--agent', 'node x | tee log'], /operator/],
    ['a backend that does not exist', ['--backend', 'screen'], /--backend/],
  ])('exits 2 on %s with one line', async (_, flags, message) => {
    ws = makeWorkspace();
    const dir = ws.module('m');
    const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(loopRow(ws.db, dir)).toBeUndefined();
  });

  it('refuses a draft without a target and a cancelled module', async () => {
    ws = makeWorkspace();
    const draft = ws.module('draft', { status: 'draft', target: '# Target\n\n## Goal\n' });
    const cancelled = ws.module('cancelled', { status: 'cancelled' });
    const a = await runCli(ws, ['run', draft, ...runFlags(ws)]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/fill \.target\.md first/);
    const b = await runCli(ws, ['run', cancelled, ...runFlags(ws)]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/cancelled/);
  });

  it('reads settings from .autodeck.json and names a bad one', async () => {
    ws = makeWorkspace();
    const dir = ws.module('cfg', { scenario: { stepSeconds: 0.05, steps: 20 } });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(ws.dir, '.autodeck.json'), JSON.stringify({ maxIterations: 2, agent: SIM_AGENT }));
    const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root]);
    expect(r.code).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'max_iterations' });
    writeFileSync(join(ws.dir, '.autodeck.json'), '{"maxIterations": "lots"}');
    const bad = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/maxIterations in .*\.autodeck\.json/);
  });
});
