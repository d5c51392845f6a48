import type { Store } from '../store/index.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import type { LoopEvent } from '../store/events.js';
import type { ModelPrice } from '../spend/prices.js';
import { claudeConfigDir } from './files.js';
import { ClaudeWatch, type ClaudeEntry } from './watch.js';
import { ClaudeGovernor, adoptSession, type AdoptLimits } from './adoption.js';
import { ActionError, attachArgv, removeSession, sendPrompt, stopSession, type ActionContext } from './actions.js';
import { ClaudeRequestStore, questionAnswer, type RequestAnswer } from './requests.js';
import { refusalMessage } from './permissionHook.js';
import type { AdoptedRow } from './adopted.js';
import { claudeProgram } from './json.js';

/**
 * Claude Code's own sessions for a supervising autodeck (the dashboard, `serve`): the
 * watch that lists them, the governor of adopted ones, and the actions the dashboard and
 * the API take on them. Started on the supervisor's tick; its events go out as the
 * supervisor's, so notifications, `run --json` and the API's event stream carry them.
 */

export interface ClaudeServiceOptions {
  supervisor: Supervisor;
  store: Store;
  settings: {
    agent: readonly string[];
    maxIterations: number;
    timeoutMinutes: number;
    maxTokens: number;
    maxCostUsd: number;
    quotaProbeMinutes: number;
    prices?: Readonly<Record<string, ModelPrice>> | undefined;
  };
  env?: NodeJS.ProcessEnv;
  /** Take over adoptions whose autodeck died (the dashboard, `serve`). */
  takeOrphans?: boolean;
  /** Govern only these adopted sessions (`autodeck adopt`). */
  only?: ReadonlySet<string>;
}

/** The message a session gets when autodeck sends it on after its usage limit reset. */
export const CONTINUATION_MESSAGE = 'Please continue with the task from where you left off.';

/** A person's (or a script's) answer to an open request. */
export interface AnswerInput {
  /** A permission: allow or deny. */
  decision?: 'allow' | 'deny';
  /** Why, for a deny (told to the model). */
  message?: string;
  /** A question: one answer for every question, or per question text. */
  text?: string;
  answers?: Record<string, string>;
}

const services = new WeakMap<Supervisor, ClaudeService>();

/** The service started for this supervisor, if any (the API's routes find it here). */
export function claudeServiceOf(supervisor: Supervisor): ClaudeService | undefined {
  return services.get(supervisor);
}

export class ClaudeService {
  readonly watch: ClaudeWatch;
  readonly governor: ClaudeGovernor;
  readonly actions: ActionContext;
  readonly program: string;
  private readonly requests: ClaudeRequestStore;
  private readonly onTick = (): void => this.governor.step();
  private readonly onEvent = (e: LoopEvent): void => {
    try {
      this.o.supervisor.emit('event', e);
    } catch { /* a listener's failure must not stop the watch (the event is in the log) */ }
  };

  constructor(private readonly o: ClaudeServiceOptions) {
    const env = o.env ?? process.env;
    const configDir = claudeConfigDir(env);
    this.program = claudeProgram(o.settings.agent);
    this.actions = { program: this.program, configDir, env };
    this.requests = new ClaudeRequestStore(o.store.db);
    this.watch = new ClaudeWatch({ store: o.store, program: this.program, env, configDir, loopPids: () => this.loopPids() }, o.supervisor);
    this.watch.on('event', this.onEvent);
    this.governor = new ClaudeGovernor({
      store: o.store, watch: this.watch, actions: this.actions, configDir, host: o.supervisor.host, pid: o.supervisor.pid,
      continuationMessage: CONTINUATION_MESSAGE, prices: o.settings.prices, takeOrphans: o.takeOrphans ?? false,
      ...(o.only ? { only: o.only } : {}), emit: this.onEvent,
    });
    o.supervisor.on('tick', this.onTick);
    services.set(o.supervisor, this);
    this.watch.look();
  }

  /** Pids of autodeck's loops' agents (this process's and others'), so their sessions are not shown twice. */
  private loopPids(): Map<number, string> {
    const out = new Map<number, string>();
    for (const loop of this.o.supervisor.active()) if (loop.row.agentPid !== null) out.set(loop.row.agentPid, loop.taskDir);
    try {
      for (const row of this.o.store.loops.list()) if (row.agentPid !== null) out.set(row.agentPid, row.taskDir);
    } catch { /* locked: own loops are enough for now */ }
    return out;
  }

