import { readdirSync, readFileSync } from 'node:fs';

/** Every live process whose environment names this autodeck session (its agents). */
export function agentsOf(session: string): number[] {
  const needle = `AUTODECK_SESSION=${session}`;
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`, 'latin1').split('\0');
      if (!env.includes(needle)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      if (/\) [ZX] /.test(stat)) continue; // a zombie is not alive
      pids.push(Number(name));
    } catch { /* gone meanwhile, or not ours to read */ }
  }
  return pids;
}

/**
 * The agents proper: processes of the session whose parent is not itself one of them
 * (the simulated agent is one node process; a shell wrapper would be its parent).
 */
export function topAgentsOf(session: string): number[] {
  const all = agentsOf(session);
  return all.filter((pid) => !all.includes(parentOf(pid)));
}

export function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** Resident memory of a process in KiB (0 when gone). */
export function rssKiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
