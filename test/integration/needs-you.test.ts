import { afterEach, describe, expect, it } from 'vitest';
import { hostname } from 'node:os';
import { Store } from '../../src/store/index.js';
import type { LoopStatus } from '../../src/store/loops.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli } from '../helpers/cli.js';

// `autodeck status --format tmux` and `status --json` over a real state database (the built CLI).

let ws: Workspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

function plantLoops(w: Workspace): void {
  const store = Store.open(w.db);
  try {
    const now = new Date().toISOString();
    const add = (name: string, status: LoopStatus, patch: Record<string, unknown> = {}): void => {
      const dir = w.module(name);
      store.loops.insert({
        session: `auto-${name}`, taskDir: dir, taskName: name, root: w.root, maxIterations: 20, timeoutMinutes: 60, startedAt: now,
        backend: 'pty', ownerPid: process.pid, ownerHost: hostname(), ownerHeartbeatAt: now, agentArgv: ['claude'], settings: {}, status,
      });
      if (Object.keys(patch).length > 0) store.loops.update(`auto-${name}`, patch);
    };
    add('one', 'running');
    add('two', 'stalled');
    add('three', 'running');
    add('asks', 'running', { waitingFor: { reason: 'permission', text: 'Bash: git push --force — Do you want to proceed?\u001b[2J', since: now } });
    add('broke', 'failed', { stopReason: 'the agent exited 3 times in a row' });
  } finally {
    store.close();
  }
}

describe('needs you in status', () => {
  it('--format tmux prints the short segment; nothing before any database exists', async () => {
    ws = makeWorkspace('autodeck-needsyou-');
    const empty = await runCli(ws, ['status', '--format', 'tmux', '--db', ws.db]);
    expect(empty).toMatchObject({ code: 0, stdout: '\n' });
    plantLoops(ws);
    const r = await runCli(ws, ['status', '--format', 'tmux', '--db', ws.db]);
    expect(r.stderr).toBe('');
    expect(r).toMatchObject({ code: 0, stdout: '▶3 ?1 ✗1\n' });
    // the database named by the environment, as every other command reads it
    expect((await runCli(ws, ['status', '--format=tmux'], { env: { AUTODECK_DB: ws.db } })).stdout).toBe('▶3 ?1 ✗1\n');
  });

  it('--json carries needsYou (printable); text output names it; a bad --format is a usage error', async () => {
    ws = makeWorkspace('autodeck-needsyou-');
    plantLoops(ws);
    const r = await runCli(ws, ['status', '--json', '--db', ws.db]);
    expect(r.code, r.stderr).toBe(0);
    const loops = (JSON.parse(r.stdout) as { loops: { taskName: string; needsYou: unknown }[] }).loops;
    const by = Object.fromEntries(loops.map((l) => [l.taskName, l.needsYou]));
    expect(by.asks).toMatchObject({ reason: 'permission', text: 'Bash: git push --force — Do you want to proceed?' });
    expect(by.broke).toEqual({ reason: 'failed', text: 'the agent exited 3 times in a row' });
    expect(by.one).toBeNull();
    const text = await runCli(ws, ['status', '--db', ws.db]);
    expect(text.stdout).toMatch(/^asks {2}needs you {2}/m);
    expect(text.stdout).toContain('  ? permission: Bash: git push --force');
    expect(text.stdout).not.toContain('\u001b');
    const bad = await runCli(ws, ['status', '--format', 'yaml', '--db', ws.db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('autodeck: --format must be one of text, json, tmux (got "yaml")');
  });
});
