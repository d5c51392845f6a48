import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentLeftovers } from '../../src/supervisor/leftovers.js';
import { codexArgv } from '../../src/supervisor/loopStart.js';
import { processTree } from '../../src/agents/procFiles.js';
import { waitFor } from '../helpers/wait.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('codexArgv', () => {
  it('adds --no-daemon after the program, unless the command says otherwise', () => {
    expect(codexArgv(['/usr/bin/codex', 'do the task'])).toEqual(['/usr/bin/codex', '--no-daemon', 'do the task']);
    expect(codexArgv(['/usr/bin/codex', '--no-daemon', 'x'])).toEqual(['/usr/bin/codex', '--no-daemon', 'x']);
    expect(codexArgv(['/usr/bin/codex', '--remote', 'unix://'])).toEqual(['/usr/bin/codex', '--remote', 'unix://']);
    expect(codexArgv(['/usr/bin/codex', '--remote=ws://h:1'])).toEqual(['/usr/bin/codex', '--remote=ws://h:1']);
    // a wrapper read as the codex profile is not Codex itself
    expect(codexArgv(['/usr/bin/node', 'sim.js'])).toEqual(['/usr/bin/node', 'sim.js']);
  });
});

describe.skipIf(process.platform !== 'linux')('processes an agent leaves behind', () => {
  it('a helper that detached itself into a session of its own ends with the agent, its group too', async () => {
    // the "agent" starts a daemon (setsid: its own session and group, as Codex's app-server) that starts a child, then waits
    const script = `
      const { spawn } = require('node:child_process');
      const d = spawn(process.execPath, ['-e', "require('node:child_process').spawn('sleep', ['300'], { stdio: 'ignore' }); setInterval(() => {}, 1000)"], { detached: true, stdio: 'ignore' });
      d.unref();
      console.log(d.pid);
      setInterval(() => {}, 1000);`;
    const agent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    agent.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const daemon = Number(await waitFor(() => /^\d+/.exec(out)?.[0], 'the daemon pid', 10_000));
    const grandchild = await waitFor(() => processTree(daemon).find((p) => p !== daemon), 'the daemon child', 10_000);
    const leftovers = new AgentLeftovers();
    leftovers.note(agent.pid!);
    agent.kill('SIGKILL');
    await waitFor(() => agent.exitCode !== null || agent.signalCode !== null, 'the agent to exit', 10_000);
    // re-parented, still running: the agent's tree no longer has it, the memory does
    expect(alive(daemon) && alive(grandchild)).toBe(true);
    expect(processTree(agent.pid!)).toEqual([]);
    const ended = leftovers.end();
    expect(ended.join('\n')).toContain('setInterval');
    await waitFor(() => !alive(daemon) && !alive(grandchild), 'the daemon and its child to end', 10_000);
    expect(leftovers.anyAlive).toBe(false);
    expect(leftovers.end()).toEqual([]);
  });

  it('a pid given to another process since is left alone; a group leader is ended with its group', () => {
    const proc = mkdtempSync(join(tmpdir(), 'autodeck-proc-'));
    try {
      // pid 100 (the agent) started 200 (a group leader, started at tick 5000) and 300 (in the agent's group)
      const stat = (pid: number, pgid: number, start: number) => `${pid} (x) S 1 ${pgid} ${pgid} 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 ${start} 0 0`;
      const put = (pid: number, pgid: number, start: number, children = '') => {
        mkdirSync(join(proc, String(pid), 'task', String(pid)), { recursive: true });
        writeFileSync(join(proc, String(pid), 'stat'), stat(pid, pgid, start));
        writeFileSync(join(proc, String(pid), 'cmdline'), `prog-${pid}\0--flag\0`);
        writeFileSync(join(proc, String(pid), 'task', String(pid), 'children'), children);
      };
      put(100, 100, 4000, '200 300');
      put(200, 200, 5000);
      put(300, 100, 5100);
      const kills: [number, string][] = [];
      const leftovers = new AgentLeftovers(proc, (pid, signal) => { kills.push([pid, signal]); });
      leftovers.note(100);
      // the agent exits; 300's pid now belongs to another process (another start time)
      rmSync(join(proc, '100'), { recursive: true });
      put(300, 300, 9999);
      expect(leftovers.end()).toEqual(['prog-200 --flag']);
      expect(kills).toEqual([[-200, 'SIGTERM']]);
    } finally {
      rmSync(proc, { recursive: true, force: true });
    }
  });
});
