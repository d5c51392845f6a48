import { effectiveMode } from '../agents/claudePermissionMode.js';
import type { DialogConsent } from '../agents/dialogs.js';
import { isTrustedProject } from '../agents/trustedProjects.js';
import { APPROVAL_ENV, approvalEnvValue } from '../hooks/preToolUse.js';
import type { ApprovalSetup } from './watchdog.js';

/**
 * What a loop's agent session gets besides its policy: the policy itself in the
 * environment, for the PreToolUse hook (src/hooks/preToolUse.ts), and what the user allowed
 * autodeck to accept in Claude Code's own dialogs (src/agents/dialogs.ts): the folder-trust
 * dialog in a project they recorded as trusted, the bypass warning when they chose that mode.
 * `env` is the agent's environment, filled in here.
 */
export function withClaudeSession(setup: ApprovalSetup, argv: readonly string[], env: Record<string, string>): ApprovalSetup & { consent: DialogConsent } {
  env[APPROVAL_ENV] = approvalEnvValue(setup);
  const consent: DialogConsent = {
    trustedProject: isTrustedProject(setup.context.projectDir, env) || isTrustedProject(setup.context.cwd, env),
    bypassPermissions: effectiveMode(argv, 'inherit') === 'bypassPermissions',
  };
  return { ...setup, consent };
}
