import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of a process and all its descendants, from /proc (Linux), in clock ticks
 * (USER_HZ, 100 per second on Linux). Undefined where /proc cannot be read or the process
 * is gone. The tree is walked through each thread's `children` file, so the cost follows
 * the agent's own few processes, not the machine's (a build box runs thousands, and the
 * watchdog samples every loop); where the kernel has no such files (CONFIG_PROC_CHILDREN
 * off), one pass over every /proc/<pid>/stat instead. A process that exits meanwhile is
 * skipped.
 */
export function processTreeTicks(rootPid: number, proc = '/proc'): number | undefined {
  const root = readStat(`${proc}/${rootPid}/stat`);
  if (!root) return undefined;
  const children = childrenOf(rootPid, proc);
  return children === undefined ? treeByScan(rootPid, proc) : treeByChildren(rootPid, root.ticks, children, proc);
}

/**
 * The pids a process's threads started (each thread lists its own children); [] when it
 * is gone meanwhile, undefined when the kernel keeps no children files.
 */
function childrenOf(pid: number, proc: string): number[] | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`${proc}/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  let files = false;
  for (const tid of tids) {
    let text: string;
    try {
      text = readFileSync(`${proc}/${pid}/task/${tid}/children`, 'utf8');
    } catch {
      continue;
    }
    files = true;
    for (const word of text.split(' ')) if (/^\d+$/.test(word)) out.push(Number(word));
  }
  return files || tids.length === 0 ? out : undefined;
}

function treeByChildren(rootPid: number, rootTicks: number, rootChildren: number[], proc: string): number {
  let total = rootTicks;
  const seen = new Set([rootPid]);
  const stack = [...rootChildren];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const stat = readStat(`${proc}/${pid}/stat`);
    if (!stat) continue;
    total += stat.ticks;
    stack.push(...(childrenOf(pid, proc) ?? []));
  }
  return total;
}

function treeByScan(rootPid: number, proc: string): number | undefined {
  let names: string[];
  try {
    names = readdirSync(proc);
  } catch {
    return undefined;
  }
  const parent = new Map<number, number>();
  const ticks = new Map<number, number>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(`${proc}/${name}/stat`);
    if (!stat) continue;
    parent.set(Number(name), stat.ppid);
    ticks.set(Number(name), stat.ticks);
  }
  if (!ticks.has(rootPid)) return undefined;
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parent) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  let total = 0;
  const stack = [rootPid];
  const seen = new Set<number>();
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    total += ticks.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** `pid (comm) state ppid … utime stime cutime cstime`: comm may hold spaces and parentheses. */
export function parseStat(text: string): { ppid: number; ticks: number } | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const f = text.slice(close + 2).split(' ');
  // after the comm: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14)
  const ppid = Number(f[1]);
  const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  return Number.isFinite(ppid) && Number.isFinite(ticks) ? { ppid, ticks } : undefined;
}

function readStat(path: string): { ppid: number; ticks: number } | undefined {
  try {
    return parseStat(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Percent of one core used between two samples: ticks at 100 per second. */
export function cpuPercent(before: { ticks: number; at: number }, after: { ticks: number; at: number }): number | undefined {
  const ms = after.at - before.at;
  if (ms <= 0 || after.ticks < before.ticks) return undefined;
  return ((after.ticks - before.ticks) * 10 * 100) / ms;
}
