import { readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { relative } from 'node:path';
import { commandHooks } from '../hooks/claudeHooks.js';
import { EXIT, line, type CommandContext } from '../commands/context.js';
import { locateHook, readIfPresent, writeKeeping } from '../commands/init.js';
import { readJsonc, removeAt, replaceAt } from './jsonEdit.js';
import { readRecord, recordPath, removeRecord, sha256, type InitRecord } from './record.js';
import type { InitTarget } from './where.js';
import { forgetTrustedProject } from '../agents/trustedProjects.js';

/**
 * `autodeck init --undo`: takes back what the recorded inits of this settings file changed,
 * and nothing else, whatever was changed around it since: each hook autodeck added is
 * removed (one the person removed already is said so), one it updated gets its old command
 * back; the `.gitignore` lines it added go; the skill it added goes unless someone edited it;
 * a file or folder init created goes once nothing else is left in it.
 */
export function undoInit(ctx: CommandContext, target: InitTarget): number {
  const where = recordPath(target.settingsPath, process.env);
  const record = readRecord(where);
  const shown = (p: string): string => (target.kind === 'user' ? `~/${relative(target.dir, p)}` : relative(target.dir, p));
  // init recorded the project as trusted: no longer (Claude Code's trust dialog is a person's again)
  if (target.kind === 'project' && forgetTrustedProject(target.dir)) {
    line(ctx.stdout, `${target.dir} is no longer a project you trust: Claude Code's folder-trust dialog is left to you here`);
  }
  if (!record) {
    line(ctx.stderr, `autodeck init --undo: no record of an init of ${shown(target.settingsPath)} (each init keeps one in ${where}); nothing was changed`);
    return EXIT.other;
  }
  const said: string[] = [];
  const settings = undoSettings(record, said, shown);
  if (settings === 'unreadable') {
    line(ctx.stderr, `autodeck init --undo: ${shown(record.settings.path)} is not valid JSON now; fix it by hand and run it again (nothing was changed)`);
    return EXIT.usage;
  }
  undoGitignore(record, said, shown);
  undoSkill(record, said, shown);
  for (const dir of [...record.dirs].reverse()) {
    try {
      if (readdirSync(dir).length === 0) {
        rmdirSync(dir);
        said.push(`${shown(dir)}: removed the folder init made`);
      }
    } catch { /* gone, or not empty */ }
  }
  removeRecord(where);
  for (const s of said) line(ctx.stdout, s);
  if (said.length === 0) line(ctx.stdout, 'nothing left to take back');
  return EXIT.ok;
}

function undoSettings(record: InitRecord, said: string[], shown: (p: string) => string): 'unreadable' | undefined {
  const path = record.settings.path;
  const before = readIfPresent(path);
  if (before === undefined || record.settings.hooks.length === 0) return undefined;
  const valueOf = (t: string): Record<string, unknown> | undefined => {
    const r = readJsonc(t);
    return 'value' in r && r.value !== null && typeof r.value === 'object' && !Array.isArray(r.value) ? r.value as Record<string, unknown> : undefined;
  };
  if (!valueOf(before)) return 'unreadable';
  let text = before;
  const eventsOf = (): Record<string, unknown> => ((valueOf(text)?.hooks ?? {}) as Record<string, unknown>);
  for (const h of [...record.settings.hooks].reverse()) {
    const list = eventsOf()[h.event];
    const at = Array.isArray(list) ? locateHook(list, (c) => c === h.command) : undefined;
    if (!at || !Array.isArray(list)) {
      said.push(`${shown(path)}: the ${h.event} hook init ${h.previous === undefined ? 'added' : 'updated'} is gone already`);
      continue;
    }
    const group = list[at[0]] as { hooks: unknown[] } & Record<string, unknown>;
    const index = group.hooks.indexOf(commandHooks([group])[at[1]]);
    if (h.previous !== undefined) {
      text = replaceAt(text, ['hooks', h.event, at[0], 'hooks', index, 'command'], h.previous);
      said.push(`${shown(path)}: the ${h.event} hook runs ${h.previous} again`);
      continue;
    }
    // the entry init added, whole, when nothing was put in it since; else the hook alone
    const alone = group.hooks.length === 1 && Object.keys(group).every((k) => k === 'hooks');
    text = removeAt(text, alone ? ['hooks', h.event, at[0]] : ['hooks', h.event, at[0], 'hooks', index]);
    said.push(`${shown(path)}: removed the ${h.event} hook`);
    const rest = eventsOf()[h.event];
    if (h.createdEvent && Array.isArray(rest) && rest.length === 0) text = removeAt(text, ['hooks', h.event]);
  }
  const hooks = valueOf(text)?.hooks;
  if (record.settings.hooks.some((h) => h.createdHooks) && hooks !== null && typeof hooks === 'object' && Object.keys(hooks).length === 0) {
    text = removeAt(text, ['hooks']);
  }
  if (text === before) return undefined;
  if (record.settings.created && text.replace(/\s/g, '') === '{}') {
    unlinkSync(path);
    said.push(`${shown(path)}: removed the file init made`);
  } else {
    writeKeeping(path, text, []);
  }
  return undefined;
}

function undoGitignore(record: InitRecord, said: string[], shown: (p: string) => string): void {
  const g = record.gitignore;
  const text = g && readIfPresent(g.path);
  if (!g || text === undefined) return;
  const lines = text.split(/(?<=\n)/);
  for (const entry of [...g.lines].reverse()) {
    // the last such line: init appended its lines at the end
    const at = lines.map((l) => l.trim()).lastIndexOf(entry);
    if (at < 0) continue;
    lines.splice(at, 1);
    said.push(`${shown(g.path)}: removed ${entry}`);
  }
  const after = lines.join('');
  if (after === text) return;
  if (g.created && after.trim() === '') {
    unlinkSync(g.path);
    said.push(`${shown(g.path)}: removed the file init made`);
  } else {
    writeKeeping(g.path, after, []);
  }
}

function undoSkill(record: InitRecord, said: string[], shown: (p: string) => string): void {
  const s = record.skill;
  const text = s && readIfPresent(s.path);
  if (!s || text === undefined) return;
  if (sha256(text) !== s.sha256) {
    said.push(`${shown(s.path)}: kept (edited since init wrote it)`);
    return;
  }
  if (s.previous !== undefined) {
    writeKeeping(s.path, s.previous, []);
    said.push(`${shown(s.path)}: put back the copy init replaced`);
  } else {
    unlinkSync(s.path);
    said.push(`${shown(s.path)}: removed the /autodeck-auto skill`);
  }
}
