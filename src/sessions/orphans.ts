import { readFileSync } from 'node:fs';

/**
 * Whether `pid` is still the agent autodeck started for `session`: its environment
 * carries AUTODECK_SESSION, which a recycled pid would not (Linux /proc only).
 */
export function isAgentOf(pid: number | null, session: string): boolean {
  if (!pid || pid <= 0) return false;
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`AUTODECK_SESSION=${session}`);
  } catch {
    return false;
  }
}

/** Kills an orphaned agent's process group; an agent nobody can watch must not go on. */
export function killOrphanAgent(pid: number | null, session: string): boolean {
  if (!isAgentOf(pid, session)) return false;
  try {
    process.kill(-pid!, 'SIGKILL');
  } catch {
    try {
      process.kill(pid!, 'SIGKILL');
    } catch { /* gone meanwhile */ }
  }
  return true;
}
