import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * A process and its descendants as /proc shows them (Linux): their pids, and the files they
 * hold open. Elsewhere, or for a process that is gone, nothing. The tree is walked through
 * each thread's `children` file (the agent's few processes, not the machine's).
 */

/** The pid and every descendant's, parents first. */
export function processTree(pid: number, proc = '/proc'): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  const stack = [pid];
  while (stack.length > 0 && out.length < 4096) {
    const p = stack.pop()!;
    if (seen.has(p)) continue;
    seen.add(p);
    let tids: string[];
    try {
      tids = readdirSync(`${proc}/${p}/task`);
    } catch {
      continue; // gone, or no /proc
    }
    out.push(p);
    for (const tid of tids) {
      let text = '';
      try {
        text = readFileSync(`${proc}/${p}/task/${tid}/children`, 'utf8');
      } catch { /* no children file */ }
      for (const word of text.split(' ')) if (/^\d+$/.test(word)) stack.push(Number(word));
    }
  }
  return out;
}

/** The paths matching `re` that the process or a descendant holds open. */
export function openFilesOf(pid: number, re: RegExp, proc = '/proc'): string[] {
  const found = new Set<string>();
  for (const p of processTree(pid, proc)) {
    let fds: string[];
    try {
      fds = readdirSync(`${proc}/${p}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`${proc}/${p}/fd/${fd}`);
        if (re.test(target)) found.add(target);
      } catch { /* closed meanwhile */ }
    }
  }
  return [...found];
}
