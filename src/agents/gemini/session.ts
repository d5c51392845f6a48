import { createHash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { MessageUsage } from '../../spend/usage.js';
import { STARTUP_MS, type AgentFiles, type AgentRecord, type UsageParser } from '../agentRecord.js';
import { isRecord, JsonlFollower, num, str } from '../jsonlFollower.js';

/**
 * Gemini CLI's session file, `<GEMINI_CLI_HOME or ~>/.gemini/tmp/<project>/chats/session-<date>-<id>.jsonl`
 * (test/fixtures/transcripts/gemini-0.61.0-*.jsonl, captured): a header line with the
 * session id and `projectHash` (the SHA-256 of the project's path), then one line per
 * message (`type` `user`, `gemini`, `info`), a later line with the same `id` updating it, and
 * `{"$set": {...}}` lines that replace fields (a cancelled turn rewrites `messages` whole).
 *
 * Read here: a turn runs while the newest message is the user's (a prompt or a tool's
 * result): busy. Anything else is left to the screen, whose spinner is reliable (a `gemini`
 * line is also written before a tool call waits for its approval). For spend: each `gemini`
 * message's `tokens` (`input` includes `cached`; `thoughts` are billed as output) and `model`.
 */

export function geminiHome(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return join(env.GEMINI_CLI_HOME && env.GEMINI_CLI_HOME !== '' ? env.GEMINI_CLI_HOME : home, '.gemini');
}

export interface GeminiFilesOptions {
  /** `<GEMINI_CLI_HOME or HOME>/.gemini`. */
  geminiHome: string;
  cwd: string;
  sinceMs: number;
  now?: () => number;
}

const LOCATE_EVERY_MS = 5_000;
/** How long after the model's answer is written its screen is taken as still busy. */
export const ANSWER_SETTLE_MS = 3_000;

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The session files of the project at `cwd` written at or after `sinceMs`, newest first. */
export function findSessions(opts: GeminiFilesOptions, sinceMs = opts.sinceMs): string[] {
  const root = join(opts.geminiHome, 'tmp');
  const hash = createHash('sha256').update(real(opts.cwd)).digest('hex');
  const out: { path: string; mtimeMs: number }[] = [];
  let projects: string[];
  try {
    projects = readdirSync(root);
  } catch {
    return [];
  }
  for (const project of projects) {
    const chats = join(root, project, 'chats');
    let names: string[];
    try {
      names = readdirSync(chats);
    } catch {
      continue;
    }
    for (const n of names) {
      if (!n.startsWith('session-') || !n.endsWith('.jsonl')) continue;
      const path = join(chats, n);
      try {
        const st = statSync(path);
        if (st.isFile() && st.mtimeMs >= sinceMs && headerHash(path) === hash) out.push({ path, mtimeMs: st.mtimeMs });
      } catch { /* removed meanwhile */ }
    }
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs).map((o) => o.path);
}

function headerHash(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(16 * 1024);
    const got = readSync(fd, buf, 0, buf.length, 0);
    const nl = buf.indexOf(0x0a);
    const head = JSON.parse(buf.toString('utf8', 0, nl < 0 ? got : nl)) as unknown;
    return isRecord(head) ? str(head.projectHash) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The context the CLI puts first in every conversation (`<session_context>` …), as a `user`
 * message, when it starts and again when its chat is reset: no prompt, no turn.
 */
function isSetup(m: Record<string, unknown>): boolean {
  if (m.type !== 'user' || !Array.isArray(m.content)) return false;
  const first = (m.content as unknown[])[0];
  return isRecord(first) && typeof first.text === 'string' && first.text.trimStart().startsWith('<session_context>');
}

/** The type of the newest message, line by line (a `$set` of `messages` replaces them all). */
export class SessionState {
  last: string | undefined;
  /** When the newest message was written. */
  at: number | undefined;

  take(entries: readonly Record<string, unknown>[]): void {
    for (const e of entries) {
      if (isRecord(e.$set)) {
        const messages = e.$set.messages;
        if (Array.isArray(messages)) {
          const m = (messages as unknown[]).filter((x) => !isRecord(x) || !isSetup(x)).at(-1);
          this.last = isRecord(m) ? str(m.type) : undefined;
          const at = isRecord(m) ? Date.parse(str(m.timestamp) ?? '') : NaN;
          this.at = Number.isFinite(at) ? at : undefined;
        }
        continue;
      }
      const type = str(e.type);
      if (type && str(e.id) && !isSetup(e)) {
        this.last = type;
        const at = Date.parse(str(e.timestamp) ?? '');
        this.at = Number.isFinite(at) ? at : this.at;
      }
    }
  }

  get state(): AgentRecord['state'] {
    return this.last === 'user' ? 'busy' : undefined;
  }
}

/** Usage per `gemini` message id (a later line of the same id replaces the earlier). */
export class SessionUsage implements UsageParser {
  take(entries: readonly Record<string, unknown>[], into: Map<string, MessageUsage>): void {
    for (const e of entries) {
      if (e.type !== 'gemini' || !isRecord(e.tokens)) continue;
      const id = str(e.id);
      if (!id) continue;
      const t = e.tokens;
      const cached = num(t.cached);
      into.set(id, {
        id,
        model: str(e.model) ?? '',
        tokens: { input: Math.max(0, num(t.input) - cached) + num(t.tool), output: num(t.output) + num(t.thoughts), cacheWrite: 0, cacheWrite1h: 0, cacheRead: cached },
        ...(str(e.timestamp) ? { at: str(e.timestamp)! } : {}),
      });
    }
  }
}

/** A Gemini CLI agent's newest session file for its project. */
export class GeminiFiles implements AgentFiles {
  private path: string | undefined;
  private follower: JsonlFollower | undefined;
  private state = new SessionState();
  private lookedAt = -Infinity;
  /** The agent process first asked about, and when (its start-up, as far as this reader knows). */
  private agent: { pid: number | undefined; since: number } | undefined;

  constructor(private readonly opts: GeminiFilesOptions) {}

  readonly spend = {
    locate: (sinceMs: number): string | undefined => findSessions(this.opts, sinceMs)[0],
    parser: (): UsageParser => new SessionUsage(),
  };

  record(pid?: number): AgentRecord | undefined {
    const now = (this.opts.now ?? Date.now)();
    const agent = this.agent !== undefined && this.agent.pid === pid ? this.agent : (this.agent = { pid, since: now });
    if (!this.path || now - this.lookedAt >= LOCATE_EVERY_MS) {
      this.lookedAt = now;
      const found = findSessions(this.opts)[0];
      if (found && found !== this.path) {
        this.path = found;
        this.follower = new JsonlFollower(found);
        this.state = new SessionState();
      }
    }
    const starting = now - agent.since < STARTUP_MS;
    if (!this.follower) return starting ? { state: 'busy' } : undefined;
    const { entries, restarted } = this.follower.update();
    if (restarted) this.state = new SessionState();
    this.state.take(entries);
    // the CLI writes the file's header as it starts, its first message only once it takes the prompt it was started with
    if (this.state.last === undefined && starting) return { state: 'busy' };
    // the model's answer is written as its stream ends, before the CLI draws the tool calls in
    // it: for a moment the screen shows neither a spinner nor a confirmation
    const since = this.state.at === undefined ? undefined : now - this.state.at;
    if (this.state.last === 'gemini' && since !== undefined && since >= 0 && since < ANSWER_SETTLE_MS) return { state: 'busy', at: this.state.at };
    return { state: this.state.state, at: this.state.at };
  }
}
