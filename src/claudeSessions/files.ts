import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { homeDir } from '../paths.js';
import { pidAlive } from '../pidAlive.js';

export { pidAlive };
import { parseJobState, type JobState } from './listing.js';

/**
 * Claude Code's own files about its sessions, read for two things only: whether anything
 * changed since the last look (a few stats, so that `claude agents --json` runs only then),
 * and a background job's `detail` / `needs`. Never written.
 */

/** `CLAUDE_CONFIG_DIR`, else `~/.claude`: where Claude Code keeps sessions, jobs and transcripts. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.CLAUDE_CONFIG_DIR?.trim();
  return dir ? dir : join(homeDir(env), '.claude');
}

function statKey(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return '-';
  }
}

/**
 * A text that changes when Claude Code's session files change: the running sessions'
 * files (`sessions/<pid>.json`, written on every status change), the jobs folder (a job
 * added or removed), the state of the jobs in `watchJobs`, and whether each pid in
 * `watchPids` is still alive (a session killed hard leaves its file behind). '' when Claude
 * Code has no session folders at all: then nothing is listed and nothing runs.
 */
export function sessionFilesFingerprint(configDir: string, watchJobs: readonly string[] = [], watchPids: readonly number[] = []): string {
  const base = sessionFolders(configDir);
  return base === '' ? '' : `${base}\n${watchedFingerprint(configDir, watchJobs, watchPids)}`;
}

/** The session files and the jobs folder; '' when Claude Code has neither folder. */
export function sessionFolders(configDir: string): string {
  const sessionsDir = join(configDir, 'sessions');
  let names: string[] = [];
  let sessionsThere = true;
  try {
    names = readdirSync(sessionsDir).filter((n) => n.endsWith('.json')).sort();
  } catch {
    sessionsThere = false;
  }
  const jobs = statKey(join(configDir, 'jobs'));
  if (!sessionsThere && jobs === '-') return '';
  return [jobs, ...names.map((n) => `${n}=${statKey(join(sessionsDir, n))}`)].join('\n');
}

/** The state files of the jobs that run, and whether each listed process is alive. */
export function watchedFingerprint(configDir: string, watchJobs: readonly string[], watchPids: readonly number[]): string {
  const parts: string[] = [];
  for (const id of watchJobs) parts.push(`job ${id}=${statKey(join(configDir, 'jobs', id, 'state.json'))}`);
  for (const pid of watchPids) parts.push(`pid ${pid}=${pidAlive(pid) ? 1 : 0}`);
  return parts.join('\n');
}

/** A background job's state.json (`detail`, `needs`, when it changed); undefined when absent or unreadable. */
export function readJobState(configDir: string, shortId: string): JobState | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(shortId)) return undefined;
  try {
    return parseJobState(readFileSync(join(configDir, 'jobs', shortId, 'state.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** `~/.claude/sessions/<pid>.json` of a running session with this full id: its pid and status, for the hook. */
export function runningSessionFile(configDir: string, sessionId: string): { pid: number; status: string | undefined } | undefined {
  const dir = join(configDir, 'sessions');
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return undefined;
  }
  for (const n of names) {
    try {
      const o = JSON.parse(readFileSync(join(dir, n), 'utf8')) as { sessionId?: unknown; pid?: unknown; status?: unknown };
      if (o.sessionId !== sessionId) continue;
      const pid = typeof o.pid === 'number' ? o.pid : Number.parseInt(n, 10);
      return { pid, status: typeof o.status === 'string' ? o.status : undefined };
    } catch { /* being rewritten: the next look reads it */ }
  }
  return undefined;
}

/** `~/.claude/projects/<cwd with / and . as ->/<sessionId>.jsonl`: a session's transcript. */
export function transcriptPath(configDir: string, cwd: string, sessionId: string): string {
  return join(configDir, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'), `${sessionId}.jsonl`);
}
