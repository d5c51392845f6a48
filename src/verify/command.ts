import { join } from 'node:path';
import { agentFileText } from '../protocol/safeRead.js';

/**
 * The command that must pass before a loop is `complete`. Either an argv the user wrote
 * as an array (run without a shell) or a shell line the user wrote as a string (run with
 * `sh -c`, exactly as written: autodeck never puts a path or any other value into it;
 * the loop's paths reach it through the environment).
 */
export type VerifyCommand =
  | { kind: 'argv'; argv: string[] }
  | { kind: 'shell'; line: string };

/** Where the verify setting came from: a flag or the environment beats a module's own `.index.json`. */
export type VerifyOrigin = 'flag' | 'env' | 'file' | 'default';

/** The `verify` setting: a command (or none) and where it was given. */
export interface VerifySetting {
  command: VerifyCommand | undefined;
  origin: VerifyOrigin;
}

/** The longest shell line or argv element taken (a setting, not a script). */
export const MAX_VERIFY_TEXT = 4000;

export type VerifyParse = { ok: true; command: VerifyCommand | undefined } | { ok: false; message: string };

/**
 * A verify value as a user writes it: a string is a shell line, an array of strings an
 * argv; `""`, `"none"`, `[]` and `null` mean no verify. Pure.
 */
export function parseVerify(raw: unknown): VerifyParse {
  if (raw === null || raw === undefined) return { ok: true, command: undefined };
  if (typeof raw === 'string') {
    const line = raw.trim();
    if (line === '' || line.toLowerCase() === 'none') return { ok: true, command: undefined };
    if (line.length > MAX_VERIFY_TEXT) return { ok: false, message: `the verify command is longer than ${MAX_VERIFY_TEXT} characters` };
    if (/[\0]/.test(line)) return { ok: false, message: 'the verify command holds a NUL character' };
    return { ok: true, command: { kind: 'shell', line } };
  }
  if (Array.isArray(raw)) {
    if (raw.length === 0) return { ok: true, command: undefined };
    if (!raw.every((w): w is string => typeof w === 'string')) return { ok: false, message: 'a verify argv must be an array of strings' };
    if (raw[0] === '') return { ok: false, message: 'the verify argv names no program' };
    if (raw.some((w) => w.length > MAX_VERIFY_TEXT || w.includes('\0'))) return { ok: false, message: 'a verify argv element is too long or holds a NUL character' };
    return { ok: true, command: { kind: 'argv', argv: [...raw] } };
  }
  return { ok: false, message: `${JSON.stringify(raw)?.slice(0, 60) ?? String(raw)} is not a command: give a shell line (a string) or an argv (an array of strings)` };
}

/** A command as a loop's row stored it; undefined when it is not one (a row of another version). */
export function asVerifyCommand(stored: unknown): VerifyCommand | undefined {
  const c = stored as { kind?: unknown; line?: unknown; argv?: unknown } | null | undefined;
  const parsed = c?.kind === 'shell' ? parseVerify(c.line) : c?.kind === 'argv' ? parseVerify(c.argv) : undefined;
  return parsed?.ok ? parsed.command : undefined;
}

/** The command as a person reads it (events, the continuation message, history). */
export function describeVerify(command: VerifyCommand): string {
  if (command.kind === 'shell') return command.line;
  return command.argv.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : JSON.stringify(w))).join(' ');
}

/** The program and its arguments: an argv as it is, a shell line as `sh -c LINE`. */
export function verifyArgv(command: VerifyCommand): string[] {
  return command.kind === 'argv' ? [...command.argv] : ['/bin/sh', '-c', command.line];
}

/** The bytes of `.index.json` read for its `verify` (the module's own files are bounded reads). */
const MAX_INDEX_BYTES = 64 * 1024;

/**
 * A module's own verify from its `.index.json` (`"verify": "npm test"` or an argv), read
 * once when a loop starts: the agent may write that file, and a change it makes during the
 * loop must not change what judges its work. Undefined when the module names none;
 * `{ error }` when it names something unusable.
 */
export function moduleVerify(taskDir: string): { command: VerifyCommand } | { error: string } | undefined {
  const text = agentFileText(join(taskDir, '.index.json'), MAX_INDEX_BYTES);
  if (text === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined; // an unreadable index is the lifecycle reader's to report; it names no verify
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || !('verify' in raw)) return undefined;
  const parsed = parseVerify((raw as Record<string, unknown>).verify);
  if (!parsed.ok) return { error: `.index.json "verify": ${parsed.message}` };
  return parsed.command ? { command: parsed.command } : undefined;
}

/**
 * The verify a loop on `taskDir` runs: a flag or the environment first, then the module's
 * `.index.json`, then the settings files. Undefined: none.
 */
export function verifyFor(setting: VerifySetting | undefined, taskDir: string): { command: VerifyCommand | undefined } | { error: string } {
  if (setting && (setting.origin === 'flag' || setting.origin === 'env')) return { command: setting.command };
  const own = moduleVerify(taskDir);
  if (own && 'error' in own) return own;
  return { command: own?.command ?? setting?.command };
}
