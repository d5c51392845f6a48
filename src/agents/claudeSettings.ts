import { join } from 'node:path';
import { INJECTED_STATE_EVENTS } from '../hooks/state.js';
import { SIGNAL_FILE, SIGNAL_TMP_FILE } from '../protocol/signal.js';
import { STOP_FILE } from '../protocol/stopFile.js';

/**
 * What autodeck hands every Claude Code session it starts, through `--settings <json>`:
 * its state hooks (and the Stop hook in hook mode), permission to do
 * the loop protocol's own file operations without a prompt, and no background-session
 * isolation guard. Nothing in the user's files is touched. Pure.
 */

/** The env var that tells hooks registered in a project's settings that their injected twins answer. */
export const HOOKS_ENV = 'AUTODECK_HOOKS';
export const HOOKS_INJECTED = 'injected';

export interface SessionSettingsInput {
  /** The task module, absolute and real. */
  taskDir: string;
  mode: 'signal' | 'hook';
  /** The injected hook commands (`… hook state --injected`). */
  hooks: { stop: string; state: string };
}

/**
 * Claude Code permission rules for the protocol's files and nothing else: reading the
 * module (the stop file among them), writing the signal's temp file, the summary and the
 * status file, and the one rename that publishes the signal. `//` starts an absolute path
 * in Claude Code's file rules; a Bash rule is matched against the command as written.
 */
export function protocolPermissions(taskDir: string): string[] {
  const abs = (name: string) => `/${join(taskDir, name)}`;
  const writable = [SIGNAL_TMP_FILE, '.summary.md', join('.working', '.status.json')];
  const tmp = join(taskDir, SIGNAL_TMP_FILE);
  const signal = join(taskDir, SIGNAL_FILE);
  return [
    `Read(${abs(STOP_FILE)})`,
    `Read(/${taskDir}/**)`,
    ...writable.flatMap((name) => [`Write(${abs(name)})`, `Edit(${abs(name)})`]),
    `Bash(mv ${tmp} ${signal})`,
    `Bash(mv -f ${tmp} ${signal})`,
  ];
}

type Json = Record<string, unknown>;

/** The settings object for one supervised session. */
export function sessionSettings(input: SessionSettingsInput): Json {
  const hooks: Json = {};
  const entry = (command: string) => [{ hooks: [{ type: 'command', command }] }];
  for (const event of INJECTED_STATE_EVENTS) hooks[event] = entry(input.hooks.state);
  if (input.mode === 'hook') hooks.Stop = [...(hooks.Stop as unknown[]), ...entry(input.hooks.stop)];
  return {
    hooks,
    permissions: { allow: protocolPermissions(input.taskDir) },
    // Claude Code refuses Edit/Write in a "background" session that has not moved to a
    // worktree of its own; a supervised loop works in the checkout it was started in.
    worktree: { bgIsolation: 'none' },
  };
}

/**
 * Adds autodeck's settings to what the user's own `--settings` gave (an object, already
 * parsed): hook lists and allow rules are appended to, every other key the user set wins.
 */
export function mergeSessionSettings(user: Json, ours: Json): Json {
  const out: Json = { ...ours, ...user };
  const userHooks = isObject(user.hooks) ? user.hooks : {};
  const hooks: Json = { ...userHooks };
  for (const [event, list] of Object.entries(ours.hooks as Json)) {
    const mine = Array.isArray(userHooks[event]) ? (userHooks[event] as unknown[]) : [];
    hooks[event] = [...mine, ...(list as unknown[])];
  }
  out.hooks = hooks;
  const userPerms = isObject(user.permissions) ? user.permissions : {};
  const allow = Array.isArray(userPerms.allow) ? (userPerms.allow as unknown[]) : [];
  out.permissions = { ...userPerms, allow: [...allow, ...((ours.permissions as Json).allow as unknown[])] };
  if (!isObject(user.worktree)) out.worktree = ours.worktree;
  return out;
}

/** Where the argv already carries `--settings`: the index of the flag and of its value. */
export function findSettingsArg(argv: readonly string[]): { at: number; value: string; joined: boolean } | undefined {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return undefined;
    if (a === '--settings' && i + 1 < argv.length) return { at: i, value: argv[i + 1]!, joined: false };
    if (a.startsWith('--settings=')) return { at: i, value: a.slice('--settings='.length), joined: true };
  }
  return undefined;
}

/**
 * The argv with `--settings <json>` right after the program, or the user's own
 * `--settings` replaced by the merge. `readUserSettings` turns the user's value (a JSON
 * text or a file) into an object, and throws with a one-line reason when it cannot.
 */
export function withSessionSettings(argv: readonly string[], ours: Json, readUserSettings: (value: string) => Json): string[] {
  const found = findSettingsArg(argv);
  if (!found) return [argv[0]!, '--settings', JSON.stringify(ours), ...argv.slice(1)];
  const merged = JSON.stringify(mergeSessionSettings(readUserSettings(found.value), ours));
  const out = [...argv];
  if (found.joined) out[found.at] = `--settings=${merged}`;
  else out[found.at + 1] = merged;
  return out;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
