import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { recordTrustedProject } from '../agents/trustedProjects.js';
import { writeFileAtomic } from '../protocol/atomic.js';
import { STATE_EVENTS } from '../hooks/state.js';
import { commandHooks } from '../hooks/claudeHooks.js';
import { hookCommands, permissionHookCommand, type HookCommands } from '../hooks/commands.js';
import { PERMISSION_HOOK_TIMEOUT_S } from '../claudeSessions/hookTimeout.js';
import { classifyInstalledSkill, SKILL_NAME, SKILL_VERSION, skillFile } from '../skill/autodeckAuto.js';
import { appendAt, jsonText, readJsonc, replaceAt } from '../init/jsonEdit.js';
import { initTarget, type InitTarget } from '../init/where.js';
import { mergeRecords, readRecord, recordPath, sha256, writeRecord, type HookRecord, type InitRecord } from '../init/record.js';
import { EXIT, line, type CommandContext } from './context.js';

/** The transient files of a loop, which a project's git should not see. */
export const GITIGNORE_ENTRIES = ['.auto-signal', '.auto-signal.tmp', '.auto-stop', '.autodeck.lock'] as const;
export const CLAUDE_SETTINGS = join('.claude', 'settings.json');

/**
 * `autodeck init`: in the project (its git top level, or a folder with a project's files),
 * adds the loop's transient files to `.gitignore`, registers the hooks in
 * `.claude/settings.json` and installs the `/autodeck-auto` skill that runs the loop. With
 * `--user`: the hooks and the skill in the user's `~/.claude`, for every project. Anywhere
 * else it refuses (the home folder's `.claude` is the user's). The settings file is edited
 * in place, its formatting and comments kept; each change is printed and recorded, and
 * `autodeck init --undo` takes back exactly those. Safe to run again: only what is missing
 * or out of date changes, and a skill someone edited is kept unless `--force`. A settings
 * file that cannot be read safely is left alone (exit 2).
 */
export async function init(ctx: CommandContext): Promise<number> {
  const target = initTarget(ctx.cwd, process.env, ctx.flags.user === true);
  if ('refusal' in target) {
    line(ctx.stderr, target.refusal);
    return EXIT.usage;
  }
  if (ctx.flags.undo === true) return (await import('../init/undo.js')).undoInit(ctx, target);
  const shown = (p: string): string => (target.kind === 'user' ? `~/${relative(target.dir, p)}` : relative(target.dir, p));

  const settingsText = readIfPresent(target.settingsPath);
  const read = settingsText === undefined || settingsText.trim() === '' ? { value: {} } : readJsonc(settingsText);
  const problem = 'error' in read ? read.error : typeof read.value !== 'object' || read.value === null || Array.isArray(read.value) ? 'is not a JSON object' : undefined;
  if (problem) {
    line(ctx.stderr, `autodeck init: ${shown(target.settingsPath)} ${problem}; fix it by hand and run init again (nothing was changed)`);
    return EXIT.usage;
  }
  const settings = (read as { value: Record<string, unknown> }).value;
  const hooks = mergeHooks(settings, { ...hookCommands(process.env), permission: permissionHookCommand(process.env) });
  if (hooks.error) {
    line(ctx.stderr, `autodeck init: ${shown(target.settingsPath)}: ${hooks.error}; fix it by hand and run init again (nothing was changed)`);
    return EXIT.usage;
  }
  const ignoreText = target.gitignorePath ? readIfPresent(target.gitignorePath) : undefined;
  const ignore = target.gitignorePath ? mergeGitignore(ignoreText) : { text: '', added: [] };
  const skillText = readIfPresent(target.skillPath);
  const skill = planSkill(skillText, ctx.flags.force === true);

  if (target.kind === 'user' && (hooks.edits.length > 0 || skill.write)) {
    line(ctx.stdout, `autodeck init --user: your user settings (${shown(target.settingsPath)}) apply to every project; the hooks do nothing in sessions autodeck did not start`);
  }
  const dirs: string[] = [];
  const record: InitRecord = { kind: target.kind, dir: target.dir, settings: { path: target.settingsPath, created: settingsText === undefined, hooks: [] }, dirs };
  if (hooks.edits.length > 0) {
    record.settings.hooks = hookRecords(settings, hooks.edits);
    let text = settingsText ?? '';
    for (const e of hooks.edits) {
      text = e.at === undefined
        ? appendAt(jsonText(text), ['hooks', e.event], { hooks: [{ type: 'command', command: e.command, ...(e.timeout !== undefined ? { timeout: e.timeout } : {}) }] })
        : replaceAt(text, ['hooks', e.event, e.at[0], 'hooks', e.at[1], 'command'], e.command);
    }
    writeKeeping(target.settingsPath, settingsText === undefined ? `${text}\n` : text, dirs);
  }
  if (ignore.added.length > 0) {
    writeKeeping(target.gitignorePath!, ignore.text, dirs);
    record.gitignore = { path: target.gitignorePath!, created: ignoreText === undefined, lines: ignore.added };
  }
  if (skill.write) {
    writeKeeping(target.skillPath, skillFile(), dirs);
    record.skill = { path: target.skillPath, created: skillText === undefined, sha256: sha256(skillFile()), previous: skillText };
  }

  // the user ran init here: autodeck may accept Claude Code's folder-trust dialog in this project (docs/claude-code.md)
  const trusted = target.kind === 'project' && recordTrustedProject(target.dir);

  for (const entry of ignore.added) line(ctx.stdout, `${shown(target.gitignorePath!)}: added ${entry}`);
  for (const change of hooks.changes) line(ctx.stdout, `${shown(target.settingsPath)}: ${change}`);
  if (skill.message) line(ctx.stdout, `${shown(target.skillPath)}: ${skill.message}`);
  if (trusted) line(ctx.stdout, `recorded ${target.dir} as a project you trust: autodeck may accept Claude Code's folder-trust dialog here`);
  const changed = ignore.added.length > 0 || hooks.edits.length > 0 || skill.write;
  if (changed) {
    const where = recordPath(target.settingsPath, process.env);
    writeRecord(where, mergeRecords(readRecord(where), record));
    line(ctx.stdout, `to take these back: autodeck init --undo${target.kind === 'user' ? ' --user' : ''}`);
  } else if (!skill.message && !trusted) {
    line(ctx.stdout, 'nothing to change');
  }
  return EXIT.ok;
}

