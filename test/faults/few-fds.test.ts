import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { BIN, runFlags } from '../helpers/cli.js';
import { runsOf } from '../helpers/db.js';
import { eventsAt, integrity, makeWorkspace, type Workspace } from './helpers/loops.js';
import { agentsOf } from './helpers/procs.js';
import { LONG, recordRow, scale } from './helpers/results.js';

// Fault: too few file descriptors (`prlimit --nofile`) for the loops asked for. Must
// hold: no crash; a spawn that fails is said clearly in the log and handled as a failed
// start (restarts, then `failed`), every loop ends with a recorded outcome, and no PTY or
// agent is left behind.

let ws: Workspace;
afterEach(() => ws?.cleanup());

const ptys = (): number => readdirSync('/dev/pts').length;

/**
 * The fewest descriptors (in steps of 4) with which `run` starts node, opens the database
 * and runs one quick loop to its end here: it moves with node and with autodeck's own
 * modules (40 was enough once; node 20 then failed to load a module at 42).
 */
function descriptorsForOneLoop(w: Workspace): number {
  for (let n = 32; n <= 256; n += 4) {
    const dir = w.module(`probe${n}`, { scenario: { stepSeconds: 0.02 } });
    const r = spawnSync('prlimit', [`--nofile=${n}`, process.execPath, BIN, 'run', dir, ...runFlags(w)], { cwd: w.dir, env: w.env, stdio: 'ignore', timeout: 60_000 });
    if (r.status === 0) return n;
  }
  throw new Error('run did not complete one loop even with 256 descriptors');
}

describe('fault: too few file descriptors', () => {
  // Long only: the probe and forty loops on a tight limit take some 12 s here. (The
  // common `ulimit -n 256` with 20 loops provokes nothing: 20 loops need ~45.)
  it.runIf(LONG)('spawns that fail are said and counted; every loop ends with an outcome; nothing leaks', async () => {
    const loops = 40;
    ws = makeWorkspace('autodeck-fault-');
    // enough to start node, open the database and run a few loops, not every loop
    // Starting takes more descriptors (node loading its modules) than running does (~25
    // with one loop here, one more per loop): with just enough to start, a few dozen loops
    // run out. 20 loops fitted in the 44 that starting needed, so the fault is 40 loops.
    const oneLoop = descriptorsForOneLoop(ws);
    const nofile = oneLoop;
    const dirs = Array.from({ length: loops }, (_, i) => ws.module(`fd${String(i).padStart(2, '0')}`, { scenario: { stepSeconds: scale(0.15, 0.3), steps: scale(1, 3) } }));
    const ptysBefore = ptys();
    const args = [`--nofile=${nofile}`, process.execPath, BIN, 'run', ...dirs, ...runFlags(ws, ['--restart-limit', '2'])];
    const child = spawn('prlimit', args, { cwd: ws.dir, env: ws.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
    const outcomes = dirs.map((d) => runsOf(ws.db, d)[0]?.outcome ?? 'none');
    const spawnErrors = dirs.flatMap((d) => eventsAt(ws.db, d).filter((e) => e.kind === 'error' && e.detail.where === 'spawn'));
    const leftAgents = dirs.flatMap((d) => agentsOf(`auto-${d.split('/').pop()}`)).length;
    const leakedPtys = ptys() - ptysBefore;
    const crashed = /Uncaught|TypeError|at .*\.js:\d+/.test(stderr);
    const lost = outcomes.filter((o) => o === 'none').length;
    // /dev/pts is shared with everything else on the machine: its count is a figure; the
    // pass criterion is that no agent of ours is left (a PTY lives as long as its agent).
    const clear = spawnErrors.every((e) => /out of file descriptors/.test(String(e.detail.message)));
    const pass = [0, 1].includes(code) && !crashed && lost === 0 && leftAgents === 0 && clear && integrity(ws.db) === 'ok';
    const tally = Object.entries(outcomes.reduce<Record<string, number>>((a, o) => ({ ...a, [o]: (a[o] ?? 0) + 1 }), {})).map(([o, n]) => `${n} ${o}`).join(', ');
    recordRow({ fault: `too few file descriptors (nofile ${nofile}, one loop needs ${oneLoop}) for ${loops} loops`, atRisk: loops, lost, doubled: 0, pass,
      note: `exit ${code}; ${tally}; ${spawnErrors.length} spawn errors logged (${String(spawnErrors[0]?.detail.message ?? '-').split(' (')[0]}); /dev/pts entries ${leakedPtys >= 0 ? '+' : ''}${leakedPtys}, agents left ${leftAgents}` });
    expect(crashed, stderr).toBe(false);
    expect([0, 1]).toContain(code);
    expect(outcomes).not.toContain('none');
    expect(leftAgents).toBe(0);
    for (const e of spawnErrors) expect(String(e.detail.message)).toMatch(/out of file descriptors or pseudo-terminals/);
    expect(integrity(ws.db)).toBe('ok');
  });
});
