/**
 * What watching Claude Code's own sessions costs (docs/claude-sessions.md):
 * `npm run bench:claude` (after a build). Prints:
 *  - a tick's look with no Claude Code session folders (every second of every dashboard);
 *  - a tick's look with 20 running sessions and nothing changed (stats only, no call);
 *  - `claude agents --json --all` itself, the call a change costs, with the real binary
 *    when the test cache holds one (node_modules/.cache/autodeck-claude-code/<version>);
 *  - with that binary and a watch on the dashboard's one-second tick: how long a session
 *    appearing, changing its status and ending takes to reach the rows (the target: 3 s),
 *    and how many times Claude Code is asked over ten quiet ticks after that (the target: 0).
 * Exit 0; 1 when a change took longer than 3 s or a quiet tick asked; 2 when a measurement failed.
 */
import { execFileSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/index.js';
import { ClaudeWatch } from '../../src/claudeSessions/watch.js';
import { runProgram } from '../../src/claudeSessions/reader.js';
import { TICK_MS } from '../../src/supervisor/tick.js';
import { CLAUDE_CODE_NEWEST } from '../../src/agents/claudeVersion.js';
import { standIn } from './proc.js';

const dir = mkdtempSync(join(tmpdir(), 'autodeck-bench-claude-'));
const percentile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const us = (ms: number): string => `${(ms * 1000).toFixed(1)} µs`;

async function main(): Promise<void> {
  const store = Store.open(join(dir, 'state.db'));
  try {
    // 1. no folders
    const none = new ClaudeWatch({ store, program: 'claude', configDir: join(dir, 'none'), run: async () => { throw new Error('must not run'); } });
    const N = 20_000;
    let t = performance.now();
    for (let i = 0; i < N; i++) none.look();
    console.log(`look, no Claude Code folders: ${us((performance.now() - t) / N)} per tick (${N} ticks), claude agents runs: never`);

    // 2. twenty running sessions, nothing changed
    const config = join(dir, 'claude');
    mkdirSync(join(config, 'sessions'), { recursive: true });
    const listed: Record<string, unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      const id = `a${String(i).padStart(7, '0')}`;
      mkdirSync(join(config, 'jobs', id), { recursive: true });
      writeFileSync(join(config, 'jobs', id, 'state.json'), JSON.stringify({ state: 'working', detail: '', updatedAt: new Date().toISOString() }));
      writeFileSync(join(config, 'sessions', `${100_000 + i}.json`), JSON.stringify({ pid: process.pid, status: 'idle' }));
      listed.push({ pid: process.pid, id, sessionId: `${id}-0000-4000-8000-000000000000`, cwd: '/p', kind: 'background', name: `task ${i}`, status: 'idle', state: 'working' });
    }
    let calls = 0;
    const twenty = new ClaudeWatch({ store, program: 'claude', configDir: config, run: async () => { calls++; return { code: 0, stdout: JSON.stringify(listed), stderr: '' }; } });
    await twenty.refresh();
    calls = 0;
    const M = 2000;
    t = performance.now();
    for (let i = 0; i < M; i++) twenty.look();
    console.log(`look, 20 running sessions, no change: ${us((performance.now() - t) / M)} per tick (${M} ticks), claude agents runs: ${calls}`);
    none.close();
    twenty.close();

    // 3. the call itself
    const bin = join(process.cwd(), 'node_modules', '.cache', 'autodeck-claude-code', CLAUDE_CODE_NEWEST, 'node_modules', '.bin', 'claude');
    if (!existsSync(bin)) {
      console.log(`claude agents --json --all: no Claude Code ${CLAUDE_CODE_NEWEST} in the test cache (run an e2e test once to install it)`);
      return;
    }
    const home = join(dir, 'home');
    mkdirSync(home);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const s = performance.now();
      execFileSync(bin, ['agents', '--json', '--all'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
      times.push(performance.now() - s);
    }
    console.log(`claude agents --json --all (Claude Code ${CLAUDE_CODE_NEWEST}, 10 runs): p50 ${percentile(times, 0.5).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms`);

    // 4. change to row, with the real binary on the dashboard's tick
    const { worst, quietCalls } = await changeToRow(store, bin, env, home);
    if (worst > 3000 || quietCalls > 0) process.exitCode = 1;
  } finally {
    store.close();
  }
}


/**
 * Sessions appear, change status and end (their files written as Claude Code writes them,
 * for a live process); each time, how long until the watch's rows say so.
 */
async function changeToRow(store: Store, bin: string, env: NodeJS.ProcessEnv, home: string): Promise<{ worst: number; quietCalls: number }> {
  const config = join(home, '.claude');
  mkdirSync(join(config, 'sessions'), { recursive: true });
  const ticks = new EventEmitter();
  const timer = setInterval(() => ticks.emit('tick'), TICK_MS);
  let calls = 0;
  const watch = new ClaudeWatch({ store, program: bin, env, configDir: config, run: (f, a, o) => { calls++; return runProgram(f, a, o); } }, ticks);
  const until = (ok: () => boolean): Promise<number> => {
    const start = performance.now();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (ok()) {
          watch.off('change', check);
          clearTimeout(limit);
          resolve(performance.now() - start);
        }
      };
      const limit = setTimeout(() => { watch.off('change', check); reject(new Error('a change never reached the rows (30 s)')); }, 30_000);
      watch.on('change', check);
    });
  };
  const status = (id: string): string | undefined => watch.snapshot().entries.find((e) => e.session.sessionId === id)?.session.status;
  const appear: number[] = [];
  const change: number[] = [];
  const end: number[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const p = standIn();
      const sessionId = `b0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      const file = join(config, 'sessions', `${p.pid}.json`);
      const write = (s: string): void => writeFileSync(file, JSON.stringify({ pid: p.pid, sessionId, cwd: home, startedAt: Date.now(), procStart: p.procStart, version: CLAUDE_CODE_NEWEST, kind: 'interactive', entrypoint: 'cli', status: s, updatedAt: Date.now() }));
      // each change at a random point of the tick, as a real one comes
      await new Promise((r) => setTimeout(r, Math.random() * TICK_MS));
      let waited = until(() => status(sessionId) === 'idle');
      write('idle');
      appear.push(await waited);
      await new Promise((r) => setTimeout(r, Math.random() * TICK_MS));
      waited = until(() => status(sessionId) === 'busy');
      write('busy');
      change.push(await waited);
      await new Promise((r) => setTimeout(r, Math.random() * TICK_MS));
      // killed hard: the file stays, the pid is gone
      waited = until(() => status(sessionId) === undefined);
      p.kill();
      end.push(await waited);
      rmSync(file, { force: true });
      await watch.settled();
    }
    // the last file's removal is a change too: let a tick see it before counting quiet ones
    await new Promise((r) => setTimeout(r, 2 * TICK_MS));
    await watch.settled();
    calls = 0;
    await new Promise((r) => setTimeout(r, 10 * TICK_MS));
    const quietCalls = calls;
    const line = (what: string, xs: number[]): string => `${what}: p50 ${percentile(xs, 0.5).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`;
    console.log(`change to row (Claude Code ${CLAUDE_CODE_NEWEST}, 1 s tick, 5 each; target 3000 ms): ${line('appears', appear)}; ${line('status', change)}; ${line('ends', end)}`);
    console.log(`ten quiet ticks after: claude agents runs ${quietCalls} (target 0)`);
    return { worst: Math.max(...appear, ...change, ...end), quietCalls };
  } finally {
    clearInterval(timer);
    watch.close();
  }
}

main().then(() => rmSync(dir, { recursive: true, force: true }), (err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
  rmSync(dir, { recursive: true, force: true });
  process.exitCode = 2;
});
