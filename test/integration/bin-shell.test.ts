import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { BIN, runFlags } from '../helpers/cli.js';
import { loopRow } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';

// The bin as npm links it: an executable started through its first line (sh), which sets
// glibc's malloc tunable for autodeck's own node and for nothing it starts.

let ws: Workspace;
afterEach(() => ws?.cleanup());

/** A process's environment as it was when it was exec'd (what glibc read). */
const startEnv = (pid: number): Map<string, string> =>
  new Map(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean).map((kv) => {
    const i = kv.indexOf('=');
    return [kv.slice(0, i), kv.slice(i + 1)] as [string, string];
  }));

/** Starts `run` through the executable bin; resolves with autodeck's and its agent's environments. */
async function envsOfRun(env: NodeJS.ProcessEnv): Promise<{ own: Map<string, string>; agent: Map<string, string> }> {
  const dir = ws.module('env', { status: 'planning', scenario: { stepSeconds: 0.5 } });
  const child = spawn(BIN, ['run', dir, ...runFlags(ws)], { cwd: ws.dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  try {
    const row = await waitFor(() => {
      const r = loopRow(ws.db, dir);
      return r?.agent_pid ? r : undefined;
    }, 'the agent to start');
    // sh execs node in place: the pid spawn() returned is autodeck's own
    const own = startEnv(child.pid!);
    const agent = startEnv(Number(row.agent_pid));
    const code = await exited;
    expect(code, err).toBe(0);
    return { own, agent };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

describe('the bin, started as an executable', () => {
  it('runs the CLI through its shell line', () => {
    const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;
    expect(execFileSync(BIN, ['--version'], { encoding: 'utf8' }).trim()).toBe(version);
  });

  it('gives its own node one malloc arena, and the agent the environment it was given', async () => {
    ws = makeWorkspace();
    const env = { ...ws.env };
    delete env.GLIBC_TUNABLES;
    const { own, agent } = await envsOfRun(env);
    expect(own.get('GLIBC_TUNABLES')).toBe('glibc.malloc.arena_max=1');
    expect(agent.has('GLIBC_TUNABLES')).toBe(false);
    expect(agent.has('AUTODECK_MALLOC_TUNED')).toBe(false);
  });

  it('leaves a GLIBC_TUNABLES of the user\'s own as it is, for itself and the agent', async () => {
    ws = makeWorkspace();
    const mine = 'glibc.malloc.tcache_count=0';
    const { own, agent } = await envsOfRun({ ...ws.env, GLIBC_TUNABLES: mine });
    expect(own.get('GLIBC_TUNABLES')).toBe(mine);
    expect(own.has('AUTODECK_MALLOC_TUNED')).toBe(false);
    expect(agent.get('GLIBC_TUNABLES')).toBe(mine);
  });
});