function hookRecords(before: Record<string, unknown>, edits: readonly HookEdit[]): HookRecord[] {
  const events = (before.hooks ?? {}) as Record<string, unknown>;
  let createdHooks = before.hooks === undefined;
  const createdEvents = new Set<string>();
  return edits.map((e) => {
    const createdEvent = e.at === undefined && !(e.event in events) && !createdEvents.has(e.event);
    if (createdEvent) createdEvents.add(e.event);
    const r: HookRecord = { event: e.event, command: e.command, previous: e.previous, createdEvent, createdHooks: createdHooks && e.at === undefined };
    if (e.at === undefined) createdHooks = false;
    return r;
  });
}

/** What to do with the skill file, given what is there now. Pure. */
export function planSkill(existing: string | undefined, force: boolean): { write: boolean; message?: string } {
  const name = `/${SKILL_NAME}`;
  if (existing === undefined) return { write: true, message: `added the ${name} skill (v${SKILL_VERSION})` };
  const installed = classifyInstalledSkill(existing);
  switch (installed.state) {
    case 'current':
      return { write: false };
    case 'outdated':
      return { write: true, message: `updated the ${name} skill (v${installed.version} -> v${SKILL_VERSION})` };
    case 'edited':
      return force
        ? { write: true, message: `replaced your edited copy with autodeck's ${name} skill (v${SKILL_VERSION}), as --force asked` }
        : { write: false, message: `kept your edited copy (autodeck's differs); "autodeck init --force" replaces it` };
  }
}

/**
 * The `.gitignore` text with the missing entries appended; everything already there is kept
 * byte for byte (a last line without a newline gets one first; CRLF files get CRLF). Pure.
 */
export function mergeGitignore(text: string | undefined): { text: string; added: string[] } {
  const before = text ?? '';
  const present = new Set(before.split(/\r?\n/).map((l) => l.trim()));
  const added = GITIGNORE_ENTRIES.filter((e) => !present.has(e));
  if (added.length === 0) return { text: before, added: [] };
  const eol = before.includes('\r\n') ? '\r\n' : '\n';
  const sep = before === '' || before.endsWith('\n') ? '' : eol;
  return { text: `${before}${sep}${added.map((e) => `${e}${eol}`).join('')}`, added };
}

/** The settings object; an absent or empty file is `{}`. Comments and trailing commas are allowed. Throws with a short reason otherwise. */
export function parseSettings(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  const read = readJsonc(text);
  if ('error' in read) throw new Error(read.error);
  if (typeof read.value !== 'object' || read.value === null || Array.isArray(read.value)) throw new Error('is not a JSON object');
  return read.value as Record<string, unknown>;
}

