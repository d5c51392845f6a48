import type { ActionResult, ClaudeRowActions } from '../claudeSessions/rowActions.js';
import type { AnswerInput } from '../claudeSessions/service.js';
import type { ClaudeEntry } from '../claudeSessions/watch.js';
import type { Limits } from '../history/suggest.js';
import { spawnPtySession } from '../sessions/pty.js';
import { printable } from '../format/event.js';
import { lastLine, type CallResult } from './call.js';
import type { HostPoller } from './poller.js';
import { remoteCommand, terminalArgv, type SshConfig } from './ssh.js';

/**
 * What the dashboard does to a Claude Code session on another host: the same actions as
 * on this machine's (src/claudeSessions/rowActions.ts), each one call of that host's
 * autodeck over ssh (`autodeck claude stop|send|answer|logs|attach`, `autodeck adopt
 * --detach`), which does it there through Claude Code's own commands or autodeck's hook.
 * Pure words here; the calls are the poller's.
 */

/** The session as the host's autodeck names it: its full id when Claude Code gave one (never ambiguous), else its short id. */
export const remoteSessionId = (e: ClaudeEntry): string => e.session.sessionId || e.session.id;

export function stopWords(e: ClaudeEntry): string[] {
  return ['claude', 'stop', '--', remoteSessionId(e)];
}

export function sendWords(e: ClaudeEntry, prompt: string): string[] {
  return ['claude', 'send', '--', remoteSessionId(e), prompt];
}

export function answerWords(e: ClaudeEntry, input: AnswerInput): string[] {
  const how = input.text !== undefined ? ['--text', input.text]
    : input.decision === 'allow' ? ['--allow']
      : ['--deny', ...(input.message !== undefined ? ['--message', input.message] : [])];
  return ['claude', 'answer', ...how, '--', remoteSessionId(e)];
}

export function logsWords(e: ClaudeEntry): string[] {
  return ['claude', 'logs', '--', remoteSessionId(e)];
}

export function attachWords(e: ClaudeEntry): string[] {
  return ['claude', 'attach', '--', remoteSessionId(e)];
}

export function adoptWords(e: ClaudeEntry, limits: Partial<Limits>): string[] {
  return [
    'adopt', '--detach',
    ...(limits.maxIterations !== undefined ? ['--max-iterations', String(limits.maxIterations)] : []),
    ...(limits.timeoutMinutes !== undefined ? ['--timeout', String(limits.timeoutMinutes)] : []),
    '--', remoteSessionId(e),
  ];
}

/** An action's deadline: a send waits for the session to stop and to run again (up to 30 s each) there. */
export const SEND_DEADLINE_MS = 90_000;
export const CLAUDE_ACTION_DEADLINE_MS = 30_000;

/** What the hosts' model lends: the row of a key on another host, its poller, and a way to say things. */
export interface RemoteSessions {
  find(key: string): { poller: HostPoller; entry: ClaudeEntry; label: string } | undefined;
  /** Why no action can go to that host now, or undefined. */
  unreachable(poller: HostPoller): string | undefined;
  notice(text: string, tone: 'info' | 'error'): void;
  ssh: SshConfig;
}

/** What the host's autodeck said, as the line after an action. */
export function callOutcome(r: CallResult, done: string, refused: string): ActionResult {
  if (r.code === 0) return { ok: true, message: done };
  const said = lastLine(r.stderr).replace(/^autodeck( claude \w+)?: /, '');
  return { ok: false, message: printable(`${refused}: ${said || (r.timedOut ? 'no answer in time' : `exit ${r.code ?? 'unknown'}`)}`) };
}

/**
 * The dashboard's actions on Claude Code's sessions over every host: a row of this machine
 * goes to `local`, a row of another host to that host's autodeck.
 */
