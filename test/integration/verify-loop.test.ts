import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { killLeftovers, runCli, runFlags, startCli, type CliRun } from '../helpers/cli.js';
import { eventsOf, loopRow, readDb, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';

// The verify before `complete`, end to end: the real CLI, the simulated agent in a real
// PTY (staying at its prompt after its loop, as an interactive agent does, and going back
// to work on what it is told), real verify processes, a real SQLite file.

let ws: Workspace;
const children: CliRun[] = [];
afterEach(async () => {
  await killLeftovers(children);
  ws?.cleanup();
});

/** Fails until it has run `passAt` times: prints which run broke, exits 1. The counter lives outside the module. */
const COUNTING_VERIFY = 'n=$(cat "$VERIFY_COUNTER" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$VERIFY_COUNTER"; '
  + 'if [ "$n" -lt "$VERIFY_PASS_AT" ]; then printf "\\033[31mFAIL\\033[0m test %s broke\\n" "$n"; echo "expected 3, got 4" >&2; exit 1; fi; echo "all $n good"';

const interactive = { stepSeconds: 0.05, exitAtStop: false, resumeOnInput: true, heardFile: 'heard.txt' };

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a verify before complete', () => {
  it('fails twice then passes: the agent is told each failure, goes back to work, and the history shows three verifies', async () => {
    ws = makeWorkspace();
    const dir = ws.module('checked', { status: 'planning', scenario: interactive });
    const env = { VERIFY_COUNTER: join(ws.dir, 'counter'), VERIFY_PASS_AT: '3' };
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--verify', COUNTING_VERIFY, '--max-iterations', '50'])], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', forced: 0 });

    // what the agent got at its prompt: one line per failure, escapes removed, the output's end
    const heard = readFileSync(join(dir, 'heard.txt'), 'utf8').trim().split('\n');
    expect(heard).toHaveLength(2);
    expect(heard[0]).toContain('its verify command failed (1 of 3 allowed failures; 2 left)');
    expect(heard[0]).toContain('FAIL test 1 broke ⏎ expected 3, got 4');
    expect(heard[1]).toContain('FAIL test 2 broke');
    expect(heard.join('\n')).not.toContain('\x1b');

    const verifies = readDb(ws.db, (db) => db.prepare('SELECT attempt, passed, exit_code, tail, duration_ms FROM verifies WHERE task_dir = ? ORDER BY id').all(dir)) as
      { attempt: number; passed: number; exit_code: number; tail: string; duration_ms: number }[];
    expect(verifies.map((v) => [v.attempt, v.passed, v.exit_code])).toEqual([[1, 0, 1], [2, 0, 1], [3, 1, 0]]);
    expect(verifies[2]!.tail).toBe('all 3 good');
    expect(verifies[0]!.tail).toBe('FAIL test 1 broke\nexpected 3, got 4');

    const kinds = eventsOf(ws.db, dir).map((e) => e.kind).filter((k) => k.startsWith('verify_'));
    expect(kinds).toEqual([
      'verify_started', 'verify_failed', 'verify_feedback', 'verify_started', 'verify_failed', 'verify_feedback', 'verify_started', 'verify_passed',
    ]);
    // the loop went on after each failure: three (stop) signals, the iteration grew past the first report
    const stops = eventsOf(ws.db, dir, 'signal').filter((e) => e.detail.next === '(stop)');
    expect(stops).toHaveLength(3);
    expect(Number(stops[2]!.detail.iteration)).toBeGreaterThan(Number(stops[0]!.detail.iteration));

    const history = await runCli(ws, ['history', dir, '--json', '--db', ws.db]);
    const run = (JSON.parse(history.stdout) as { runs: { outcome: string; verifies: { attempt: number; passed: boolean; tail: string; durationMs: number }[] }[] }).runs[0]!;
    expect(run.outcome).toBe('complete');
    expect(run.verifies.map((v) => [v.attempt, v.passed])).toEqual([[1, false], [2, false], [3, true]]);
    expect(run.verifies[2]!.tail).toBe('all 3 good');
    const text = await runCli(ws, ['history', dir, '--db', ws.db]);
    expect(text.stdout).toContain('verify: 3 runs, passed at the 3rd');
  });

  it('verifyAttempts failures in a row end the loop verify_failed; the agent is sent away', async () => {
    ws = makeWorkspace();
    const dir = ws.module('never', { status: 'planning', scenario: interactive });
    const env = { VERIFY_COUNTER: join(ws.dir, 'counter'), VERIFY_PASS_AT: '99' };
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--verify', COUNTING_VERIFY, '--verify-attempts', '2', '--max-iterations', '50'])], { env });
    expect(r.code).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'verify_failed', forced: 0 });
    expect(eventsOf(ws.db, dir, 'verify_failed').map((e) => [e.detail.failures, e.detail.final])).toEqual([[1, false], [2, true]]);
    expect(readFileSync(join(dir, 'heard.txt'), 'utf8').trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/never: verify_failed/);
  });

  it('a verify that hangs is killed at its timeout with its children, and counts as a failure', async () => {
    ws = makeWorkspace();
    const dir = ws.module('hangs', { status: 'planning', scenario: interactive });
    const pidFile = join(ws.dir, 'verify.pid');
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, [
      '--verify', 'sleep 600 & echo $! > "$PID_FILE"; echo waiting; wait', '--verify-timeout', '0.03', '--verify-attempts', '1',
    ])], { env: { PID_FILE: pidFile } });
    expect(r.code).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'verify_failed' });
    const failed = eventsOf(ws.db, dir, 'verify_failed')[0]!.detail;
    expect(failed).toMatchObject({ timedOut: true, how: 'did not finish within 2 s and was killed', tail: 'waiting' });
    expect(Number(failed.durationMs)).toBeGreaterThanOrEqual(1800);
    const sleeper = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !alive(sleeper), 'the verify\'s child gone', 10_000);
  });

  it('a supervisor killed while verifying: the adopter ends the verify it left and runs it again', async () => {
    ws = makeWorkspace();
    const dir = ws.module('adopted', { status: 'complete', scenario: { stepSeconds: 0.05 } }); // one step, then the agent exits
    const pids = join(ws.dir, 'verify.pids');
    // the first verify hangs (its owner dies meanwhile), the second passes
    const verify = 'echo $$ >> "$PIDS"; if [ "$(wc -l < "$PIDS")" -lt 2 ]; then sleep 600; fi; echo verified';
    const flags = runFlags(ws, ['--verify', verify]);
    const first = startCli(ws, ['run', dir, ...flags], { env: { PIDS: pids } });
    children.push(first);
    await waitFor(() => loopRow(ws.db, dir)?.status === 'verifying' && existsSync(pids), 'the first verify under way');
    first.child.kill('SIGKILL');
    await first.exited;
    const orphan = Number(readFileSync(pids, 'utf8').trim());
    expect(alive(orphan)).toBe(true); // its own process group: it outlived its owner

    const second = await runCli(ws, ['run', dir, ...flags], { env: { PIDS: pids } });
    expect(second.code, second.stderr).toBe(0);
    await waitFor(() => !alive(orphan), 'the orphaned verify ended', 10_000);
    expect(runsOf(ws.db, dir)).toHaveLength(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
    expect(eventsOf(ws.db, dir, 'verify_started')).toHaveLength(2);
    expect(eventsOf(ws.db, dir, 'verify_passed')[0]!.detail).toMatchObject({ attempt: 1, tail: 'verified' });
    // no new agent was needed: the verify passed
    expect(eventsOf(ws.db, dir, 'restart')).toEqual([]);
  }, 120_000);

  it('only an end that would be complete is verified: a blocked loop ends blocked without one', async () => {
    ws = makeWorkspace();
    const dir = ws.module('stuck', { status: 'planning', scenario: { stepSeconds: 0.05, results: { 'check@post-plan': ['BLOCKED'] } } });
    const marker = join(ws.dir, 'verified');
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--verify', `touch "${marker}"`])]);
    expect(r.code).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'blocked' });
    expect(existsSync(marker)).toBe(false);
    expect(eventsOf(ws.db, dir, 'verify_started')).toEqual([]);
  });

  it("a module's .index.json verify is read at the start; a change the agent makes during the loop does not count", async () => {
    ws = makeWorkspace();
    const dir = ws.module('own', { status: 'complete', scenario: { stepSeconds: 1 } }); // one step: report
    writeFileSync(join(dir, '.index.json'), JSON.stringify({ status: 'complete', verify: ['sh', '-c', 'echo from-index; exit 1'] }));
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--verify-attempts', '1'])], { env: {} });
    expect(r.code).toBe(1);
    expect(eventsOf(ws.db, dir, 'verify_started')[0]!.detail).toMatchObject({ command: 'sh -c "echo from-index; exit 1"' });
    expect(eventsOf(ws.db, dir, 'verify_failed')[0]!.detail).toMatchObject({ tail: 'from-index' });
    // a flag wins over the module's own
    const again = await runCli(ws, ['run', dir, ...runFlags(ws, ['--verify', 'echo from-flag'])]);
    expect(again.code, again.stderr).toBe(0);
    expect(eventsOf(ws.db, dir, 'verify_passed').at(-1)!.detail).toMatchObject({ tail: 'from-flag' });
    expect(loopRow(ws.db, dir)).toBeUndefined();
  });
});
