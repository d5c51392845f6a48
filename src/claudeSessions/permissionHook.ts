import { basename } from 'node:path';
import type { Store } from '../store/index.js';
import { decide, type PolicyOutcome } from '../policy/decide.js';
import type { ApprovalPolicy, ApprovalRequest } from '../policy/rules.js';
import { hookRequest } from '../policy/screenRequest.js';
import { ClaudeRequestStore, requestText, type RequestAnswer, type RequestDetail, type RequestKind } from './requests.js';
import { ClaudeAdoptedStore } from './adopted.js';
import { boundedCopy } from '../format/bounded.js';

/**
 * `autodeck hook permission`: Claude Code's PermissionRequest hook for sessions autodeck
 * did not start (a background session of Claude Code's daemon, a person's interactive
 * one). Claude Code runs it beside the dialog it draws and takes the first answer, from
 * the hook or from the keyboard (docs/claude-sessions.md). The hook:
 *
 *  - records the request, so the dashboard, `status --json` and the API show it;
 *  - lets the approval policy decide what its rules name (an adopted session: the whole
 *    policy, as a loop's; another background session: only what a rule or a built-in
 *    deny names — a request no rule names waits for a person; an interactive session:
 *    never the policy, its person is at the keyboard);
 *  - otherwise waits for a person's answer through autodeck, and gives up quietly when the
 *    dialog was answered elsewhere, the session ended, or its time is spent.
 *
 * It never types a key, never fails the agent (any error of its own: no answer, so Claude
 * Code's dialog stands), and prints nothing but the decision.
 */

