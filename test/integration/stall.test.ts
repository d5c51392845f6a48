import { afterEach, describe, expect, it } from 'vitest';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags } from '../helpers/cli.js';
import { eventsOf, runsOf } from '../helpers/db.js';

// Stall detection and recovery with the simulated agent in real PTYs:
// short heartbeats and thresholds, waits for the loop's end, no timed assertions.

let ws: Workspace;
afterEach(() => ws?.cleanup());

const fast = ['--heartbeat', '0.2', '--stall-threshold', '2'];

describe('stall recovery', () => {
  it('answers a yes/no prompt after the stall threshold and the loop goes on', async () => {
    ws = makeWorkspace();
    const dir = ws.module('asks', { scenario: { stepSeconds: 0.05, prompt: { atIteration: 2, text: 'Overwrite the config? (y/n)' } } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, fast)]);
    expect(r.code, r.stderr).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', iterations: 6, recoveries: 1 });
    expect(eventsOf(ws.db, dir, 'recovery').map((e) => e.detail)).toEqual([expect.objectContaining({ kind: 'yes_no_prompt', keys: 'y \\r' })]);
  });

  it('types the continuation message into an agent idle at its prompt (silent continue)', async () => {
    ws = makeWorkspace();
    const dir = ws.module('idles', { scenario: { stepSeconds: 0.05, idle: { atIteration: 3, times: 2 } } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, fast)]);
    expect(r.code, r.stderr).toBe(0);
    const recoveries = eventsOf(ws.db, dir, 'recovery').map((e) => e.detail);
    expect(recoveries).toHaveLength(2);
    expect(recoveries[0]).toMatchObject({ kind: 'idle', keys: 'continuation message + Enter' });
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', recoveries: 2 });
  });

  it('an unrecognised hang ends in stall_limit, sending no keys', async () => {
    ws = makeWorkspace();
    const dir = ws.module('hangs', { scenario: { stepSeconds: 0.05, hang: { atIteration: 2, seconds: 120 } } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, [...fast, '--recovery-per-iteration', '2', '--grace', '1'])]);
    expect(r.code).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'stall_limit', stop_reason: 'stall_limit' });
    expect(eventsOf(ws.db, dir, 'stall_unrecognized')).toHaveLength(2);
    expect(eventsOf(ws.db, dir, 'recovery')).toEqual([]);
    expect(eventsOf(ws.db, dir, 'stop_requested')[0]!.detail).toMatchObject({ reason: 'stall_limit' });
  });

  it('a step timeout counts as a stall even before the screen looks stuck', async () => {
    ws = makeWorkspace();
    const dir = ws.module('slowstep', { scenario: { stepSeconds: 0.05, hang: { atIteration: 2, seconds: 120 } } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--heartbeat', '0.2', '--stall-threshold', '1000', '--step-timeout', '0.02',
      '--recovery-per-iteration', '1', '--grace', '1'])]);
    expect(r.code).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'stall_limit' });
    expect(eventsOf(ws.db, dir, 'stall_unrecognized')[0]!.detail).toMatchObject({ stepTimeout: true });
  });

  it('stops a reasoning loop read from the transcript', async () => {
    ws = makeWorkspace();
    const dir = ws.module('loops', { scenario: { stepSeconds: 0.1, transcript: true, repeat: { atIteration: 3, text: 'Let me check the tests again.', times: 3 }, hang: { atIteration: 4, seconds: 60 } } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--heartbeat', '0.2', '--agent-profile', 'claude', '--grace', '1'])]);
    expect(r.code).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'reasoning_loop' });
    expect(eventsOf(ws.db, dir, 'stall').some((e) => e.detail.kind === 'reasoning_loop')).toBe(true);
  });
});

describe('quota wait', () => {
  it('pauses the timeout and resumes after the reset time with the continuation message', async () => {
    ws = makeWorkspace();
    // the epoch form: reset 52 s ago, plus the 60 s margin, is about 8 s from now
    const dir = ws.module('limited', { scenario: { stepSeconds: 0.2, quota: { atIteration: 2, message: 'Claude AI usage limit reached|{epoch-52}', seconds: 600 } } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--heartbeat', '0.2', '--timeout', '0.1'])]);
    expect(r.code, r.stderr).toBe(0);
    const [run] = runsOf(ws.db, dir) as (ReturnType<typeof runsOf>[number] & { quota_wait_ms: number })[];
    expect(run).toMatchObject({ outcome: 'complete', iterations: 6 });
    // the wall time passed the 6 s timeout; the active time did not
    expect(run!.quota_wait_ms).toBeGreaterThan(6000);
    expect(run!.active_ms).toBeLessThan(6000);
    expect(eventsOf(ws.db, dir, 'quota_wait')[0]!.detail.resetAt).toEqual(expect.any(String));
    expect(eventsOf(ws.db, dir, 'quota_resume')[0]!.detail).toMatchObject({ why: expect.stringMatching(/reset time passed|signal/) });
  });

  it('without a reset time, probes every quotaProbeMinutes until the agent goes on', async () => {
    ws = makeWorkspace();
    const dir = ws.module('probed', { scenario: { stepSeconds: 0.1, quota: { atIteration: 2, message: 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error"}}', seconds: 600 } } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--heartbeat', '0.2', '--quota-probe', '0.03'])]);
    expect(r.code, r.stderr).toBe(0);
    const waits = eventsOf(ws.db, dir, 'quota_wait').map((e) => e.detail);
    expect(waits[0]).toMatchObject({ resetAt: null });
    expect(waits.some((w) => w.probe === true)).toBe(true);
    expect(eventsOf(ws.db, dir, 'quota_resume')).toHaveLength(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
  });
});