export function hostsClaudeActions(localActions: () => ClaudeRowActions | undefined, hosts: RemoteSessions): ClaudeRowActions {
  const notWatched: ActionResult = { ok: false, message: 'Claude Code sessions are not watched here' };
  const gone = (key: string): ActionResult => ({ ok: false, message: `no Claude Code session ${printable(key.split('\t').pop() ?? key)} now` });
  /** Runs the action in the background; what came of it is said as a notice, and the host read again. */
  const background = (r: NonNullable<ReturnType<RemoteSessions['find']>>, words: string[], done: string, refused: string): void => {
    void r.poller.run(words, CLAUDE_ACTION_DEADLINE_MS).then((res) => {
      const out = callOutcome(res, done, refused);
      hosts.notice(out.ok ? out.message ?? done : out.message, out.ok ? 'info' : 'error');
      r.poller.lookSoon();
    });
  };
  const reach = (key: string): NonNullable<ReturnType<RemoteSessions['find']>> | ActionResult => {
    const r = hosts.find(key);
    if (!r) return gone(key);
    const why = hosts.unreachable(r.poller);
    return why ? { ok: false, message: why } : r;
  };
  const isResult = (v: unknown): v is ActionResult => typeof v === 'object' && v !== null && 'ok' in v;
  const nameOf = (r: { entry: ClaudeEntry; label: string }): string => `${r.entry.session.id || r.entry.session.name || r.entry.session.sessionId.slice(0, 8)} on ${r.label}`;
  return {
    entry: (key) => hosts.find(key)?.entry ?? localActions()?.entry(key),
    adopt(key, limits) {
      if (!hosts.find(key)) return localActions() ? localActions()!.adopt(key, limits) : notWatched;
      const r = reach(key);
      if (isResult(r)) return r;
      background(r, adoptWords(r.entry, limits), `adopted ${nameOf(r)}: governed there`, `not adopted on ${r.label}`);
      return { ok: true, message: `adopting ${nameOf(r)}: at most ${limits.maxIterations ?? '(its setting)'} turns` };
    },
    async stop(key) {
      if (!hosts.find(key)) return localActions() ? localActions()!.stop(key) : notWatched;
      const r = reach(key);
      if (isResult(r)) return r;
      const out = callOutcome(await r.poller.run(stopWords(r.entry), CLAUDE_ACTION_DEADLINE_MS), 'stopped', `not stopped on ${r.label}`);
      r.poller.lookSoon();
      return out;
    },
    async send(key, prompt) {
      if (!hosts.find(key)) return localActions() ? localActions()!.send(key, prompt) : notWatched;
      const r = reach(key);
      if (isResult(r)) return r;
      const out = callOutcome(await r.poller.run(sendWords(r.entry, prompt), SEND_DEADLINE_MS), 'sent: it runs the prompt as its next turn, under its own id', `not sent on ${r.label}`);
      r.poller.lookSoon();
      return out;
    },
    answer(key, input) {
      if (!hosts.find(key)) return localActions() ? localActions()!.answer(key, input) : notWatched;
      const r = reach(key);
      if (isResult(r)) return r;
      if (!r.entry.request) return { ok: false, message: `${nameOf(r)} has no request autodeck's hook holds there (attach to answer it)` };
      const word = input.text !== undefined ? 'answered' : input.decision === 'allow' ? 'allowed' : 'refused';
      background(r, answerWords(r.entry, input), `${word}: ${nameOf(r)}`, `not answered on ${r.label}`);
      return { ok: true, message: `answering ${nameOf(r)}` };
    },
    attach(key) {
      if (!hosts.find(key)) return localActions() ? localActions()!.attach(key) : notWatched;
      const r = reach(key);
      if (isResult(r)) return r;
      if (!r.entry.session.id) return { ok: false, message: `${nameOf(r)} is an interactive session: it runs in its own terminal there` };
      if (!r.entry.view.live) return { ok: false, message: `${nameOf(r)} is not running; send it a prompt to wake it` };
      const program = r.poller.snapshot.program;
      if (!program) return { ok: false, message: `${r.label} has not been read yet` };
      // ssh -t in a terminal of autodeck's: the detach key closes it (the session runs on there)
      const argv = terminalArgv(hosts.ssh, r.poller.entry, remoteCommand(program, attachWords(r.entry)));
      const session = spawnPtySession({ name: `claude attach ${r.entry.session.id} on ${r.label}`, argv, cwd: process.cwd(), env: process.env as Record<string, string> });
      return { session, release: () => session.dispose() };
    },
    async screen(key) {
      if (!hosts.find(key)) return localActions() ? localActions()!.screen(key) : [];
      const r = reach(key);
      if (isResult(r) || !r.entry.session.id) return [];
      const res = await r.poller.run(logsWords(r.entry), CLAUDE_ACTION_DEADLINE_MS);
      // text the host's autodeck drew from the session's output: made printable again here
      return res.code === 0 ? res.stdout.replace(/\s+$/, '').split('\n').slice(0, 200).map((l) => printable(l)) : [];
    },
  };
}
