import { isAbsolute, join, resolve } from 'node:path';
import picomatch from 'picomatch';
import { splitCommand } from './shell.js';

import type { ApprovalRequest, ApprovalRule, PolicyContext } from './parse.js';

export * from './parse.js';

/**
 * Matching the approval policy's rules: Bash patterns match the command
 * (`*` any text, a trailing `:*` "this word and any arguments"); file-tool patterns are
 * globs over the path (`/abs/**`, `~/x/**`, or relative to the project). Pure.
 */

/** Tools that write files: a `Write(...)` or `Edit(...)` rule covers all of them (as Claude Code's Edit rules do). */
export const WRITE_TOOLS: ReadonlySet<string> = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
export const FILE_TOOLS: ReadonlySet<string> = new Set([...WRITE_TOOLS, 'Read', 'Glob', 'Grep', 'LS']);

function toolMatches(rule: ApprovalRule, tool: string): boolean {
  if (rule.tool === tool) return true;
  if ((rule.tool === 'Write' || rule.tool === 'Edit') && WRITE_TOOLS.has(tool)) return true;
  return /[*?]/.test(rule.tool) && picomatch.isMatch(tool, rule.tool);
}

/** A Bash pattern as a regex over one command: `*` any text, a trailing `:*` the word and any arguments. */
function commandRegex(pattern: string): RegExp {
  const prefix = pattern.endsWith(':*');
  const body = prefix ? pattern.slice(0, -2) : pattern;
  const re = body.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(prefix ? `^${re}(?:\\s.*)?$` : `^${re}$`, 's');
}

/** A file pattern made absolute: `//x` and `/x` absolute, `~/x` in home, others under the project. */
export function absolutePattern(pattern: string, ctx: PolicyContext): string {
  if (pattern.startsWith('//')) return pattern.slice(1);
  if (pattern.startsWith('/')) return pattern;
  if (pattern === '~' || pattern.startsWith('~/')) return join(ctx.home, pattern.slice(1));
  return join(ctx.projectDir, pattern);
}

export function absolutePath(path: string, ctx: PolicyContext, cwd = ctx.cwd): string {
  if (path === '~' || path.startsWith('~/')) return join(ctx.home, path.slice(1));
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/** The commands a Bash request runs, each as one normalised line (wrappers removed). */
export function commandLines(command: string): string[] {
  const lines = splitCommand(command).flatMap((c) => [c, ...(c.substituted ?? [])]).map((c) => c.words.join(' ')).filter((l) => l !== '');
  return lines.length > 0 ? lines : [command.trim()];
}

/**
 * Whether a rule names this request. A Bash rule matches the whole command as written,
 * or — for deny and ask — any one command in it, and — for allow — only when every
 * command in it matches: `Bash(npm test*)` does not allow `npm test && rm -rf ~`.
 */
export function ruleMatches(rule: ApprovalRule, req: ApprovalRequest, ctx: PolicyContext): boolean {
  if (!toolMatches(rule, req.tool)) return false;
  const pattern = rule.pattern;
  if (pattern === undefined || pattern === '*') return true;
  if (req.tool === 'Bash' && req.command !== undefined) {
    const re = commandRegex(pattern);
    const whole = req.command.trim();
    const parts = commandLines(whole);
    if (rule.decision === 'allow') return parts.every((p) => re.test(p));
    return re.test(whole) || parts.some((p) => re.test(p));
  }
  if (req.path !== undefined && FILE_TOOLS.has(req.tool)) {
    return picomatch.isMatch(absolutePath(req.path, ctx), absolutePattern(pattern, ctx), { dot: true });
  }
  const subject = req.url ?? req.command ?? req.path;
  if (subject === undefined) return false;
  const domain = /^domain:(.+)$/.exec(pattern);
  if (domain && req.url) {
    try { return picomatch.isMatch(new URL(req.url).hostname, domain[1]!); } catch { return false; }
  }
  return commandRegex(pattern).test(subject);
}

/**
 * An allow rule that names what it allows (a pattern with some literal text), not a
 * whole tool: only such a rule lifts a built-in deny.
 */
export function isExplicit(rule: ApprovalRule): boolean {
  return rule.decision === 'allow' && rule.pattern !== undefined && rule.pattern.replace(/[*:\s]/g, '') !== '';
}

