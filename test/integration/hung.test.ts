import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags } from '../helpers/cli.js';
import { eventsOf, runsOf } from '../helpers/db.js';

// The hung-agent watchdog with the simulated agent in a real PTY: at iteration 2 it hangs while
// drawing (a spinner that ticks every 0.25 s, input ignored), so the screen never freezes
// and the stall count never climbs. The hung watchdog sees the transcript stand still while
// the agent shows busy, and climbs its ladder: Esc, the continuation message, then a restart
// with `--resume <session id>` from the transcript; the restarted agent goes on and the loop
// completes. Short limits, no timed assertions.

let ws: Workspace;
afterEach(() => ws?.cleanup());

describe('a hung agent that keeps drawing', () => {
  it('is interrupted, nudged, then restarted with --resume, and the loop completes', async () => {
    ws = makeWorkspace();
    const dir = ws.module('spins', { scenario: { stepSeconds: 0.05, transcript: true, envFile: 'agent-env.json', spin: { atIteration: 2, seconds: 600, times: 1 } } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--heartbeat', '0.3', '--agent-profile', 'claude', '--hung-after', '0.05', '--hung-ladder', '0.05', '--grace', '1'])]);
    expect(r.code, r.stderr).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', iterations: 6 });

    const hung = eventsOf(ws.db, dir, 'stall').map((e) => e.detail).filter((d) => d.kind === 'hung');
    expect(hung.map((d) => d.rung)).toEqual(['interrupt', 'continue', 'restart']);
    for (const d of hung) expect(['transcript', 'process']).toContain(d.source);
    const recoveries = eventsOf(ws.db, dir, 'recovery').map((e) => e.detail).filter((d) => d.kind === 'hung');
    expect(recoveries.map((d) => d.keys)).toEqual(['Esc', 'continuation message + Enter', 'restart']);
    // the restart resumed the session of the transcript the hung agent wrote
    const resumed = recoveries[2]!.resume as string;
    expect(resumed).toMatch(/^[0-9a-f-]{36}$/);
    expect(eventsOf(ws.db, dir, 'restart').map((e) => e.detail)).toEqual([expect.objectContaining({ why: 'hung', resume: resumed, argv: ['--resume', resumed] })]);
    // and the agent really was started again with it
    const env = JSON.parse(readFileSync(join(dir, 'agent-env.json'), 'utf8')) as { argv: string[] };
    expect(env.argv.slice(-2)).toEqual(['--resume', resumed]);
  }, 60_000);
});
