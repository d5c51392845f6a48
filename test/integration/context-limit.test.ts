import { afterEach, describe, expect, it } from 'vitest';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags, startCli } from '../helpers/cli.js';
import { eventsOf, loopRow, readDb, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';

// Compactions and per-iteration spend with the simulated agent, which writes a Claude
// Code-like transcript: 6,200 tokens per step at claude-sonnet-4-5 (src/sim/transcript.ts),
// and `compact` writes compact_boundary entries the way Claude Code 2.1.197 does.

let ws: Workspace | undefined;
afterEach(() => ws?.cleanup());

const STEP_TOKENS = 6200;
const STEP_USD = 0.0075;

interface PerIteration { iteration: number; tokens: number | null; costUsd: number | null; compactions: number | null; partial: boolean; spend: string }

describe('compactions and context_limit', () => {
  it('three compactions in one iteration stop the loop with context_limit; history shows each iteration\'s spend', async () => {
    ws = makeWorkspace();
    const dir = ws.module('compacting', { scenario: { stepSeconds: 0.1, steps: 12, transcript: true, compact: { atIteration: 2, times: 3 } } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--agent-profile', 'claude', '--grace', '2'])]);
    expect(r.code, r.stderr).toBe(1);
    const [run] = runsOf(ws.db, dir);
    expect(run).toMatchObject({ outcome: 'context_limit', stop_reason: 'context_limit' });
    const [limit] = eventsOf(ws.db, dir, 'context_limit');
    expect(limit!.detail).toMatchObject({ compactions: 3, iteration: 2 });
    expect(r.stderr).toMatch(/context compacted 3 times in iteration 2/);
    const stored = readDb(ws.db, (db) => db.prepare('SELECT compactions FROM runs WHERE task_dir = ?').get(dir)) as { compactions: number };
    expect(stored.compactions).toBe(3);

    const history = JSON.parse((await runCli(ws, ['history', dir, '--json', '--iterations', '--db', ws.db, '--root', ws.root])).stdout) as { runs: { outcome: string; compactions: number; tokens: number; perIteration: PerIteration[] }[] };
    const h = history.runs[0]!;
    expect(h).toMatchObject({ outcome: 'context_limit', compactions: 3 });
    // the stop came with iteration 2's signal: one step each; the agent may have begun step 3
    // before the stop file came, and finishes it (signalled, or recorded unfinished at the end)
    const rows = h.perIteration.map((i) => [i.iteration, i.tokens, i.compactions]);
    expect(rows.slice(0, 2)).toEqual([[1, STEP_TOKENS, 0], [2, STEP_TOKENS, 3]]);
    expect(rows.slice(2)).toEqual(rows.length > 2 ? [[3, STEP_TOKENS, 0]] : []);
    expect(h.perIteration.slice(0, 2).every((i) => !i.partial)).toBe(true);
    for (const i of h.perIteration) expect(i.costUsd).toBeCloseTo(STEP_USD, 10);
    expect(h.perIteration.reduce((a, i) => a + i.tokens!, 0)).toBe(h.tokens);

    const human = await runCli(ws, ['history', dir, '--iterations', '--db', ws.db, '--root', ws.root]);
    expect(human.stdout).toMatch(/context_limit .*(12\.4|18\.6)k \$0\.0\d \(3 compactions\)$/m);
    expect(human.stdout).toContain('iterations: #1 6.2k $0.01, #2 6.2k $0.01 (3 compactions)');
  });

  it('an agent still busy after its third compaction is stopped at the next heartbeat, before it signals', async () => {
    ws = makeWorkspace();
    // iteration 2 compacts three times, then stays busy (a spinner) for a while before its signal
    const dir = ws.module('busy', { scenario: { stepSeconds: 0.1, steps: 12, transcript: true, compact: { atIteration: 2, times: 3 }, spin: { atIteration: 2, seconds: 4, times: 1 } } });
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--agent-profile', 'claude', '--grace', '10'])]);
    expect(r.code, r.stderr).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'context_limit' });
    const events = eventsOf(ws.db, dir);
    const limit = events.findIndex((e) => e.kind === 'context_limit');
    expect(events[limit]!.detail).toMatchObject({ compactions: 3, iteration: 2 });
    // decided while iteration 2 was under way: its signal came after
    const signal2 = events.findIndex((e) => e.kind === 'signal' && e.detail.iteration === 2);
    expect(limit).toBeGreaterThan(events.findIndex((e) => e.kind === 'signal' && e.detail.iteration === 1));
    if (signal2 >= 0) expect(limit).toBeLessThan(signal2);
  });

  it('compactions spread over iterations do not stop it; a live loop shows ctx % and compactions', async () => {
    ws = makeWorkspace();
    const dir = ws.module('spread', { scenario: { stepSeconds: 0.2, steps: 100, transcript: true, compact: { atIteration: 2, times: 2 } } });
    const loop = startCli(ws, ['run', dir, ...runFlags(ws, ['--agent-profile', 'claude', '--max-iterations', '1000'])]);
    await waitFor(() => (loopRow(ws!.db, dir)?.iteration_count ?? 0) >= 4, 'four iterations');
    const status = JSON.parse((await runCli(ws, ['status', '--json', '--iterations', '--db', ws.db])).stdout) as { loops: Record<string, unknown>[] };
    const l = status.loops[0]!;
    expect(l).toMatchObject({ compactions: 2, contextWindow: 200_000 });
    // the last request's input side (1,000 + 5,000 of claude-sonnet-4-5's 200k), or the compaction's 700 just after one
    expect([3, 0]).toContain(l.ctxPercent);
    const per = l.perIteration as PerIteration[];
    expect(per.length).toBeGreaterThanOrEqual(4);
    expect(per[1]).toMatchObject({ iteration: 2, tokens: STEP_TOKENS, compactions: 2, partial: false, spend: '' });
    expect(per.filter((i) => i.iteration !== 2).every((i) => i.compactions === 0)).toBe(true);
    expect((await runCli(ws, ['stop', dir, '--db', ws.db])).code).toBe(0);
    expect(await loop.exited).toBe(1);
    expect(eventsOf(ws.db, dir, 'context_limit')).toEqual([]);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'user_stop' });
  });

  it('an agent without a transcript: per-iteration figures say so, never 0', async () => {
    ws = makeWorkspace();
    const dir = ws.module('plain', { scenario: { stepSeconds: 0.05 } });
    expect((await runCli(ws, ['run', dir, ...runFlags(ws)])).code).toBe(0);
    const history = JSON.parse((await runCli(ws, ['history', dir, '--json', '--iterations', '--db', ws.db, '--root', ws.root])).stdout) as { runs: Record<string, unknown>[] };
    expect(history.runs[0]).toMatchObject({ tokens: null, costUsd: null, compactions: null, spend: 'no transcript', perIteration: [] });
    const human = await runCli(ws, ['history', dir, '--iterations', '--db', ws.db, '--root', ws.root]);
    expect(human.stdout).toContain('iterations: none recorded (no transcript)');
  });
});
