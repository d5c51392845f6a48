import { afterEach, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_MODULES } from '../../src/demo/workspace.js';
import { runCli } from '../helpers/cli.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';

// `autodeck demo` without a terminal (as in CI): real loops of the simulated agent on the
// demo workspace, headless. Each module must end the way the README says, by the route
// it describes (a restart, a recovered stall, a quota wait), checked in the demo's own
// database through `status --json` and `log --json`.

let ws: Workspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

interface Recent { taskName: string; outcome: string; iterations: number }
interface Logged { kind: string; taskDir: string; detail: Record<string, unknown> }

it('runs every demo module to the end its scenario describes', async () => {
  ws = makeWorkspace();
  // The demo makes its throwaway workspace under TMPDIR: inside ours, removed with it.
  const demo = await runCli(ws, ['demo'], { env: { TMPDIR: ws.dir } });
  expect(demo.code, demo.stderr).toBe(0);
  const workspace = /^autodeck demo: workspace (.+)$/m.exec(demo.stderr)?.[1];
  expect(workspace, demo.stderr).toMatch(new RegExp(`^${ws.dir}/autodeck-demo-`));
  for (const m of DEMO_MODULES) expect(demo.stderr).toContain(`  ${m.name.padEnd(20)} ${m.shows}`);
  const db = `${workspace}/state.db`;
  expect(demo.stderr).toContain(`status --db ${JSON.stringify(db)}`);

  const status = await runCli(ws, ['status', '--json', '--db', db]);
  expect(status.code, status.stderr).toBe(0);
  const { loops, recent } = JSON.parse(status.stdout) as { loops: unknown[]; recent: Recent[] };
  expect(loops).toEqual([]);
  const outcome = Object.fromEntries(recent.map((r) => [r.taskName, r.outcome]));
  expect(outcome).toEqual({
    'add-login-page': 'complete',
    'fix-flaky-tests': 'complete',
    'migrate-database': 'complete',
    'rewrite-everything': 'max_iterations',
    'upgrade-framework': 'blocked',
    'clean-old-branches': 'complete',
    'translate-docs': 'complete',
  });
  // each run spent what its simulated agent's transcript says, read as Claude Code's
  for (const r of recent as (Recent & { tokens: number | null; costUsd: number | null })[]) {
    expect(r.tokens, r.taskName).toBeGreaterThan(0);
    expect(r.costUsd, r.taskName).toBeGreaterThan(0);
  }
  // and its transcripts stayed in the demo's workspace: the person's home has no ~/.claude
  expect(existsSync(join(ws.dir, 'home', '.claude'))).toBe(false);
  expect(readdirSync(join(workspace!, 'home', '.claude', 'projects')).length).toBeGreaterThan(0);
  const budget = recent.find((r) => r.taskName === 'rewrite-everything')!.iterations;
  expect(budget === 5 || budget === 6, `rewrite-everything ended after ${budget} iterations`).toBe(true);

  const log = await runCli(ws, ['log', '--json', '--last', '1000', '--db', db]);
  expect(log.code, log.stderr).toBe(0);
  const events = log.stdout.trim().split('\n').map((l) => JSON.parse(l) as Logged);
  const kinds = (name: string): string[] => events.filter((e) => e.taskDir.endsWith(`/${name}`)).map((e) => e.kind);
  expect(kinds('migrate-database')).toContain('restart');
  expect(kinds('clean-old-branches')).toEqual(expect.arrayContaining(['stall', 'recovery']));
  expect(kinds('translate-docs')).toEqual(expect.arrayContaining(['quota_wait', 'quota_resume']));
  expect(kinds('rewrite-everything')).toContain('stop_requested');
  for (const clean of ['add-login-page', 'fix-flaky-tests', 'upgrade-framework']) {
    expect(kinds(clean), clean).not.toContain('restart');
    expect(kinds(clean), clean).not.toContain('stall');
  }
}, 120_000);
