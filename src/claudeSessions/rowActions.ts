import { xterm } from '../lazy.js';
import { spawnPtySession } from '../sessions/pty.js';
import type { Session } from '../sessions/session.js';
import { ActionError } from './actions.js';
import { AdoptError } from './adoption.js';
import { runProgram } from './reader.js';
import type { AnswerInput, ClaudeService } from './service.js';
import type { ClaudeEntry } from './watch.js';

/**
 * What the dashboard does to a Claude Code session's row (its key: `claude:<session key>`),
 * each as one call that ends in an outcome to show: adopt, stop, send a prompt, answer the
 * open request, attach (`claude attach` in a terminal of autodeck's, left with autodeck's
 * detach key), and the session's recent screen (`claude logs`, drawn by an emulator so no
 * byte of it reaches the terminal).
 */

export type ActionResult = { ok: true; message?: string } | { ok: false; message: string };

export interface ClaudeRowActions {
  entry(key: string): ClaudeEntry | undefined;
  adopt(key: string, limits: { maxIterations?: number; timeoutMinutes?: number }): ActionResult;
  stop(key: string): Promise<ActionResult>;
  send(key: string, prompt: string): Promise<ActionResult>;
  answer(key: string, input: AnswerInput): ActionResult;
  /** A terminal running `claude attach <id>`, for attach mode; `release` ends it (the session runs on). */
  attach(key: string): { session: Session; release: () => void } | ActionResult;
  /** The session's recent screen as text lines (`claude logs <id>`); [] when there is none. */
  screen(key: string): Promise<string[]>;
}

export const CLAUDE_ROW_PREFIX = 'claude:';

export const isClaudeKey = (key: string): boolean => key.startsWith(CLAUDE_ROW_PREFIX);

function fail(err: unknown): ActionResult {
  if (err instanceof ActionError || err instanceof AdoptError) return { ok: false, message: err.message };
  return { ok: false, message: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
}

/** The size of a background session's own terminal (its daemon's pty): `claude logs` is drawn for it. */
const LOG_COLS = 200;
const LOG_ROWS = 50;

/** Raw terminal output as the lines a terminal of that size would show. */
export function renderScreen(raw: string, cols = LOG_COLS, rows = LOG_ROWS): Promise<string[]> {
  const term = new (xterm().Terminal)({ cols, rows, scrollback: 0, allowProposedApi: true });
  return new Promise((resolve) => {
    term.write(raw, () => {
      const buf = term.buffer.active;
      const lines: string[] = [];
      for (let y = 0; y < buf.length; y++) lines.push(buf.getLine(y)?.translateToString(true) ?? '');
      while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
      term.dispose();
      resolve(lines);
    });
  });
}

/** `claude logs <id>`: the session's recent raw output, drawn as text lines (none of its escape sequences pass); no lines when it failed. */
export async function sessionScreen(program: string, shortId: string, env: NodeJS.ProcessEnv): Promise<{ code: number; lines: string[] }> {
  const r = await runProgram(program, ['logs', shortId], { env, timeoutMs: 10_000 });
  return { code: r.code, lines: r.code === 0 ? await renderScreen(r.stdout) : [] };
}

export function claudeRowActions(service: ClaudeService, env: NodeJS.ProcessEnv = process.env): ClaudeRowActions {
  const id = (key: string): string => key.slice(CLAUDE_ROW_PREFIX.length);
  return {
    entry: (key) => service.find(id(key)),
    adopt(key, limits) {
      try {
        const row = service.adopt(id(key), limits);
        return { ok: true, message: `adopted ${row.name || row.shortId}: at most ${row.maxIterations} turns, ${row.timeoutMinutes} min` };
      } catch (err) {
        return fail(err);
      }
    },
    async stop(key) {
      try {
        await service.stop(id(key));
        return { ok: true, message: 'stopped' };
      } catch (err) {
        return fail(err);
      }
    },
    async send(key, prompt) {
      try {
        await service.send(id(key), prompt);
        return { ok: true, message: 'sent: it runs the prompt as its next turn, under its own id' };
      } catch (err) {
        return fail(err);
      }
    },
    answer(key, input) {
      try {
        const a = service.answer(id(key), input, 'a person in the dashboard');
        return { ok: true, message: a.updatedInput ? 'answered' : a.behavior === 'allow' ? 'allowed' : 'refused' };
      } catch (err) {
        return fail(err);
      }
    },
    attach(key) {
      try {
        const { argv, cwd } = service.attachArgv(id(key));
        const session = spawnPtySession({ name: `claude attach ${argv[2] ?? ''}`, argv, cwd: cwd || process.cwd(), env: env as Record<string, string> });
        return { session, release: () => session.dispose() };
      } catch (err) {
        return fail(err);
      }
    },
    async screen(key) {
      const e = service.find(id(key));
      if (!e?.session.id) return [];
      try {
        return (await sessionScreen(service.program, e.session.id, env)).lines;
      } catch {
        return [];
      }
    },
  };
}
