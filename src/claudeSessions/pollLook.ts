import { createHash } from 'node:crypto';
import type { Store } from '../store/index.js';
import { claudeConfigDir, pidAlive, sessionFolders, watchedFingerprint } from './files.js';
import type { ClaudeSessionJson } from './json.js';
import { ClaudeRequestStore } from './requests.js';
import { ClaudeAdoptedStore } from './adopted.js';

/**
 * Claude Code's sessions for a dashboard reading this host over ssh (`status --json
 * --events-since N --claude [--claude-since TOKEN]`). Each look is a process of its own,
 * so what the dashboard's own watch keeps between ticks travels as a token: a digest of
 * Claude Code's session files, of the running jobs' state files and pids, and of autodeck's
 * open requests and adoptions here, with the job ids and pids it covers. When the token
 * the dashboard sends still matches, nothing is asked of Claude Code (`claude agents`
 * costs a node start) and the answer says `claudeUnchanged`; otherwise the sessions are
 * listed, their changes recorded here (as a dashboard on this host would: the referee
 * table keeps it to one record per change), and a new token comes back.
 */

export interface ClaudePollJson {
  /** The sessions; absent when unchanged since the token. */
  claudeSessions?: ClaudeSessionJson[];
  claudeNote?: string;
  /** True when nothing changed since the token sent: the reader keeps what it has. */
  claudeUnchanged?: true;
  /** What to send next time. */
  claudeToken: string;
}

const TOKEN_VERSION = 'c1';
/** Ids and pids a token may carry (a machine with more live sessions lists every time). */
const MAX_WATCHED = 200;

/** The job ids and pids a token covers; undefined for anything that is not a token of this form. */
export function parseClaudeToken(token: string): { digest: string; jobs: string[]; pids: number[] } | undefined {
  const m = /^c1\.([0-9a-f]{16})\.([A-Za-z0-9_,-]*)\.([0-9,]*)$/.exec(token);
  if (!m) return undefined;
  const jobs = m[2] ? m[2].split(',') : [];
  const pids = m[3] ? m[3].split(',').map(Number) : [];
  if (jobs.length > MAX_WATCHED || pids.length > MAX_WATCHED || jobs.some((j) => j === '') || pids.some((p) => !Number.isSafeInteger(p) || p <= 0)) return undefined;
  return { digest: m[1]!, jobs, pids };
}

export function claudeToken(digest: string, jobs: readonly string[], pids: readonly number[]): string {
  const j = jobs.length <= MAX_WATCHED ? jobs : [];
  const p = pids.length <= MAX_WATCHED ? pids : [];
  return `${TOKEN_VERSION}.${digest}.${j.join(',')}.${p.join(',')}`;
}

function digestOf(parts: readonly string[]): string {
  return createHash('sha256').update(parts.join('\n\u0000')).digest('hex').slice(0, 16);
}

/** What of autodeck's own database shows on the sessions' rows: open requests, adoptions, loops' agents. */
function databasePart(store: Store): string {
  const open = new ClaudeRequestStore(store.db).open().map((r) => `${r.id}:${r.answeredAt ?? ''}:${r.hookPid === null || pidAlive(r.hookPid) ? 1 : 0}`);
  const adopted = new ClaudeAdoptedStore(store.db).list().map((a) => JSON.stringify([a.sessionId, a.status, a.turns, a.quotaWaitSince, a.quotaResetAt, a.quotaResumes, a.tokens, a.costUsd, a.maxIterations, a.timeoutMinutes]));
  const loops = store.loops.list().flatMap((l) => (l.agentPid !== null ? [`${l.agentPid}:${l.taskDir}`] : []));
  return JSON.stringify([open, adopted, loops]);
}

/**
 * How long `claude agents` may take in a dashboard's look: well inside the look's own
 * deadline, so a Claude Code that hangs there never makes the host look unreachable.
 */
export const POLL_LIST_TIMEOUT_MS = 8_000;
/** After a listing failed, the looks in this time do not ask Claude Code again (the reader keeps its rows, and the note). */
export const FAILED_LIST_PAUSE_MS = 60_000;

/** A token after a failed listing: its digest says when, so the next looks can wait. */
const failedDigest = (now: number): string => `ffff${Math.floor(now / 1000).toString(16).padStart(12, '0')}`;
const failedAt = (digest: string): number | undefined => (digest.startsWith('ffff') ? Number.parseInt(digest.slice(4), 16) * 1000 : undefined);

export async function claudePollJson(store: Store, agent: readonly string[], since: string | undefined, env: NodeJS.ProcessEnv = process.env, now: () => number = Date.now): Promise<ClaudePollJson> {
  const configDir = claudeConfigDir(env);
  const folders = sessionFolders(configDir);
  const db = databasePart(store);
  const previous = since === undefined ? undefined : parseClaudeToken(since);
  if (previous && digestOf([folders, watchedFingerprint(configDir, previous.jobs, previous.pids), db]) === previous.digest) {
    return { claudeUnchanged: true, claudeToken: since! };
  }
  // the last listing failed a moment ago: not again yet (a Claude Code that hangs or breaks costs one try a minute)
  const failed = previous ? failedAt(previous.digest) : undefined;
  if (failed !== undefined && now() - failed < FAILED_LIST_PAUSE_MS && now() >= failed) return { claudeUnchanged: true, claudeToken: since! };
  // Claude Code has no session files: nothing to ask (and nothing runs)
  if (folders === '') return { claudeSessions: [], claudeToken: claudeToken(digestOf([folders, '', db]), [], []) };
  // (the listing's code loads only when there is something to list: a quiet look stays a few stats)
  const { claudeProgram, claudeSessionJson, readClaudeSessions } = await import('./json.js');
  const { entries, note } = await readClaudeSessions(store, claudeProgram(agent), env, { record: true, listTimeoutMs: POLL_LIST_TIMEOUT_MS });
  const live = entries.filter((e) => e.view.live).map((e) => e.session);
  const jobs = live.map((s) => s.id).filter((id) => /^[A-Za-z0-9_-]{1,64}$/.test(id));
  const pids = live.flatMap((s) => (s.pid !== undefined && Number.isSafeInteger(s.pid) && s.pid > 0 ? [s.pid] : []));
  // the folders as they were before asking: a change during the call is looked at next time;
  // after a failed look, a digest no look matches, saying when (the next ones wait a while)
  const at = now();
  const digest = note ? failedDigest(at) : digestOf([folders, watchedFingerprint(configDir, jobs, pids), databasePart(store)]);
  return { claudeSessions: entries.map((e) => claudeSessionJson(e, at)), ...(note ? { claudeNote: note } : {}), claudeToken: claudeToken(digest, jobs, pids) };
}
