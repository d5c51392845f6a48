import { builtinDeny, type BuiltinId } from './builtin.js';
import { isExplicit, ruleMatches, type ApprovalPolicy, type ApprovalRequest, type Decision, type PolicyContext } from './rules.js';

export interface PolicyOutcome {
  decision: Decision;
  /** What decided: the rule as written (`deny Bash(git push --force*)`), `built-in <id>`, or `default`. */
  rule: string;
  /** One line: why (told to the agent on a deny). */
  reason: string;
  builtin?: BuiltinId | undefined;
}

/**
 * The approval policy's verdict on one permission prompt. The first
 * rule that matches decides, except that a built-in deny stands against an allow that does
 * not name the command (a bare `Bash`, `Bash(*)`) unless the user overrode it by name;
 * an `ask` or `deny` rule always stands. Nothing matched: allow (autodeck's behaviour
 * before the policy existed), unless a built-in deny applies. Pure.
 */
export function decide(req: ApprovalRequest, policy: ApprovalPolicy, ctx: PolicyContext): PolicyOutcome {
  if (req.complete === false) return decideIncomplete(req, policy, ctx);
  const rule = policy.rules.find((r) => ruleMatches(r, req, ctx));
  if (rule && rule.decision !== 'allow') {
    return { decision: rule.decision, rule: rule.text, reason: rule.reason ?? `the rule ${rule.text}` };
  }
  const hit = builtinDeny(req, ctx);
  if (hit && !policy.override.includes(hit.id) && !(rule && isExplicit(rule))) {
    return { decision: 'deny', rule: `built-in ${hit.id}`, reason: hit.why, builtin: hit.id };
  }
  if (rule) return { decision: 'allow', rule: rule.text, reason: rule.reason ?? `the rule ${rule.text}` };
  return { decision: 'allow', rule: 'default', reason: 'no rule names it' };
}

/**
 * A request read only in part (cut at the screen's edge): a rule that names the whole tool
 * (`deny Bash`, `ask WebFetch`) still decides a deny or an ask, but nothing that needs its
 * text can clear it (an allow pattern, the built-in denies, the default allow): a person
 * decides.
 */
function decideIncomplete(req: ApprovalRequest, policy: ApprovalPolicy, ctx: PolicyContext): PolicyOutcome {
  const whole = policy.rules.find((r) => r.decision !== 'allow' && (r.pattern === undefined || r.pattern === '*') && ruleMatches(r, req, ctx));
  if (whole) return { decision: whole.decision, rule: whole.text, reason: whole.reason ?? `the rule ${whole.text}` };
  return { decision: 'ask', rule: 'incomplete', reason: 'autodeck could not read the whole request on the screen' };
}

/** The message typed to the agent after autodeck refused its request. */
export function denialMessage(req: ApprovalRequest, outcome: PolicyOutcome): string {
  const what = req.command ?? req.path ?? req.url ?? req.tool;
  const shown = what.replace(/[^\x20-\x7e]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 120);
  return `autodeck's approval policy refused ${req.tool} ${shown}: ${outcome.reason.replace(/[^\x20-\x7e]/g, ' ')}. Do not try it again another way; continue with the task without it.`;
}
