import { readdirSync, readSync, openSync, closeSync, statSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalRequest } from '../../policy/parse.js';
import { printableLine } from '../../policy/printable.js';
import type { MessageUsage } from '../../spend/usage.js';
import { STARTUP_MS, type AgentFiles, type AgentRecord, type UsageParser } from '../agentRecord.js';
import { isRecord, JsonlFollower, num, str } from '../jsonlFollower.js';
import { openFilesOf } from '../procFiles.js';
import { findQuotaMessage } from '../quota.js';

/**
 * Codex CLI's session rollout, `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
 * (CODEX_HOME defaults to `~/.codex`): one `{timestamp, type, payload}` per line, written as
 * things happen (test/fixtures/transcripts/codex-0.171.0-*.jsonl, captured). Read here:
 * `event_msg` `task_started` / `task_complete` / `turn_aborted` (a turn runs between them; a
 * `task_complete` with `error.codex_error_info: "usage_limit_exceeded"` is a usage-limit
 * stop), `response_item` `function_call` without its `function_call_output` yet (the tool call
 * the turn is on: `exec_command` with its whole `cmd`), and `event_msg` `token_count`
 * (`info.total_token_usage`, the session's running total) for spend.
 *
 * The file of the agent's own process is the one it holds open (/proc, Linux); elsewhere the
 * newest rollout of the agent's working directory written since the loop started.
 */

export function codexHome(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return env.CODEX_HOME && env.CODEX_HOME !== '' ? env.CODEX_HOME : join(home, '.codex');
}

const ROLLOUT = /\/rollout-[^/]*\.jsonl$/;
/** Looked for again this often at most: the agent keeps one file per session. */
const LOCATE_EVERY_MS = 5_000;

export interface CodexFilesOptions {
  /** `$CODEX_HOME` or `~/.codex`. */
  codexHome: string;
  /** The agent's working directory (a rollout's `session_meta.cwd`). */
  cwd: string;
  /** The loop's start (wall clock, ms): older rollouts are another session's. */
  sinceMs: number;
  now?: () => number;
}

/** The rollout files under `sessions` written at or after `sinceMs` for `cwd`, newest first. */
export function findRollouts(opts: CodexFilesOptions, sinceMs = opts.sinceMs): string[] {
  const root = join(opts.codexHome, 'sessions');
  const out: { path: string; mtimeMs: number }[] = [];
  const cwd = real(opts.cwd);
  // the date folders of the days since the loop started (local and UTC dates both: a day either side)
  const days = new Set<string>();
  const now = (opts.now ?? Date.now)();
  for (let t = sinceMs - 86_400_000; t <= now + 86_400_000; t += 43_200_000) {
    const d = new Date(t);
    days.add(join(String(d.getFullYear()), pad(d.getMonth() + 1), pad(d.getDate())));
    days.add(join(String(d.getUTCFullYear()), pad(d.getUTCMonth() + 1), pad(d.getUTCDate())));
  }
  for (const day of days) {
    let names: string[];
    try {
      names = readdirSync(join(root, day));
    } catch {
      continue;
    }
    for (const n of names) {
      if (!n.startsWith('rollout-') || !n.endsWith('.jsonl')) continue;
      const path = join(root, day, n);
      try {
        const st = statSync(path);
        if (st.isFile() && st.mtimeMs >= sinceMs && rolloutCwd(path) === cwd) out.push({ path, mtimeMs: st.mtimeMs });
      } catch { /* removed meanwhile */ }
    }
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs).map((o) => o.path);
}

