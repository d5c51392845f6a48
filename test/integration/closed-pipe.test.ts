import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { quote } from 'shell-quote';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { BIN, runFlags } from '../helpers/cli.js';
import { eventsOf, loopRow, runsOf } from '../helpers/db.js';

// A closed pipe is not a crash: `autodeck run … | head -1` in a real shell. head exits after
// its first line and the pipe closes under autodeck, whose next write fails with EPIPE; the
// loop goes on to its own end, its run is recorded, and nothing is left `running`.

let ws: Workspace | undefined;
afterEach(() => ws?.cleanup());

/** Runs `autodeck <args> <redirect> | head -1` under sh; resolves with head's output and the pipeline's exit code. */
function throughHead(w: Workspace, args: string[], redirect = ''): Promise<{ code: number; out: string; autodeckCode: number }> {
  // sh's $? is head's; autodeck's own exit code comes out on fd 3
  const cmd = `{ ${quote([process.execPath, BIN, ...args])} ${redirect}; echo $? >&3; } | head -1`;
  const child = spawn('sh', ['-c', cmd], { cwd: w.dir, env: w.env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let out = '';
  let code3 = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => (code3 += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, out, autodeckCode: Number(code3.trim()) })));
}

describe('a reader that goes away', () => {
  it.each([
    ['stdout (--json)', ['--json'], ''],
    ['stdout and stderr (2>&1)', [], '2>&1'],
  ])('closing %s: the loop runs on to its end, recorded', async (_, extra, redirect) => {
    ws = makeWorkspace('autodeck-epipe-');
    // several iterations, each signal an event line written after head has gone
    const dir = ws.module('piped', { scenario: { stepSeconds: 0.1 } });
    const r = await throughHead(ws, ['run', dir, ...runFlags(ws, extra)], redirect);
    expect(r.out.split('\n').filter(Boolean)).toHaveLength(1);
    // autodeck finished supervising: the loop is complete (exit 0), not killed by the pipe
    expect(r.autodeckCode).toBe(0);
    const runs = runsOf(ws.db, dir);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ outcome: 'complete' });
    expect(runs[0]!.iterations).toBeGreaterThanOrEqual(2);
    expect(loopRow(ws.db, dir)).toBeUndefined();
    // the log says so, once per closed stream
    const said = eventsOf(ws.db, '').filter((e) => e.kind === 'error' && /was closed by its reader/.test(String(e.detail.message)));
    expect(said.length).toBeGreaterThanOrEqual(1);
    expect(new Set(said.map((e) => e.detail.where)).size).toBe(said.length);
  });
});
