import { BUILTIN_IDS, type BuiltinId } from './builtinIds.js';

/**
 * The approval policy's rules as the settings file writes them, in Claude
 * Code's own permission-rule syntax: `Tool` or `Tool(pattern)`. Parsing only, no matching
 * (rules.ts): every command that reads the settings loads this, so it stays small. Pure.
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
  /** Where it was read: the agent's hook, its screen, or its own session file. */
  source: 'hook' | 'screen' | 'session';
  /**
   * false: the screen showed only part of it (cut at the screen's edge, or `…`): a rule that
   * needs its text cannot allow it.
   */
  complete?: boolean | undefined;
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

