import { runProgram, type RunProgram } from './reader.js';
import { listClaudeSessions } from './reader.js';
import type { ClaudeSession } from './listing.js';
import { isLive } from './view.js';
import { atLeast, parseVersion, type Semver } from '../agents/claudeVersion.js';

/**
 * What autodeck does to a Claude Code session, always through Claude Code's own commands
 * (docs/claude-sessions.md): `claude stop <id>`, `claude rm <id>`, `claude attach <id>`, and
 * a prompt sent by `claude stop` then `claude --bg --resume <full id> <prompt>`, which
 * continues the same session (same id, same transcript). A short id, or the full id of a
 * session still running, would start a copy instead: never done here. Nothing is typed into
 * a session's terminal, and the daemon is never restarted.
 */

export interface ActionContext {
  program: string;
  configDir: string;
  env: NodeJS.ProcessEnv;
  run?: RunProgram;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** A refused or failed action, with the exit code / HTTP status it maps to. */
export class ActionError extends Error {
  constructor(readonly kind: 'refused' | 'conflict' | 'failed' | 'not_found', message: string) {
    super(message);
    this.name = 'ActionError';
  }
}

const ACTION_TIMEOUT_MS = 60_000;

async function claude(ctx: ActionContext, args: string[], cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = ctx.run ?? runProgram;
  try {
    return await run(ctx.program, args, { env: ctx.env, timeoutMs: ACTION_TIMEOUT_MS, ...(cwd ? { cwd } : {}) });
  } catch (err) {
    throw new ActionError('failed', `${ctx.program} ${args[0]}: ${(err as Error).message.split('\n')[0]}`);
  }
}

function firstLine(r: { stdout: string; stderr: string }): string {
  return (r.stderr.trim() || r.stdout.trim()).split('\n')[0]?.slice(0, 200) ?? '';
}

/** Why a session cannot be driven through its short id: an interactive one runs in someone's terminal. */
function backgroundOnly(s: ClaudeSession, what: string): void {
  if (!s.id) throw new ActionError('refused', `${s.name || s.sessionId}: an interactive session runs in its own terminal; ${what} it there`);
}

/** `claude stop <id>`: the session ends, its conversation is kept. */
export async function stopSession(ctx: ActionContext, s: ClaudeSession): Promise<void> {
  backgroundOnly(s, 'stop');
  if (!isLive(s)) throw new ActionError('conflict', `${s.id} is not running (${s.state ?? 'ended'})`);
  const r = await claude(ctx, ['stop', s.id]);
  if (r.code !== 0) throw new ActionError('failed', `claude stop ${s.id} exited ${r.code}: ${firstLine(r)}`);
}

/** `claude rm <id>`: removes an ended session from Claude Code's list (its conversation stays resumable). */
export async function removeSession(ctx: ActionContext, s: ClaudeSession): Promise<void> {
  backgroundOnly(s, 'end');
  if (isLive(s)) throw new ActionError('conflict', `${s.id} is still running: stop it first`);
  const r = await claude(ctx, ['rm', s.id]);
  if (r.code !== 0) throw new ActionError('failed', `claude rm ${s.id} exited ${r.code}: ${firstLine(r)}`);
}

/** The argv that opens a background session in a terminal (autodeck's detach key leaves it). */
export function attachArgv(program: string, s: ClaudeSession): string[] {
  backgroundOnly(s, 'use');
  return [program, 'attach', s.id];
}

/**
 * The first release seen to continue a stopped background session under its own id
 * (`claude --bg --resume <full id>`); 2.1.197 starts a copy instead (a new id and
 * transcript), so a prompt cannot be sent there without one.
 */
export const RESUMES_IN_PLACE_SINCE = '2.1.332';

const versions = new Map<string, Promise<Semver | undefined>>();

/** `claude --version`, asked once per program. */
export function claudeVersion(ctx: ActionContext): Promise<Semver | undefined> {
  let v = versions.get(ctx.program);
  if (!v) {
    v = claude(ctx, ['--version']).then((r) => parseVersion(r.stdout), () => undefined);
    versions.set(ctx.program, v);
  }
  return v;
}

/** How long a stop may take to show in Claude Code's list before the send gives up. */
const STOPPED_WITHIN_MS = 30_000;
/** How long a resumed session may take to be listed running again (a loaded machine: seconds). */
const RUNNING_WITHIN_MS = 30_000;

/**
 * Sends `prompt` to a background session as its next turn, under its own full id. The
 * session must be idle (or ended): a busy one, or one waiting on a person, is refused (a
 * prompt typed there would be queued as a message, or answer the wrong dialog). Returns the
 * session's short id (unchanged). A copy, should Claude Code start one, is stopped and
 * removed, and the send reported as failed.
 */
export async function sendPrompt(ctx: ActionContext, s: ClaudeSession, prompt: string): Promise<string> {
  backgroundOnly(s, 'type');
  if (!s.sessionId) throw new ActionError('refused', `${s.id}: Claude Code listed no full session id, and a short id would start a copy`);
  if (prompt.trim() === '') throw new ActionError('refused', 'the prompt is empty');
  const version = await claudeVersion(ctx);
  if (version && !atLeast(version, RESUMES_IN_PLACE_SINCE)) {
    throw new ActionError('refused', `Claude Code ${version.join('.')} continues a background session only as a copy (a new id); `
      + `nothing was sent. Attach and type it, or update Claude Code (${RESUMES_IN_PLACE_SINCE} continues it under its own id)`);
  }
  if (s.status === 'busy') throw new ActionError('conflict', `${s.id} is busy with a turn; send when it is idle (refused, not queued)`);
  if (s.status === 'waiting') throw new ActionError('conflict', `${s.id} waits on ${s.waitingFor ?? 'a person'}; answer that first`);
  const sleep = ctx.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = ctx.now ?? Date.now;
  const listedLive = async (): Promise<boolean> => {
    const listed = await listClaudeSessions({ program: ctx.program, configDir: ctx.configDir, env: ctx.env, ...(ctx.run ? { run: ctx.run } : {}) }).catch(() => undefined);
    const again = listed?.sessions.find((x) => x.sessionId === s.sessionId);
    return again !== undefined && isLive(again);
  };
  if (isLive(s)) {
    await stopSession(ctx, s);
    const deadline = now() + STOPPED_WITHIN_MS;
    while (await listedLive()) {
      if (now() > deadline) throw new ActionError('failed', `${s.id} did not stop within ${STOPPED_WITHIN_MS / 1000} s; nothing was sent`);
      await sleep(250);
    }
  }
  // `--` ends the options: a prompt that starts with `-` is a prompt, not a flag
  const r = await claude(ctx, ['--bg', '--resume', s.sessionId, '--', prompt], s.cwd || undefined);
  const started = /backgrounded\s*·\s*([0-9a-f]{6,})/i.exec(r.stdout)?.[1];
  if (r.code !== 0 || !started) throw new ActionError('failed', `claude --bg --resume exited ${r.code}: ${firstLine(r)}`);
  if (started !== s.id) {
    await claude(ctx, ['stop', started]).catch(() => undefined);
    await claude(ctx, ['rm', started]).catch(() => undefined);
    throw new ActionError('failed', `Claude Code started a copy (${started}) instead of continuing ${s.id}; the copy was stopped and removed`);
  }
  // `--bg` returns before the daemon has the session running again: until Claude Code lists
  // it running, whoever looks would take it for stopped (an adoption would end there)
  const deadline = now() + RUNNING_WITHIN_MS;
  while (!(await listedLive()) && now() <= deadline) await sleep(250);
  return started;
}
