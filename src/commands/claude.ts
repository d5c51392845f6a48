import { Store } from '../store/index.js';
import { CliError, EXIT, line, type CommandContext } from './context.js';
import { printable } from '../format/event.js';
import { claudeConfigDir } from '../claudeSessions/files.js';
import { claudeProgram, claudeSessionJson, readClaudeSessions } from '../claudeSessions/json.js';
import { ActionError, attachArgv, removeSession, sendPrompt, stopSession, type ActionContext } from '../claudeSessions/actions.js';
import { ClaudeRequestStore } from '../claudeSessions/requests.js';
import { answerOpenRequest } from '../claudeSessions/service.js';
import { sessionScreen } from '../claudeSessions/rowActions.js';
import type { ClaudeEntry } from '../claudeSessions/watch.js';
import { childProcess } from '../lazy.js';

/**
 * `autodeck claude [ACTION ID]`: Claude Code's own sessions on this machine, from a shell
 * or a script, and what a dashboard on another machine asks of them over ssh. Without an
 * action, the list (as `status` shows it). Each action goes through Claude Code's own
 * commands or autodeck's PermissionRequest hook, as in the dashboard (docs/claude-sessions.md).
 */

export const CLAUDE_ACTIONS = ['list', 'stop', 'rm', 'send', 'answer', 'logs', 'attach'] as const;
type Action = (typeof CLAUDE_ACTIONS)[number];

/** Who answered, as the model and the log read it. */
const ANSWERED_BY = 'a person through autodeck';

function exitOf(err: ActionError): number {
  return err.kind === 'conflict' ? EXIT.conflict : err.kind === 'refused' ? EXIT.usage : EXIT.other;
}

export async function claude(ctx: CommandContext): Promise<number> {
  const [word = 'list', id, ...rest] = ctx.args;
  if (!(CLAUDE_ACTIONS as readonly string[]).includes(word)) {
    throw new CliError(`autodeck claude: ${JSON.stringify(word.slice(0, 40))} is not an action (${CLAUDE_ACTIONS.join(', ')})`);
  }
  const action = word as Action;
  if (action !== 'list' && !id) throw new CliError(`autodeck claude ${action}: name the session: its short id as claude agents lists it, or its full session id`);
  if (action === 'send' && rest.join(' ').trim() === '') throw new CliError('autodeck claude send: the prompt is missing (autodeck claude send ID -- "the prompt")');
  if (action !== 'send' && rest.length > 0) throw new CliError(`autodeck claude ${action}: one session id, not ${ctx.args.length - 1} words`);
  const env = process.env;
  const program = claudeProgram(ctx.settings.agent);
  const actions: ActionContext = { program, configDir: claudeConfigDir(env), env };
  const store = Store.open(ctx.settings.db);
  try {
    const { entries, note } = await readClaudeSessions(store, program, env);
    if (action === 'list') {
      const now = Date.now();
      if (ctx.flags.json === true) {
        line(ctx.stdout, JSON.stringify({ claudeSessions: entries.map((e) => claudeSessionJson(e, now)), ...(note ? { claudeNote: note } : {}) }, null, 2));
      } else {
        const { claudeStatus } = await import('../claudeSessions/status.js');
        const { lines } = await claudeStatus(store, ctx.settings.agent, now, env);
        for (const text of lines.length > 0 ? lines.slice(1) : ['No Claude Code sessions.']) line(ctx.stdout, text);
      }
      return EXIT.ok;
    }
    const entry = entries.find((e) => e.session.key === id || e.session.sessionId === id || (e.session.id !== '' && e.session.id === id));
    if (!entry) throw new CliError(printable(`autodeck claude ${action}: no Claude Code session ${id!.slice(0, 100)}${note ? ` (${note})` : ''}`), EXIT.other);
    return await act(ctx, action, entry, rest.join(' '), actions, store);
  } catch (err) {
    if (err instanceof ActionError) throw new CliError(printable(`autodeck claude ${action}: ${err.message}`), exitOf(err));
    throw err;
  } finally {
    store.close();
  }
}

async function act(ctx: CommandContext, action: Exclude<Action, 'list'>, e: ClaudeEntry, prompt: string, actions: ActionContext, store: Store): Promise<number> {
  const name = e.session.id || e.session.sessionId;
  switch (action) {
    case 'stop':
      await stopSession(actions, e.session);
      line(ctx.stderr, printable(`autodeck: stopped ${name}`));
      return EXIT.ok;
    case 'rm':
      await removeSession(actions, e.session);
      line(ctx.stderr, printable(`autodeck: removed ${name} from Claude Code's list`));
      return EXIT.ok;
    case 'send':
      await sendPrompt(actions, e.session, prompt);
      line(ctx.stderr, printable(`autodeck: sent to ${name}: it runs the prompt as its next turn, under its own id`));
      return EXIT.ok;
    case 'answer': {
      const allow = ctx.flags.allow === true;
      const deny = ctx.flags.deny === true;
      const text = typeof ctx.flags.text === 'string' ? ctx.flags.text : undefined;
      if ([allow, deny, text !== undefined].filter(Boolean).length !== 1) throw new CliError('autodeck claude answer: say one of --allow, --deny [--message WHY] or --text ANSWER');
      const message = typeof ctx.flags.message === 'string' ? ctx.flags.message : undefined;
      const a = answerOpenRequest(new ClaudeRequestStore(store.db), e, {
        ...(allow ? { decision: 'allow' as const } : deny ? { decision: 'deny' as const, ...(message !== undefined ? { message } : {}) } : {}),
        ...(text !== undefined ? { text } : {}),
      }, ANSWERED_BY);
      line(ctx.stderr, printable(`autodeck: ${a.updatedInput ? 'answered' : a.behavior === 'allow' ? 'allowed' : 'refused'} ${name}'s request`));
      return EXIT.ok;
    }
    case 'logs': {
      // drawn by an emulator into text: none of the session's escape sequences reach this terminal
      if (!e.session.id) throw new ActionError('refused', `${name}: an interactive session has no log of its own; look at its terminal`);
      const { code, lines } = await sessionScreen(actions.program, e.session.id, actions.env);
      if (code !== 0) throw new ActionError('failed', `claude logs ${e.session.id} exited ${code}`);
      for (const l of lines) line(ctx.stdout, printable(l));
      return EXIT.ok;
    }
    case 'attach': {
      if (!e.view.live) throw new ActionError('conflict', `${name} is not running; send it a prompt to wake it`);
      const argv = attachArgv(actions.program, e.session);
      // attach mode: the session's own terminal, on this one, until its client ends
      return new Promise<number>((resolve) => {
        const child = childProcess().spawn(argv[0]!, argv.slice(1), { stdio: 'inherit', cwd: e.session.cwd || ctx.cwd, env: actions.env });
        child.on('error', (err) => {
          line(ctx.stderr, printable(`autodeck claude attach: ${err.message}`));
          resolve(EXIT.other);
        });
        child.on('exit', (code) => resolve(code ?? EXIT.other));
      });
    }
  }
}
