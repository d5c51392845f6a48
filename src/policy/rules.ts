import { isAbsolute, join, resolve } from 'node:path';
import picomatch from 'picomatch';
import { BUILTIN_IDS, type BuiltinId } from './builtin.js';
import { splitCommand } from './shell.js';

/**
 * The approval policy's rules (issue 15 item 3), in Claude Code's own permission-rule
 * syntax: `Tool` or `Tool(pattern)`. Bash patterns match the command (`*` any text, a
 * trailing `:*` "this word and any arguments"); file-tool patterns are globs over the path
 * (`/abs/**`, `~/x/**`, or relative to the project). Pure.
 */

export const DECISIONS = ['allow', 'deny', 'ask'] as const;
export type Decision = (typeof DECISIONS)[number];

export interface ApprovalRule {
  decision: Decision;
  /** Tool name or glob (`Bash`, `Write`, `mcp__*`, `*`). */
  tool: string;
  /** The part in parentheses, if any. */
  pattern?: string | undefined;
  /** Why, told to the agent on a deny (optional). */
  reason?: string | undefined;
  /** As the user wrote it: `deny Bash(git push --force*)`. */
  text: string;
}

export interface ApprovalPolicy {
  rules: ApprovalRule[];
  /** Built-in denies switched off by name. */
  override: BuiltinId[];
}

export const EMPTY_POLICY: ApprovalPolicy = { rules: [], override: [] };

/** What a permission prompt asks for, read from the screen or from the hook payload. */
export interface ApprovalRequest {
  /** In Claude Code's names (`Bash`, `Write`, `Edit`, `Read`, `WebFetch`, `mcp__…`); other agents' tools are mapped. */
  tool: string;
  command?: string | undefined;
  path?: string | undefined;
  url?: string | undefined;
  /** The prompt as a person reads it (printable, short). */
  text: string;
  source: 'hook' | 'screen';
}

export interface PolicyContext {
  /** The module's repository (git top level): "the project". */
  projectDir: string;
  /** Where the agent runs (relative paths in a request resolve here). */
  cwd: string;
  home: string;
  /** Scratch directories writes may go to (the system temp dir). */
  tempDirs: readonly string[];
}

/** Tools that write files: a `Write(...)` or `Edit(...)` rule covers all of them (as Claude Code's Edit rules do). */
export const WRITE_TOOLS: ReadonlySet<string> = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
export const FILE_TOOLS: ReadonlySet<string> = new Set([...WRITE_TOOLS, 'Read', 'Glob', 'Grep', 'LS']);

const RULE_TEXT = /^([A-Za-z0-9_*?.-]+)(?:\((.*)\))?$/s;

/** Parses one rule; a string error says why not. */
export function parseRule(raw: unknown): ApprovalRule | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'each rule must be an object like {"deny": "Bash(git push --force*)"}';
  const o = raw as Record<string, unknown>;
  const named = DECISIONS.filter((d) => o[d] !== undefined);
  if (named.length !== 1) return 'each rule names exactly one of allow, deny, ask';
  const decision = named[0]!;
  const value = o[decision];
  if (typeof value !== 'string' || value.trim() === '') return `${decision} must be a string like "Bash(npm test*)"`;
  const unknown = Object.keys(o).filter((k) => k !== decision && k !== 'reason');
  if (unknown.length > 0) return `unknown key ${unknown[0]} in a rule (allowed: allow/deny/ask, reason)`;
  if (o.reason !== undefined && typeof o.reason !== 'string') return 'reason must be a string';
  const m = RULE_TEXT.exec(value.trim());
  if (!m) return `not a rule: ${JSON.stringify(value)} (write Tool or Tool(pattern))`;
  const pattern = m[2] !== undefined ? m[2].trim() : undefined;
  return { decision, tool: m[1]!, pattern: pattern === '' ? undefined : pattern, reason: o.reason as string | undefined, text: `${decision} ${value.trim()}` };
}

/**
 * The `approval` value of one settings file: `{ "rules": [...], "override": [...] }`, or
 * the rules array alone.
 */
export function parsePolicy(raw: unknown): { value: ApprovalPolicy } | { error: string } {
  if (raw === undefined || raw === null) return { value: EMPTY_POLICY };
  const obj = Array.isArray(raw) ? { rules: raw } : raw;
  if (typeof obj !== 'object') return { error: 'must be an object like {"rules": [{"deny": "Bash(git push --force*)"}]}' };
  const o = obj as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => k !== 'rules' && k !== 'override');
  if (extra.length > 0) return { error: `unknown key ${extra[0]} (allowed: rules, override)` };
  const rulesRaw = o.rules ?? [];
  if (!Array.isArray(rulesRaw)) return { error: 'rules must be an array' };
  const rules: ApprovalRule[] = [];
  for (const [i, r] of rulesRaw.entries()) {
    const parsed = parseRule(r);
    if (typeof parsed === 'string') return { error: `rule ${i + 1}: ${parsed}` };
    rules.push(parsed);
  }
  const overrideRaw = o.override ?? [];
  if (!Array.isArray(overrideRaw) || overrideRaw.some((x) => !(BUILTIN_IDS as readonly unknown[]).includes(x))) {
    return { error: `override lists built-in denies by name: ${BUILTIN_IDS.join(', ')}` };
  }
  return { value: { rules, override: overrideRaw as BuiltinId[] } };
}

/** Project rules first (first match wins), then the user's; overrides of both. */
export function mergePolicies(project: ApprovalPolicy, user: ApprovalPolicy): ApprovalPolicy {
  return { rules: [...project.rules, ...user.rules], override: [...new Set([...project.override, ...user.override])] };
}

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

export { BUILTIN_IDS, type BuiltinId };