/** The decision as Claude Code reads it from a PermissionRequest hook's stdout. */
export function hookOutput(answer: RequestAnswer): string {
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: answer } })}\n`;
}

/** The tool that asks the user questions: answered with `updatedInput.answers`, not allow/deny alone. */
export const QUESTION_TOOL = 'AskUserQuestion';

const KEPT_INPUT = ['command', 'file_path', 'notebook_path', 'path', 'url', 'description'] as const;

/** What the hook keeps of the event's `tool_input`: the subject, never file contents. */
export function requestDetail(event: Record<string, unknown>): { kind: RequestKind; detail: RequestDetail } | undefined {
  const tool = typeof event.tool_name === 'string' ? event.tool_name.slice(0, 200) : '';
  if (!tool) return undefined;
  const input = (typeof event.tool_input === 'object' && event.tool_input !== null ? event.tool_input : {}) as Record<string, unknown>;
  if (tool === QUESTION_TOOL) {
    // a bounded copy: the questions are stored and shown, and a value nested thousands deep would overflow JSON.stringify
    const questions = Array.isArray(input.questions) ? boundedCopy(input.questions.slice(0, 10)) as unknown[] : [];
    return { kind: 'question', detail: { tool, questions } };
  }
  const detail: RequestDetail = { tool };
  for (const k of KEPT_INPUT) {
    const v = input[k];
    if (typeof v !== 'string') continue;
    const key = k === 'notebook_path' || k === 'path' ? 'file_path' : k;
    if (detail[key] === undefined) detail[key] = v.slice(0, 4000);
  }
  return { kind: 'permission', detail };
}

function subject(d: RequestDetail): Record<string, string> {
  return d.command !== undefined ? { command: d.command.slice(0, 500) } : d.file_path !== undefined ? { path: d.file_path } : d.url !== undefined ? { url: d.url } : {};
}

export type SessionStanding = 'adopted' | 'background' | 'interactive';

/**
 * What the approval policy says of a request, by the session's standing; undefined: a
 * person decides. A background session not adopted is answered only by what names the
 * request (a rule, a built-in deny), never by the policy's default allow.
 */
export function policyAnswer(req: ApprovalRequest, standing: SessionStanding, policy: ApprovalPolicy, ctx: Parameters<typeof decide>[2]): PolicyOutcome | undefined {
  if (standing === 'interactive') return undefined;
  const outcome = decide(req, policy, ctx);
  if (outcome.decision === 'ask') return undefined;
  if (standing === 'background' && outcome.rule === 'default') return undefined;
  return outcome;
}

/** The message Claude Code gives the model with a refusal. */
export function refusalMessage(by: string, reason: string): string {
  return `Refused through autodeck (${by}): ${reason}. Do not try it again another way; go on without it, or stop and say what you need.`;
}

export interface WaitIo {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** The session's running file: its status, or undefined once the process is gone. */
  sessionStatus(): { status: string | undefined } | undefined;
  /** The hook's parent (Claude Code's shell) is gone: nobody reads the answer any more. */
  orphaned(): boolean;
}

/** How often the hook looks for an answer. */
export const POLL_MS = 250;
/** A dialog not yet marked `waiting` this long after the hook started is taken as answered elsewhere. */
export const WAITING_GRACE_MS = 10_000;

export type WaitResult = { answer: RequestAnswer; by: string } | { gone: string };

/**
 * Waits for an answer to request `id`: returns it, or why there will be none (the dialog
 * answered at the keyboard, the session gone, time spent). Pure but for `io`.
 */
export async function waitForAnswer(requests: ClaudeRequestStore, id: number, io: WaitIo, maxWaitMs: number): Promise<WaitResult> {
  const start = io.now();
  let sawWaiting = false;
  for (;;) {
    const row = requests.get(id);
    if (row?.answer) return { answer: row.answer, by: row.answeredBy || 'a person' };
    if (!row || row.closedAt) return { gone: 'closed' };
    if (io.orphaned()) return { gone: 'Claude Code stopped waiting for the hook' };
    const s = io.sessionStatus();
    if (!s) return { gone: 'the session ended' };
    if (s.status === 'waiting') sawWaiting = true;
    else if (sawWaiting || io.now() - start > WAITING_GRACE_MS) return { gone: 'answered in the session' };
    if (io.now() - start >= maxWaitMs) return { gone: 'no answer in time' };
    await io.sleep(POLL_MS);
  }
}

export interface PermissionHookDeps {
  store: Store;
  env: NodeJS.ProcessEnv;
  event: Record<string, unknown>;
  policy: () => Promise<{ policy: ApprovalPolicy; ctx: Parameters<typeof decide>[2] } | undefined>;
  wait: WaitIo;
  maxWaitMs: number;
  pid: number;
  write(text: string): void;
}

/** The hook's work once its input is read and its store open; returns what it printed, for tests. */
export async function answerPermission(d: PermissionHookDeps): Promise<RequestAnswer | undefined> {
  const sessionId = typeof d.event.session_id === 'string' ? d.event.session_id : '';
  const found = requestDetail(d.event);
  if (!sessionId || !found) return undefined;
  const jobDir = d.env.CLAUDE_JOB_DIR ?? '';
  const jobId = jobDir ? basename(jobDir) : '';
  const requests = new ClaudeRequestStore(d.store.db);
  const at = () => new Date(d.wait.now()).toISOString();
  const text = requestText(found.kind, found.detail);
  const id = requests.insert({ sessionId, jobId, kind: found.kind, request: found.detail, text, askedAt: at(), hookPid: d.pid });
  const taskDir = `claude:${sessionId}`;
  const session = jobId || sessionId.slice(0, 8);
  const event = (kind: 'approval' | 'needs_you', detail: Record<string, unknown>) => {
    try {
      d.store.events.insert({ at: at(), session, taskDir, kind, detail });
    } catch { /* the log is best effort here */ }
  };
  const finish = (answer: RequestAnswer, by: string): RequestAnswer => {
    requests.answer(id, answer, by, at());
    d.write(hookOutput(answer));
    requests.close(id, 'answered', at());
    return answer;
  };
  try {
    if (found.kind === 'permission') {
      const standing: SessionStanding = new ClaudeAdoptedStore(d.store.db).get(sessionId) ? 'adopted' : jobId ? 'background' : 'interactive';
      const req = hookRequest({ tool_name: found.detail.tool, tool_input: d.event.tool_input });
      const setup = standing === 'interactive' ? undefined : await d.policy().catch(() => undefined);
      const outcome = req && setup ? policyAnswer(req, standing, setup.policy, setup.ctx) : undefined;
      if (outcome && (outcome.decision === 'allow' || outcome.decision === 'deny')) {
        const answer: RequestAnswer = outcome.decision === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', message: refusalMessage(outcome.rule, outcome.reason) };
        event('approval', { decision: outcome.decision, rule: outcome.rule, reason: outcome.reason, tool: found.detail.tool, ...subject(found.detail), prompt: text, source: 'hook', keys: 'the answer through the PermissionRequest hook' });
        return finish(answer, outcome.rule);
      }
    }
    const waited = await waitForAnswer(requests, id, d.wait, d.maxWaitMs);
    if ('gone' in waited) {
      requests.close(id, waited.gone, at());
      return undefined;
    }
    event('approval', {
      decision: waited.answer.behavior, rule: waited.by, tool: found.detail.tool, ...subject(found.detail), prompt: text, source: 'hook',
      keys: 'the answer through the PermissionRequest hook', ...(found.kind === 'question' ? { question: true } : {}),
    });
    return finish(waited.answer, waited.by);
  } finally {
    requests.close(id, 'hook ended', at());
  }
}
