import { profileForProgram } from '../config/schema.js';
import type { Store } from '../store/index.js';
import type { ClaudeEntry } from './watch.js';
import { ClaudeWatch } from './watch.js';
import { activeAdoptedMs } from './governor.js';
import { claudeState } from './cells.js';
import type { GroupId } from '../deck/states.js';
import type { RequestDetail } from './requests.js';

/**
 * Claude Code's sessions as `status --json`, the REST API and the dashboard's detail view
 * give them: one object each, Claude Code's own words kept beside autodeck's.
 */

export interface ClaudeSessionJson {
  /** `claude`: what the row is, beside `loop` rows. */
  source: 'claude';
  key: string;
  sessionId: string;
  /** The short id of a background session ('' for an interactive one). */
  id: string;
  kind: string;
  name: string;
  cwd: string;
  pid: number | null;
  startedAt: string | null;
  ageMs: number | null;
  /** autodeck's word: `needs you`, `limit`, `working`, `idle`, `done`, `failed`, `stopped`, or Claude Code's own. */
  state: string;
  phase: string;
  /** Its state group, as the loops' (the dashboard's header, `status`). */
  group: GroupId;
  /** What it needs from a person; null when nothing. */
  needs: { reason: string; text: string; resetAt: string | null; requestId: number | null } | null;
  /** Claude Code's own fields, as it gave them. */
  claude: { status: string | null; waitingFor: string | null; state: string | null; detail: string | null; needs: string | null; extra: Record<string, string> };
  /** When Claude Code last said its state changed (the job's state file), ISO; null when it did not say. */
  updatedAt: string | null;
  /** The request autodeck's PermissionRequest hook holds open for it (answerable through autodeck); null when none. */
  request: OpenRequestJson | null;
  /** When a loop of autodeck runs this session: its task folder. */
  loop: string | null;
  /** When autodeck governs it (`autodeck adopt`): its limits and counters. */
  adopted: AdoptedJson | null;
}

/** An open request: what was asked (never file contents), with a question's options. */
export interface OpenRequestJson {
  id: number;
  kind: 'permission' | 'question';
  text: string;
  askedAt: string;
  detail: RequestDetail;
}

export interface AdoptedJson {
  status: string;
  iteration: number;
  maxIterations: number;
  timeoutMinutes: number;
  activeMs: number;
  startedAt: string;
  quotaWaitSince: string | null;
  /** Time spent in finished usage-limit waits (not counted against the timeout). */
  quotaWaitMs: number;
  quotaResetAt: string | null;
  quotaResumes: number;
  tokens: number | null;
  costUsd: number | null;
  owner: { pid: number | null; host: string | null };
}

export function claudeSessionJson(e: ClaudeEntry, now: number): ClaudeSessionJson {
  const s = e.session;
  const need = e.view.need;
  const a = e.adopted;
  return {
    source: 'claude', group: claudeState(e).group, key: s.key, sessionId: s.sessionId, id: s.id, kind: s.kind, name: s.name, cwd: s.cwd, pid: s.pid ?? null,
    startedAt: s.startedAt !== undefined ? new Date(s.startedAt).toISOString() : null,
    ageMs: s.startedAt !== undefined ? Math.max(0, now - s.startedAt) : null,
    state: e.view.word, phase: e.view.phase,
    needs: need ? { reason: need.reason, text: need.text, resetAt: need.resetAt ?? null, requestId: need.requestId ?? null } : null,
    claude: { status: s.status ?? null, waitingFor: s.waitingFor ?? null, state: s.state ?? null, detail: s.detail ?? null, needs: s.needs ?? null, extra: s.extra },
    updatedAt: s.updatedAt !== undefined ? new Date(s.updatedAt).toISOString() : null,
    request: e.request ? { id: e.request.id, kind: e.request.kind, text: e.request.text, askedAt: e.request.askedAt, detail: e.request.request } : null,
    loop: e.loop ?? null,
    adopted: a
      ? {
          status: a.status, iteration: a.turns, maxIterations: a.maxIterations, timeoutMinutes: a.timeoutMinutes, activeMs: activeAdoptedMs(a, now),
          startedAt: a.startedAt, quotaWaitSince: a.quotaWaitSince || null, quotaWaitMs: a.quotaWaitMs, quotaResetAt: a.quotaResetAt || null, quotaResumes: a.quotaResumes,
          tokens: a.tokens, costUsd: a.costUsd, owner: { pid: a.ownerPid, host: a.ownerHost },
        }
      : null,
  };
}

/** The `claude` program autodeck asks: the agent command's own when it is Claude Code, else `claude` on PATH. */
export function claudeProgram(agent: readonly string[]): string {
  const program = agent[0];
  return program && profileForProgram(program) === 'claude' ? program : 'claude';
}

/**
 * One look at Claude Code's sessions for a command that does not keep watching (`status`,
 * `history`): nothing runs when Claude Code has no session files. Nothing is recorded,
 * unless `record` (a dashboard's look at this host over ssh: it watches on that host's behalf).
 */
export async function readClaudeSessions(store: Store, program: string, env: NodeJS.ProcessEnv = process.env, opts: { record?: boolean; listTimeoutMs?: number } = {}): Promise<{ entries: readonly ClaudeEntry[]; note: string }> {
  const loopPids = new Map<number, string>();
  for (const row of store.loops.list()) if (row.agentPid !== null) loopPids.set(row.agentPid, row.taskDir);
  const watch = new ClaudeWatch({ store, program, env, record: opts.record ?? false, loopPids: () => loopPids, ...(opts.listTimeoutMs !== undefined ? { listTimeoutMs: opts.listTimeoutMs } : {}) });
  try {
    await watch.lookOnce();
    const snap = watch.snapshot();
    return { entries: snap.entries, note: snap.note };
  } finally {
    watch.close();
  }
}