  entries(): readonly ClaudeEntry[] {
    return this.watch.snapshot().entries;
  }

  find(id: string): ClaudeEntry | undefined {
    return this.watch.find(id);
  }

  private need(id: string): ClaudeEntry {
    const e = this.watch.find(id);
    if (!e) throw new ActionError('not_found', `no Claude Code session ${id}`);
    return e;
  }

  async stop(id: string): Promise<void> {
    const e = this.need(id);
    await stopSession(this.actions, e.session);
    await this.watch.refresh();
  }

  async remove(id: string): Promise<void> {
    const e = this.need(id);
    await removeSession(this.actions, e.session);
    await this.watch.refresh();
  }

  /** Sends a prompt under the session's own id; refused while it is busy or waits on a person. */
  async send(id: string, prompt: string): Promise<string> {
    const e = this.need(id);
    return this.watch.during(e.session.sessionId || e.session.key, () => sendPrompt(this.actions, e.session, prompt));
  }

  attachArgv(id: string): { argv: string[]; cwd: string } {
    const e = this.need(id);
    if (!e.view.live) throw new ActionError('conflict', `${e.session.id || id} is not running; send it a prompt to wake it`);
    return { argv: attachArgv(this.program, e.session), cwd: e.session.cwd };
  }

  /**
   * Answers the request autodeck's PermissionRequest hook holds open for the session;
   * its hook hands the answer to Claude Code at once. A session with no open request
   * (no hook in its project, or the dialog answered meanwhile) is refused.
   */
  answer(id: string, input: AnswerInput, by: string): RequestAnswer {
    const answer = answerOpenRequest(this.requests, this.need(id), input, by);
    this.watch.invalidate();
    return answer;
  }

  adopt(id: string, limits: Partial<AdoptLimits> = {}): AdoptedRow {
    const s = this.o.settings;
    const row = adoptSession(this.o.store, this.watch.find(id), {
      maxIterations: limits.maxIterations ?? s.maxIterations,
      timeoutMinutes: limits.timeoutMinutes ?? s.timeoutMinutes,
      settings: { maxTokens: s.maxTokens, maxCostUsd: s.maxCostUsd, quotaProbeMinutes: s.quotaProbeMinutes, ...limits.settings },
    }, { pid: this.o.supervisor.pid, host: this.o.supervisor.host }, Date.now());
    this.watch.invalidate();
    this.watch.look();
    return row;
  }

  close(): void {
    this.o.supervisor.off('tick', this.onTick);
    this.watch.off('event', this.onEvent);
    this.watch.close();
    this.governor.close();
    services.delete(this.o.supervisor);
  }
}

/**
 * Answers the request autodeck's PermissionRequest hook holds open for the session; its
 * hook hands the answer to Claude Code at once. A session with no open request (no hook in
 * its project, or the dialog answered meanwhile) is refused; the first answer wins.
 */
export function answerOpenRequest(requests: ClaudeRequestStore, e: ClaudeEntry, input: AnswerInput, by: string): RequestAnswer {
  const name = e.session.id || e.session.sessionId;
  const open = e.request;
  if (!open) {
    const waiting = e.view.phase === 'needs_you';
    throw new ActionError('conflict', waiting
      ? `${name} waits on a dialog autodeck's hook does not hold (run "autodeck init" in its project, then answer the next one here; attach to answer this one)`
      : `${name} has no open request`);
  }
  let answer: RequestAnswer;
  if (open.kind === 'question') {
    try {
      answer = questionAnswer(open.request, { ...(input.text !== undefined ? { text: input.text } : {}), ...(input.answers ? { answers: input.answers } : {}) });
    } catch (err) {
      throw new ActionError('refused', (err as Error).message);
    }
  } else if (input.decision === 'allow') answer = { behavior: 'allow' };
  else if (input.decision === 'deny') answer = { behavior: 'deny', message: refusalMessage(by, input.message?.trim() || 'a person said no') };
  else throw new ActionError('refused', 'a permission is answered with decision "allow" or "deny"');
  if (!requests.answer(open.id, answer, by, new Date().toISOString())) throw new ActionError('conflict', 'that request was answered or closed meanwhile');
  return answer;
}

export function startClaudeService(o: ClaudeServiceOptions): ClaudeService {
  return new ClaudeService(o);
}
