import { decide, denialMessage, type PolicyOutcome } from '../policy/decide.js';
import { parsePolicy, type ApprovalPolicy, type ApprovalRequest, type PolicyContext } from '../policy/rules.js';
import { hookRequest } from '../policy/screenRequest.js';

/**
 * The approval policy where Claude Code asks first: its PreToolUse hook, which runs before
 * any permission mode decides (manual, auto, accept edits, bypass). autodeck's injected
 * hook answers the policy's `deny` (the tool never runs; the model reads the reason as the
 * tool's result and goes on) or `ask` (Claude Code shows its permission prompt, whatever
 * the mode, and the loop needs a person); an `allow` answers nothing and leaves the call to
 * Claude Code's own mode. The policy travels to the hook in the session's environment.
 * Pure.
 */

/** The variable that carries a loop's policy and project to its agent's hooks. */
export const APPROVAL_ENV = 'AUTODECK_APPROVAL';

export interface ApprovalSetupValue {
  policy: ApprovalPolicy;
  context: PolicyContext;
}

export function approvalEnvValue(setup: ApprovalSetupValue): string {
  return JSON.stringify({ policy: setup.policy, context: setup.context });
}

/** The policy a hook was given; undefined when none (a session autodeck did not start) or it is not readable. */
export function readApprovalEnv(env: NodeJS.ProcessEnv): ApprovalSetupValue | undefined {
  const raw = env[APPROVAL_ENV];
  if (!raw) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { policy, context } = value as { policy?: { rules?: unknown[]; override?: unknown }; context?: Partial<PolicyContext> };
  // the rules were parsed once already; parsing again checks their shape (their text is the rule as written)
  const rules = (Array.isArray(policy?.rules) ? policy.rules : []).map((r) => {
    const rule = r as { decision?: string; text?: string; reason?: string };
    const m = /^(allow|deny|ask) (.+)$/s.exec(rule.text ?? '');
    return m ? { [m[1]!]: m[2], ...(rule.reason !== undefined ? { reason: rule.reason } : {}) } : {};
  });
  const parsed = parsePolicy({ rules, override: policy?.override ?? [] });
  if ('error' in parsed) return undefined;
  const str = (v: unknown): v is string => typeof v === 'string' && v !== '';
  if (!context || !str(context.projectDir) || !str(context.cwd) || !str(context.home)) return undefined;
  const tempDirs = Array.isArray(context.tempDirs) ? context.tempDirs.filter(str) : [];
  return { policy: parsed.value, context: { projectDir: context.projectDir, cwd: context.cwd, home: context.home, tempDirs } };
}

export interface PreToolAnswer {
  request: ApprovalRequest;
  outcome: PolicyOutcome;
  /** What the hook prints on stdout; absent for an allow. */
  output?: string | undefined;
}

/** The policy's answer to a PreToolUse event; undefined when it is not one, or names no tool. */
export function preToolAnswer(event: Record<string, unknown>, setup: ApprovalSetupValue): PreToolAnswer | undefined {
  if (event.hook_event_name !== 'PreToolUse') return undefined;
  const request = hookRequest({ tool_name: event.tool_name, tool_input: event.tool_input });
  if (!request) return undefined;
  const outcome = decide(request, setup.policy, setup.context);
  if (outcome.decision === 'allow') return { request, outcome };
  const reason = outcome.decision === 'deny'
    ? denialMessage(request, outcome)
    : `autodeck's approval policy leaves this to a person (${printable(outcome.rule)}): ${printable(outcome.reason)}`;
  const output = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: outcome.decision, permissionDecisionReason: reason } });
  return { request, outcome, output: `${output}\n` };
}

function printable(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200);
}
