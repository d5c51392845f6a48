import { afterEach, describe, expect, it } from 'vitest';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags } from '../helpers/cli.js';
import { eventsOf, runsOf } from '../helpers/db.js';

// A loop stopped by its spending limit: the simulated agent writes a Claude Code-like
// transcript whose assistant messages carry usage (6,200 tokens each, src/sim/transcript.ts).

let ws: Workspace | undefined;
afterEach(() => ws?.cleanup());

describe('maxTokens', () => {
  it('stops the loop with the reason budget once the transcript shows that many tokens', async () => {
    ws = makeWorkspace();
    const dir = ws.module('spender', { scenario: { stepSeconds: 0.1, steps: 40, transcript: true } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--agent-profile', 'claude', '--max-tokens', '20000', '--grace', '2'])]);
    expect(r.code, r.stderr).toBe(1);
    const [run] = runsOf(ws.db, dir);
    expect(run).toMatchObject({ outcome: 'budget', stop_reason: 'budget' });
    const [budget] = eventsOf(ws.db, dir, 'budget');
    // stopped at the first signal past the limit: at least 20,000, less than one more iteration's worth beyond it
    expect(budget!.detail.tokens).toBeGreaterThanOrEqual(20000);
    expect((budget!.detail.tokens as number) % 6200).toBe(0);
    expect(budget!.detail).toMatchObject({ maxTokens: 20000, costUsd: expect.any(Number) });
    expect(r.stderr).toMatch(/spending limit reached/);
  });

  it('is off by default: the same loop runs to its end', async () => {
    ws = makeWorkspace();
    const dir = ws.module('free', { scenario: { stepSeconds: 0.05, transcript: true } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--agent-profile', 'claude'])]);
    expect(r.code, r.stderr).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
    expect(eventsOf(ws.db, dir, 'budget')).toEqual([]);
  });
});
