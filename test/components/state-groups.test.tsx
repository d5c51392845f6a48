import { afterEach, describe, expect, it } from 'vitest';
import { renderApp, type Rendered } from '../helpers/renderApp.js';
import { FakeModel, loopRow, moduleRow } from '../helpers/fakeModel.js';
import { groupById, STATES, type StateDef } from '../../src/deck/states.js';
import type { DeckRow } from '../../src/deck/deck.js';
import type { LoopStatus } from '../../src/store/loops.js';
import type { Outcome } from '../../src/store/runs.js';
import type { LifecycleStatus } from '../../src/protocol/modules.js';
import type { HostIssueKind } from '../../src/hosts/issue.js';

// The dashboard drawn with modules in every state: each row's STATE reads as its group's
// glyph and its own word, and the header's counts add up to the modules.

let app: Rendered | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

const plain = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');
const ended = (outcome: string) => ({ id: 1, outcome: outcome as Outcome, endedAt: new Date(Date.now() - 60_000).toISOString(), iterations: 5, maxIterations: 20, forced: false });

/** A module in state `s`, the way the deck would hand it over. */
function rowIn(s: StateDef, name: string): DeckRow {
  const dir = `/ws/AiTasks/${name}`;
  switch (s.source) {
    // a loop last seen on a host that does not answer now
    case 'derived': if (s.id === 'stale') return moduleRow(name, { host: 'box', loop: loopRow(dir, { backend: 'tmux' }), staleFor: '3m' });
      return moduleRow(name, { loop: loopRow(dir, { waitingFor: { reason: 'permission', text: 'Bash: rm -rf build', since: '' } }) });
    case 'loop': return moduleRow(name, { loop: loopRow(dir, { status: s.id as LoopStatus, stopReason: s.id === 'failed' ? 'the agent exited 3 times' : '' }) });
    case 'outcome': return moduleRow(name, { lastRun: ended(s.id) });
    case 'lifecycle': return moduleRow(name, { lifecycle: s.id as LifecycleStatus });
    // a host's own row: no module
    case 'host': return moduleRow(name, { host: name, hostIssue: { kind: s.id as HostIssueKind, message: 'ssh: connect to host box port 22: Connection refused' } });
    // (Claude Code's own sessions are rows of their own: test/components/claude-rows.test.tsx)
    case 'claude': throw new Error('not a module state');
  }
}

/** The header's counts: `? 1 needs you  ▶ 3 running` -> [['?', 1, 'needs you'], ['▶', 3, 'running']]. */
function headerCounts(head: string): [string, number, string][] {
  // each host's part (`│ local ▶1 box ✗ no answer`) comes after the totals
  const counts = head.split(/ {2}/).slice(1).filter((c) => !c.startsWith('│'));
  return counts.map((c) => {
    const m = /^(\S) (\d+) (.+)$/.exec(c);
    if (!m) throw new Error(`not a count: ${JSON.stringify(c)} in ${head}`);
    return [m[1]!, Number(m[2]), m[3]!];
  });
}

async function draw(rows: DeckRow[], columns = 160): Promise<string[]> {
  app = renderApp({ model: new FakeModel(rows), columns, rows: 2 * rows.length + 16 }); // the detail pane takes about half
  const last = rows.at(-1)!.name;
  const frame = await app.waitForFrame((f) => f.includes(last), 'every row');
  return plain(frame).split('\n');
}

describe('the state groups on screen', () => {
  it('every state of the table: its group glyph and word in STATE, and counts that add up to the modules (a host\'s own row is none)', async () => {
    const rows = STATES.map((s, i) => rowIn(s, `m${String(i).padStart(2, '0')}-${s.source}`));
    // wide enough for the header's words with every group and each host's trouble after them
    const lines = await draw(rows, 260);
    const counts = headerCounts(lines[0]!);
    const modules = rows.filter((r) => !r.hostIssue).length;
    expect(modules).toBeLessThan(rows.length);
    expect(lines[0]).toContain(` · ${modules} modules  `);
    expect(counts.reduce((n, [, k]) => n + k, 0)).toBe(modules);
    STATES.forEach((s, i) => {
      const line = lines.slice(1).find((l) => l.includes(rows[i]!.name))!; // the header names each host
      expect(`${line} `, s.word).toContain(` ${groupById(s.group).glyph} ${s.word} `);
    });
  });

  it("the demo's states at 41 s: a blocked loop is failed, one at its iteration limit stopped, the counts add up to seven", async () => {
    const rows = [
      moduleRow('add-login-page', { loop: loopRow('/ws/AiTasks/add-login-page') }),
      moduleRow('fix-flaky-tests', { lastRun: ended('complete') }),
      moduleRow('migrate-database', { loop: loopRow('/ws/AiTasks/migrate-database') }),
      moduleRow('rewrite-everything', { lastRun: ended('max_iterations') }),
      moduleRow('upgrade-framework', { lastRun: ended('blocked') }),
      moduleRow('clean-old-branches', { loop: loopRow('/ws/AiTasks/clean-old-branches', { status: 'stalled' }) }),
      moduleRow('translate-docs', { loop: loopRow('/ws/AiTasks/translate-docs', { status: 'quota_wait', quotaWaitSince: new Date().toISOString() }) }),
    ];
    const lines = await draw(rows);
    expect(lines[0]).toMatch(/ · 7 modules {2}✗ 1 failed {2}‖ 2 waiting {2}▶ 2 running {2}■ 1 stopped {2}✓ 1 done$/);
    expect(headerCounts(lines[0]!).reduce((n, [, k]) => n + k, 0)).toBe(7);
    expect(lines.find((l) => l.includes('rewrite-everything'))).toContain('■ max iter');
    expect(lines.find((l) => l.includes('upgrade-framework'))).toContain('✗ blocked');
  });
});