const pad = (n: number) => String(n).padStart(2, '0');

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The `cwd` of a rollout's first line (`session_meta`). */
function rolloutCwd(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(64 * 1024);
    const got = readSync(fd, buf, 0, buf.length, 0);
    const nl = buf.indexOf(0x0a);
    const first = JSON.parse(buf.toString('utf8', 0, nl < 0 ? got : nl)) as unknown;
    const cwd = isRecord(first) && isRecord(first.payload) ? str(first.payload.cwd) : undefined;
    return cwd === undefined ? undefined : real(cwd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

interface OpenCall {
  name: string;
  /** Its arguments: a JSON object (function calls) or the raw input (custom tool calls). */
  args: Record<string, unknown> | string;
}

/** The state of one rollout, entry by entry. Pure over the entries it is given. */
export class RolloutState {
  state: AgentRecord['state'];
  /** When the newest turn event was written. */
  at: number | undefined;
  quota: AgentRecord['quota'];
  private readonly open = new Map<string, OpenCall>();

  take(entries: readonly Record<string, unknown>[]): void {
    for (const e of entries) {
      const payload = isRecord(e.payload) ? e.payload : undefined;
      if (!payload) continue;
      const at = Date.parse(str(e.timestamp) ?? '');
      const kind = str(payload.type);
      if (e.type === 'event_msg') {
        if (kind === 'task_started') {
          this.state = 'busy';
          this.at = Number.isFinite(at) ? at : undefined;
          this.quota = undefined;
        } else if (kind === 'task_complete' || kind === 'turn_aborted') {
          this.state = 'idle';
          this.at = Number.isFinite(at) ? at : undefined;
          this.open.clear();
          this.quota = kind === 'task_complete' ? quotaOf(payload.error, at) : undefined;
        } else if (kind === 'error') {
          // older versions report the stop as an `error` event before the turn ends
          this.quota = quotaOf(payload, at) ?? this.quota;
        }
      } else if (e.type === 'response_item') {
        const callId = str(payload.call_id);
        if (!callId) continue;
        if (kind === 'function_call') this.open.set(callId, { name: str(payload.name) ?? '', args: parseArgs(payload.arguments) });
        else if (kind === 'custom_tool_call') this.open.set(callId, { name: str(payload.name) ?? '', args: str(payload.input) ?? '' });
        else if (kind === 'local_shell_call' && isRecord(payload.action)) this.open.set(callId, { name: 'shell', args: payload.action });
        else if (kind?.endsWith('_output')) this.open.delete(callId);
      }
    }
  }

  /** The newest tool call of the turn that has no output yet. */
  request(): ApprovalRequest | undefined {
    const last = [...this.open.values()].at(-1);
    return last ? requestOf(last) : undefined;
  }
}

function quotaOf(error: unknown, at: number): AgentRecord['quota'] {
  if (!isRecord(error)) return undefined;
  const message = str(error.message) ?? '';
  const info = str(error.codex_error_info) ?? str(error.type) ?? '';
  if (!/usage_limit/i.test(info) && !findQuotaMessage(message)) return undefined;
  const line = message.split('\n').find((l) => l.trim() !== '') ?? 'usage limit reached';
  return { line: line.trim(), atMs: Number.isFinite(at) ? at : Date.now() };
}

function parseArgs(v: unknown): Record<string, unknown> {
  if (isRecord(v)) return v;
  if (typeof v !== 'string') return {};
  try {
    const o = JSON.parse(v) as unknown;
    return isRecord(o) ? o : {};
  } catch {
    return {};
  }
}

/** A shell command as one string: `cmd`, or a `command` string or argv (`["bash", "-lc", "…"]`). */
function commandOf(args: Record<string, unknown>): string | undefined {
  const cmd = str(args.cmd) ?? str(args.command);
  if (cmd !== undefined) return cmd;
  const argv = Array.isArray(args.command) ? args.command.filter((w): w is string => typeof w === 'string') : undefined;
  if (!argv || argv.length === 0) return undefined;
  // `bash -lc "<script>"` is the script itself
  if (argv.length === 3 && /(?:^|\/)(?:ba|z|da)?sh$/.test(argv[0]!) && /^-l?c$/.test(argv[1]!)) return argv[2];
  return argv.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(' ');
}

/** `*** Update File: path` / `*** Add File: path`: the first file an apply_patch touches. */
function patchPath(patch: string): string | undefined {
  return /^\*\*\* (?:Update|Add|Delete) File: (.+)$/m.exec(patch)?.[1]?.trim();
}

function requestOf(call: OpenCall): ApprovalRequest {
  const args = typeof call.args === 'string' ? {} : call.args;
  if (/^(?:exec_command|shell|shell_command|container\.exec|local_shell)$/.test(call.name)) {
    const command = commandOf(args);
    if (command !== undefined) return { tool: 'Bash', command, text: printableLine(`Bash: ${command}`), source: 'session' };
  }
  if (call.name === 'apply_patch') {
    const path = patchPath(typeof call.args === 'string' ? call.args : str(args.input) ?? str(args.patch) ?? '');
    return { tool: 'Edit', path, text: printableLine(`Edit: ${path ?? 'a patch'}`), source: 'session' };
  }
  return { tool: call.name || 'unknown', text: printableLine(call.name), source: 'session' };
}

/**
 * Spend from a rollout: each `token_count` event's `info.total_token_usage` is the session's
 * running total; what it grew by since the one before is one message's usage (the same
 * total repeated, as after a usage-limit stop, adds nothing). `input_tokens` includes the
 * cached ones; `output_tokens` includes reasoning.
 */
export class RolloutUsage implements UsageParser {
  private model = '';
  private total = { input: 0, cached: 0, cacheWrite: 0, output: 0 };
  private n = 0;

  constructor(private readonly path: string) {}

  take(entries: readonly Record<string, unknown>[], into: Map<string, MessageUsage>): void {
    for (const e of entries) {
      const payload = isRecord(e.payload) ? e.payload : undefined;
      if (!payload) continue;
      if (e.type === 'turn_context' && str(payload.model)) this.model = str(payload.model)!;
      if (e.type === 'session_meta' && !this.model && str(payload.model)) this.model = str(payload.model)!;
      if (e.type !== 'event_msg' || payload.type !== 'token_count' || !isRecord(payload.info) || !isRecord(payload.info.total_token_usage)) continue;
      const t = payload.info.total_token_usage;
      const next = { input: num(t.input_tokens), cached: num(t.cached_input_tokens), cacheWrite: num(t.cache_write_input_tokens), output: num(t.output_tokens) };
      const grew = { input: next.input - this.total.input, cached: next.cached - this.total.cached, cacheWrite: next.cacheWrite - this.total.cacheWrite, output: next.output - this.total.output };
      this.total = next;
      if (grew.input <= 0 && grew.output <= 0) continue;
      const cacheRead = Math.max(0, grew.cached);
      const cacheWrite = Math.max(0, grew.cacheWrite);
      const id = `${this.path}#${this.n++}`;
      into.set(id, {
        id,
        model: this.model,
        tokens: { input: Math.max(0, grew.input - cacheRead - cacheWrite), output: Math.max(0, grew.output), cacheWrite, cacheWrite1h: 0, cacheRead },
        ...(str(e.timestamp) ? { at: str(e.timestamp)! } : {}),
      });
    }
  }
}

/** A Codex agent's rollout, found again when its process starts another. */
export class CodexFiles implements AgentFiles {
  private path: string | undefined;
  private follower: JsonlFollower | undefined;
  private state = new RolloutState();
  private lookedAt = -Infinity;
  private lookedFor: number | undefined;
  /** The agent process first asked about, and when (its start-up, as far as this reader knows). */
  private agent: { pid: number | undefined; since: number } | undefined;

  constructor(private readonly opts: CodexFilesOptions) {}

  readonly spend = {
    locate: (sinceMs: number): string | undefined => this.path ?? findRollouts(this.opts, sinceMs)[0],
    parser: (path: string): UsageParser => new RolloutUsage(path),
  };

  record(pid: number | undefined): AgentRecord | undefined {
    const now = (this.opts.now ?? Date.now)();
    const agent = this.agent !== undefined && this.agent.pid === pid ? this.agent : (this.agent = { pid, since: now });
    const path = this.locate(pid);
    // no rollout yet: a turn starts only once the CLI takes its first prompt
    if (!path) return now - agent.since < STARTUP_MS ? { state: 'busy' } : undefined;
    if (path !== this.path || !this.follower) {
      this.path = path;
      this.follower = new JsonlFollower(path);
      this.state = new RolloutState();
    }
    const { entries, restarted } = this.follower.update();
    if (restarted) this.state = new RolloutState();
    this.state.take(entries);
    return { state: this.state.state, at: this.state.at, request: this.state.request(), quota: this.state.quota };
  }

  private locate(pid: number | undefined): string | undefined {
    const now = (this.opts.now ?? Date.now)();
    if (this.path && pid === this.lookedFor && now - this.lookedAt < LOCATE_EVERY_MS) return this.path;
    this.lookedAt = now;
    this.lookedFor = pid;
    const home = real(this.opts.codexHome);
    const open = pid === undefined ? [] : openFilesOf(pid, ROLLOUT).filter((p) => p.startsWith(home) || p.startsWith(this.opts.codexHome)).sort();
    return open.at(-1) ?? findRollouts(this.opts)[0] ?? this.path;
  }
}
