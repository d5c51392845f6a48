import { afterEach, describe, expect, it } from 'vitest';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, runFlags } from '../helpers/cli.js';
import { eventsOf, loopRow, runsOf } from '../helpers/db.js';

// `autodeck run` on a module whose loop failed ("manual intervention required"): never
// silently. The real CLI from dist/, the simulated agent, a real SQLite file.

let ws: Workspace;
afterEach(() => ws?.cleanup());

describe('autodeck run on a failed loop', () => {
  it('says so on stderr and in the log, and --refuse-failed refuses with exit 3', async () => {
    ws = makeWorkspace();
    const dir = ws.module('broken', { scenario: { stepSeconds: 0.02, crash: { atIteration: 1, exitCode: 3, times: 1 } } });
    const first = await runCli(ws, ['run', dir, ...runFlags(ws, ['--restart-limit', '0'])]);
    expect(first.code).toBe(1);
    expect(loopRow(ws.db, dir)).toMatchObject({ status: 'failed' });

    const refused = await runCli(ws, ['run', dir, '--refuse-failed', ...runFlags(ws)]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/broken: the last loop on this module failed \(.*exceeded restart limit.*\) and needs manual intervention; not started/);
    expect(loopRow(ws.db, dir)).toMatchObject({ status: 'failed' }); // untouched, still waiting for a person
    expect(eventsOf(ws.db, dir, 'started')).toHaveLength(1);

    const again = await runCli(ws, ['run', dir, '--json', ...runFlags(ws)]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/autodeck: broken: the last loop on this module FAILED \(.*exceeded restart limit.*\); starting a new one clears that/);
    const started = eventsOf(ws.db, dir, 'started');
    expect(started).toHaveLength(2);
    expect(started[0]!.detail.replacedFailed).toBeUndefined();
    expect(started[1]!.detail.replacedFailed).toMatchObject({ why: expect.stringMatching(/exceeded restart limit/) });
    expect(runsOf(ws.db, dir).map((r) => r.outcome)).toEqual(['failed', 'complete']);
  });
});
