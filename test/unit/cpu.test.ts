import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
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
