import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Kernel clock ticks per second, the unit of utime/stime in /proc/PID/stat. */
export function clockTicksPerSecond(): number {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    if (Number.isInteger(n) && n > 0) return n;
  } catch { /* no getconf: Linux's usual value */ }
  return 100;
}

/** CPU time of one process itself (user + system, not its children), in clock ticks. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`cannot read CPU times from /proc/${pid}/stat`);
  return utime + stime;
}

/** Resident memory now and at its peak, in KiB (VmRSS, VmHWM of /proc/PID/status). */
export function memoryKiB(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!m) throw new Error(`no ${name} in /proc/${pid}/status`);
    return Number(m[1]);
  };
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/** True while a process with this id exists (a zombie counts until it is reaped). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process to stand for a session (Claude Code checks the pid and its start time). */
export function standIn(): { pid: number; procStart: string; kill: () => void } {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  const pid = child.pid!;
  const procStart = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;
  return { pid, procStart, kill: () => child.kill('SIGKILL') };
}
