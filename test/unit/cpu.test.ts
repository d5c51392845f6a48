import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuPercent, parseStat, processTreeTicks } from '../../src/supervisor/cpu.js';

describe('process tree CPU (for the hung-agent watchdog)', () => {
  it('parses a stat line whose command name holds spaces and parentheses', () => {
    const line = '4242 (node (worker) x) S 4100 4242 4242 0 -1 4194304 100 0 0 0 250 50 7 3 20 0 11 0 1000 0 0';
    expect(parseStat(line)).toEqual({ ppid: 4100, ticks: 250 + 50 + 7 + 3 });
    expect(parseStat('garbage')).toBeUndefined();
  });
  it('percent of one core between two samples (100 ticks a second)', () => {
    expect(cpuPercent({ ticks: 100, at: 0 }, { ticks: 150, at: 1000 })).toBe(50);
    expect(cpuPercent({ ticks: 100, at: 0 }, { ticks: 100, at: 60_000 })).toBe(0);
    expect(cpuPercent({ ticks: 100, at: 1000 }, { ticks: 90, at: 2000 })).toBeUndefined();
  });
  /**
   * A /proc of its own: pid -> [ppid, ticks, children by thread]. `childrenFiles` false is
   * a kernel without CONFIG_PROC_CHILDREN (no task/<tid>/children files).
   */
  function fakeProc(tree: Record<number, [number, number, Record<number, number[]>]>, childrenFiles: boolean): string {
    const dir = mkdtempSync(join(tmpdir(), 'autodeck-proc-'));
    for (const [pid, [ppid, ticks, threads]] of Object.entries(tree)) {
      mkdirSync(join(dir, pid, 'task'), { recursive: true });
      // utime stime cutime cstime = ticks 0 0 0
      writeFileSync(join(dir, pid, 'stat'), `${pid} (agent x) S ${ppid} ${pid} ${pid} 0 -1 0 0 0 0 0 ${ticks} 0 0 0 20 0 1 0 1 0 0`);
      for (const [tid, kids] of Object.entries(threads)) {
        mkdirSync(join(dir, pid, 'task', tid));
        if (childrenFiles) writeFileSync(join(dir, pid, 'task', tid, 'children'), kids.map((k) => `${k} `).join(''));
      }
    }
    writeFileSync(join(dir, 'uptime'), '1 1'); // not a pid: skipped by the scan
    return dir;
  }

  it.each([true, false])('sums the tree of a root and nothing else (children files %s)', (childrenFiles) => {
    // 10 -> 11 (started by a second thread of 10) -> 12; 20 is unrelated; 13 is listed but gone.
    const dir = fakeProc({
      10: [1, 100, { 10: [], 15: [11, 13] }],
      11: [10, 20, { 11: [12] }],
      12: [11, 3, { 12: [] }],
      20: [1, 999, { 20: [] }],
    }, childrenFiles);
    try {
      expect(processTreeTicks(10, dir)).toBe(123);
      expect(processTreeTicks(11, dir)).toBe(23);
      expect(processTreeTicks(20, dir)).toBe(999);
      expect(processTreeTicks(13, dir)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(existsSync('/proc/self/stat'))('counts a real child that burns CPU into its parent tree', async () => {
    // a shell whose child spins: the tree of the shell grows, though the shell itself sleeps
    // (it spins until it has used 1 s of CPU, however busy the machine: no timing assumed)
    const sh = spawn('sh', ['-c', 'node -e "while (process.cpuUsage().user < 1e6) {}" ; sleep 30'], { stdio: 'ignore' });
    try {
      const first = processTreeTicks(sh.pid!);
      expect(first).toBeDefined();
      let grown = 0;
      for (let i = 0; i < 200 && grown < 50; i++) {
        await new Promise((r) => setTimeout(r, 100));
        grown = (processTreeTicks(sh.pid!) ?? 0) - first!;
      }
      expect(grown).toBeGreaterThanOrEqual(50);
      expect(processTreeTicks(2 ** 22 + 12345)).toBeUndefined();
    } finally {
      sh.kill('SIGKILL');
    }
  });
});