/** One hook to register: added last to its event's list, or an autodeck hook's command brought up to date in place. */
export interface HookEdit {
  event: string;
  command: string;
  /** [group, hook] of the autodeck hook whose command is replaced; undefined: a new entry. */
  at?: [number, number] | undefined;
  previous?: string | undefined;
  /** Seconds Claude Code gives the hook (the permission hook waits for a person); Claude Code's default when unset. */
  timeout?: number | undefined;
}

export interface HookMerge {
  settings: Record<string, unknown>;
  /** One line per change, for the user. */
  changes: string[];
  /** The same changes, for editing the file in place. */
  edits: HookEdit[];
  /** Set when the file's `hooks` has a shape that cannot be merged into safely. */
  error?: string;
}

/**
 * Registers `commands.stop` for `Stop` and `commands.state` for the state events, in Claude
 * Code's format: `{"hooks": {"Event": [{"hooks": [{"type": "command", "command": "..."}]}]}}`
 * (no matcher: every occurrence). An existing autodeck hook of the same kind is found by
 * its command (`autodeck … hook stop`), kept when identical, brought up to date when it
 * differs (autodeck moved); every other hook and key is kept. Pure: returns a new object.
 */
export function mergeHooks(settings: Record<string, unknown>, commands: HookCommands): HookMerge {
  const out = structuredClone(settings);
  const hooksValue = out.hooks ?? {};
  if (typeof hooksValue !== 'object' || hooksValue === null || Array.isArray(hooksValue)) {
    return { settings, changes: [], edits: [], error: '"hooks" is not an object' };
  }
  const hooks = hooksValue as Record<string, unknown>;
  const wanted: [string, HookKind][] = [['Stop', 'stop'], ...STATE_EVENTS.map((e): [string, 'state'] => [e, 'state'])];
  // Claude Code's own sessions: their permission requests, held open until a person answers (long timeout)
  if (commands.permission) wanted.push(['PermissionRequest', 'permission']);
  const changes: string[] = [];
  const edits: HookEdit[] = [];
  for (const [event, kind] of wanted) {
    const list = hooks[event] ?? [];
    if (!Array.isArray(list)) return { settings, changes: [], edits: [], error: `"hooks.${event}" is not an array` };
    const command = commands[kind]!;
    const timeout = kind === 'permission' ? PERMISSION_HOOK_TIMEOUT_S : undefined;
    const at = locateHook(list, (c) => isAutodeckHook(c, kind));
    const found = at && commandHooks([list[at[0]]])[at[1]];
    if (found && found.command === command) continue;
    if (found && at) {
      edits.push({ event, command, at: [at[0], (list[at[0]] as { hooks: unknown[] }).hooks.indexOf(found)], previous: found.command });
      found.command = command;
      changes.push(`updated the ${event} hook: ${command}`);
    } else {
      list.push({ hooks: [{ type: 'command', command, ...(timeout !== undefined ? { timeout } : {}) }] });
      edits.push({ event, command, ...(timeout !== undefined ? { timeout } : {}) });
      changes.push(`added the ${event} hook: ${command}`);
    }
    hooks[event] = list;
  }
  if (changes.length > 0) out.hooks = hooks;
  return { settings: changes.length > 0 ? out : settings, changes, edits };
}

/** [group, index among the group's command hooks] of the first command hook `match` takes. */
export function locateHook(list: readonly unknown[], match: (command: string) => boolean): [number, number] | undefined {
  for (const [g, group] of list.entries()) {
    const i = commandHooks([group]).findIndex((h) => match(h.command));
    if (i >= 0) return [g, i];
  }
  return undefined;
}

/** An `autodeck hook <kind>` command however it is spelled: `autodeck`, a path to it, or `node …/autodeck.js`. */
type HookKind = 'stop' | 'state' | 'permission';

export function isAutodeckHook(command: string, kind: HookKind): boolean {
  return new RegExp(`(^|[\\s'"/\\\\])autodeck(\\.js)?['"]?\\s+hook\\s+${kind}(\\s|$|;|&|\\|)`).test(command);
}

export function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Writes through a symlink to its target (a settings file kept in a dotfiles repo stays a
 * link), keeping an existing file's mode; the folders it makes are added to `made`.
 */
export function writeKeeping(path: string, text: string, made: string[]): void {
  const target = realOr(path);
  const mode = existsSync(target) ? statSync(target).mode & 0o777 : undefined;
  for (let d = dirname(target), missing: string[] = []; ; d = dirname(d)) {
    if (existsSync(d) || dirname(d) === d) {
      made.push(...missing.filter((m) => !made.includes(m)));
      break;
    }
    missing.unshift(d);
  }
  mkdirSync(dirname(target), { recursive: true });
  writeFileAtomic(target, text);
  if (mode !== undefined && mode !== 0o644) chmodSync(target, mode);
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
