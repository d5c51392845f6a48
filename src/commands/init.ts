import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { projectDir } from '../paths.js';
import { writeFileAtomic } from '../protocol/atomic.js';
import { STATE_EVENTS } from '../hooks/state.js';
import { commandHooks } from '../hooks/claudeHooks.js';
import { hookCommands, type HookCommands } from '../hooks/commands.js';
import { classifyInstalledSkill, SKILL_NAME, SKILL_PATH, SKILL_VERSION, skillFile } from '../skill/autodeckAuto.js';
import { EXIT, line, type CommandContext } from './context.js';

/** The transient files of a loop. */
export const GITIGNORE_ENTRIES = ['.auto-signal', '.auto-signal.tmp', '.auto-stop', '.autodeck.lock'] as const;
export const CLAUDE_SETTINGS = join('.claude', 'settings.json');

/**
 * `autodeck init`: in the project (git top level, else the current folder) adds the loop's
 * transient files to `.gitignore`, registers the hooks in `.claude/settings.json`,
 * merging with what is there, and installs the `/autodeck-auto` skill that runs the loop.
 * Safe to run again: it changes only what is missing or out of date, and never
 * replaces a skill someone edited unless `--force` says so. A settings file that is not
 * JSON is left alone (exit 2).
 */
export function init(ctx: CommandContext): number {
  const dir = projectDir(ctx.cwd);
  const settingsPath = join(dir, CLAUDE_SETTINGS);
  const gitignorePath = join(dir, '.gitignore');
  const skillPath = join(dir, SKILL_PATH);

  const settingsText = readIfPresent(settingsPath);
  let settings: Record<string, unknown>;
  try {
    settings = parseSettings(settingsText);
  } catch (err) {
    line(ctx.stderr, `autodeck init: ${CLAUDE_SETTINGS} ${(err as Error).message}; fix it by hand and run init again (nothing was changed)`);
    return EXIT.usage;
  }
  const hooks = mergeHooks(settings, hookCommands(process.env));
  if (hooks.error) {
    line(ctx.stderr, `autodeck init: ${CLAUDE_SETTINGS}: ${hooks.error}; fix it by hand and run init again (nothing was changed)`);
    return EXIT.usage;
  }
  const ignore = mergeGitignore(readIfPresent(gitignorePath));
  const skill = planSkill(readIfPresent(skillPath), ctx.flags.force === true);

  if (hooks.changes.length > 0) {
    const target = settingsText === undefined ? settingsPath : realOr(settingsPath);
    mkdirSync(dirname(target), { recursive: true });
    writeFileAtomic(target, `${JSON.stringify(hooks.settings, null, indentOf(settingsText))}\n`);
  }
  if (ignore.added.length > 0) writeFileAtomic(realOr(gitignorePath), ignore.text);
  if (skill.write) {
    const target = realOr(skillPath);
    mkdirSync(dirname(target), { recursive: true });
    writeFileAtomic(target, skillFile());
  }

  for (const entry of ignore.added) line(ctx.stdout, `.gitignore: added ${entry}`);
  for (const change of hooks.changes) line(ctx.stdout, `${CLAUDE_SETTINGS}: ${change}`);
  if (skill.message) line(ctx.stdout, `${SKILL_PATH}: ${skill.message}`);
  if (ignore.added.length === 0 && hooks.changes.length === 0 && !skill.message) line(ctx.stdout, 'nothing to change');
  return EXIT.ok;
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

/** The settings object; an absent or empty file is `{}`. Throws with a short reason otherwise. */
export function parseSettings(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`is not valid JSON (${(err as Error).message.split('\n')[0]})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('is not a JSON object');
  return raw as Record<string, unknown>;
}

export interface HookMerge {
  settings: Record<string, unknown>;
  /** One line per change, for the user. */
  changes: string[];
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
    return { settings, changes: [], error: '"hooks" is not an object' };
  }
  const hooks = hooksValue as Record<string, unknown>;
  const wanted: [string, 'stop' | 'state'][] = [['Stop', 'stop'], ...STATE_EVENTS.map((e): [string, 'state'] => [e, 'state'])];
  const changes: string[] = [];
  for (const [event, kind] of wanted) {
    const list = hooks[event] ?? [];
    if (!Array.isArray(list)) return { settings, changes: [], error: `"hooks.${event}" is not an array` };
    const command = commands[kind];
    const found = commandHooks(list).find((h) => isAutodeckHook(h.command, kind));
    if (found && found.command === command) continue;
    if (found) {
      found.command = command;
      changes.push(`updated the ${event} hook: ${command}`);
    } else {
      list.push({ hooks: [{ type: 'command', command }] });
      changes.push(`added the ${event} hook: ${command}`);
    }
    hooks[event] = list;
  }
  if (changes.length > 0) out.hooks = hooks;
  return { settings: changes.length > 0 ? out : settings, changes };
}

/** An `autodeck hook <kind>` command however it is spelled: `autodeck`, a path to it, or `node …/autodeck.js`. */
export function isAutodeckHook(command: string, kind: 'stop' | 'state'): boolean {
  return new RegExp(`(^|[\\s'"/\\\\])autodeck(\\.js)?['"]?\\s+hook\\s+${kind}(\\s|$|;|&|\\|)`).test(command);
}

/** The indentation the file already uses (two spaces for a new file). */
function indentOf(text: string | undefined): string | number {
  const m = /\n([ \t]+)\S/.exec(text ?? '');
  return m ? m[1]! : 2;
}

function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes go through a symlink to its target (a settings file kept in a dotfiles repo stays a link). */
function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
