import { afterEach, describe, expect, it } from 'vitest';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags, startCli } from '../helpers/cli.js';
import { eventsOf, loopRow, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';

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
    // the run keeps what was spent: every message of the transcript, at the sim's model price (3/15, reads 0.3 per MTok)
    const messages = (run!.tokens as number) / 6200;
    expect(Number.isInteger(messages) && messages >= 4).toBe(true);
    expect(run!.cost_usd).toBeCloseTo(messages * 0.0075, 10);
    const history = await runCli(ws, ['history', dir, '--json', '--db', ws.db, '--root', ws.root]);
    expect(JSON.parse(history.stdout).runs[0]).toMatchObject({ outcome: 'budget', tokens: run!.tokens, spend: '' });
  });

  it('status --json shows a live loop\'s tokens and cost as they grow', async () => {
    ws = makeWorkspace();
    const dir = ws.module('live', { scenario: { stepSeconds: 0.2, steps: 100, transcript: true } });
    const loop = startCli(ws, ['run', dir, ...runFlags(ws, ['--agent-profile', 'claude', '--max-iterations', '1000'])]);
    await waitFor(() => (loopRow(ws!.db, dir)?.iteration_count ?? 0) >= 2, 'two iterations');
    const status = JSON.parse((await runCli(ws, ['status', '--json', '--db', ws.db])).stdout) as { loops: Record<string, unknown>[] };
    const tokens = status.loops[0]!.tokens as number;
    expect(tokens).toBeGreaterThan(0);
    expect(tokens % 6200).toBe(0);
    expect(status.loops[0]).toMatchObject({ costUsd: expect.any(Number), spend: '' });
    expect((await runCli(ws, ['stop', dir, '--db', ws.db])).code).toBe(0);
    expect(await loop.exited).toBe(1);
  });

  it('says "no transcript" for an agent without one, never 0', async () => {
    ws = makeWorkspace();
    const dir = ws.module('plain', { scenario: { stepSeconds: 0.05 } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--max-tokens', '1'])]);
    expect(r.code, r.stderr).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', tokens: null, cost_usd: null });
    const history = await runCli(ws, ['history', dir, '--db', ws.db, '--root', ws.root]);
    expect(history.stdout).toMatch(/complete .* no transcript$/m);
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
