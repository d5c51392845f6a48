import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags } from '../helpers/cli.js';
import { eventsOf, runsOf } from '../helpers/db.js';

// Stop-hook mode end to end: the supervisor runs a simulated interactive agent
// that completes one checklist task per turn and calls `autodeck hook stop` at the end of
// each; the hook blocks until every task is done, then allows, and the supervisor ends
// the idle agent.

let ws: Workspace;
afterEach(() => ws?.cleanup());

describe('a loop under the Stop hook', () => {
  it('is re-engaged until every task is done, then ends complete', async () => {
    ws = makeWorkspace();
    const dir = ws.module('checklist', { status: 'executing', scenario: { stepSeconds: 0.05, hookTurns: { maxTurns: 20 } } });
    writeFileSync(join(dir, '.checklist.json'), JSON.stringify([
      { id: 1, subject: 'write the parser', status: 'pending' },
      { id: 2, subject: 'write its tests', status: 'in_progress' },
      { id: 3, subject: 'document it', status: 'pending' },
    ]));
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--mode', 'hook', '--heartbeat', '0.3'])]);
    expect(r.code, r.stderr).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', iterations: 3, forced: 0 });
    const blocks = eventsOf(ws.db, dir, 'hook_block');
    expect(blocks).toHaveLength(2);
    expect(JSON.stringify(blocks[0]!.detail)).toMatch(/1\/3 tasks complete/);
    expect(eventsOf(ws.db, dir, 'hook_allow')).toHaveLength(1);
    const items = JSON.parse(readFileSync(join(dir, '.checklist.json'), 'utf8')) as { status: string }[];
    expect(items.every((i) => i.status === 'completed')).toBe(true);
    // the idle agent was ended by autodeck, not killed
    expect(eventsOf(ws.db, dir, 'agent_exit').map((e) => e.detail)).toContainEqual(expect.objectContaining({ action: 'exit command' }));
  });

  it('gives up after 10 turns without progress (stall_limit)', async () => {
    ws = makeWorkspace();
    const dir = ws.module('stuck', { status: 'executing', scenario: { stepSeconds: 0.02, hookTurns: { maxTurns: 30 } } });
    // nothing the agent can complete: every turn ends without progress
    writeFileSync(join(dir, '.plan.md'), '# Plan\n\n- [ ] something the agent never does\n');
    const r = await runCli(ws, ['run', dir, ...runFlags(ws, ['--mode', 'hook', '--heartbeat', '0.3', '--max-iterations', '100'])]);
    expect(r.code).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'stall_limit' });
  });
});
