import { readFileSync } from 'node:fs';
import { processTree } from '../agents/procFiles.js';

/**
 * The processes an agent started, remembered while it runs, so that none outlives it: a
 * helper that detached itself (a daemon in a session of its own, re-parented to init when the
 * agent exits: Codex's `codex app-server --managed-daemon` and its pid-update loop) is
 * ended with the agent. A remembered pid counts only while its start time is the same (a
 * pid the system has given to another process since is left alone). Linux (/proc);
 * elsewhere nothing is remembered.
 */

interface Known {
  startTicks: string;
  command: string;
}

/** Field 22 of /proc/<pid>/stat: the start time since boot, in clock ticks; and the command line. */
function identity(pid: number, proc: string): Known | undefined {
  try {
    const stat = readFileSync(`${proc}/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // state is fields[0]; a zombie is already gone
    if (fields[0] === 'Z') return undefined;
    const command = readFileSync(`${proc}/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { startTicks: fields[19] ?? '', command };
  } catch {
    return undefined;
  }
}

function pgidOf(pid: number, proc: string): number | undefined {
  try {
    const stat = readFileSync(`${proc}/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

export class AgentLeftovers {
  private readonly known = new Map<number, Known>();
  private root: number | undefined;

  constructor(private readonly proc = '/proc', private readonly kill: (pid: number, signal: NodeJS.Signals) => void = (pid, s) => process.kill(pid, s)) {}

  /** Remembers the agent's processes as they are now (the agent itself at `pid`). */
  note(pid: number): void {
    if (this.root !== pid) {
      this.root = pid;
      this.known.clear();
    }
    for (const p of processTree(pid, this.proc)) {
      if (p === pid || this.known.has(p)) continue;
      const id = identity(p, this.proc);
      if (id) this.known.set(p, id);
    }
    // bounded: an agent that runs thousands of short commands must not grow this forever
    if (this.known.size > 512) {
      for (const p of [...this.known.keys()]) if (!identity(p, this.proc)) this.known.delete(p);
    }
  }

  /**
   * After the agent exited: the remembered processes still running (the same ones) are sent
   * `signal`, a process-group leader with its whole group. Returns their command lines.
   */
  end(signal: NodeJS.Signals = 'SIGTERM'): string[] {
    const ended: string[] = [];
    for (const [pid, was] of this.known) {
      const now = identity(pid, this.proc);
      if (!now || now.startTicks !== was.startTicks) {
        this.known.delete(pid);
        continue;
      }
      try {
        this.kill(pgidOf(pid, this.proc) === pid ? -pid : pid, signal);
        ended.push(now.command.slice(0, 120));
      } catch { /* gone meanwhile */ }
    }
    return ended;
  }

  /** Whether any remembered process still runs. */
  get anyAlive(): boolean {
    for (const [pid, was] of this.known) if (identity(pid, this.proc)?.startTicks === was.startTicks) return true;
    return false;
  }
}
