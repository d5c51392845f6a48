import { homedir } from 'node:os';
import { gitTopLevel } from '../paths.js';
import type { LoopRow } from '../store/loops.js';
import { resolveProfile } from '../agents/userProfiles.js';
import { claudeProjectDir } from '../agents/transcript.js';
import { agentFilesFor } from '../agents/agentFiles.js';
import { HOOKS_ENV, HOOKS_INJECTED } from '../agents/claudeSettings.js';
import { EMPTY_POLICY } from '../policy/rules.js';
import type { BeatLimits } from './heartbeat.js';
import { DEFAULT_HUNG_LIMITS } from './hung.js';
import { withClaudeSession } from './claudeSession.js';
import { approvalSetup } from './approvals.js';
import type { LoopSettings, LoopSpec } from './loopSpec.js';
import { verifyConfig } from './loopVerify.js';

/** What a loop's row keeps of its settings, so that a new owner runs it the same way. */
export interface StoredLoopSettings extends LoopSettings {
  cwd: string;
  /** signal: the agent runs its own loop; hook: the Stop hook drives it. */
  mode?: 'signal' | 'hook';
  /** autodeck's hooks went in with the agent's `--settings` (a Claude Code agent). */
  hooksInjected?: boolean;
}

const LOOP_SETTING_KEYS = ['agentProfile', 'heartbeatSeconds', 'stallThreshold', 'recoveryPerIteration', 'recoveryTotal',
  'stepTimeoutMinutes', 'quotaProbeMinutes', 'graceSeconds', 'restartLimit', 'hungMinutes', 'hungErrorMinutes', 'hungRepeatCalls',
  'hungLadderMinutes', 'maxTokens', 'maxCostUsd', 'prices', 'contextWindows', 'approval', 'verifyCommand', 'verifyTimeoutMinutes',
  'verifyAttempts'] as const satisfies readonly (keyof LoopSettings)[];

/** The per-loop settings present in `source` (a settings object, or what a row stored). */
export function pickLoopSettings(source: Partial<LoopSettings>): LoopSettings {
  const out: Partial<Record<keyof LoopSettings, unknown>> = {};
  for (const k of LOOP_SETTING_KEYS) if (source[k] !== undefined) out[k] = source[k];
  return out as LoopSettings;
}

/** What the spec of a loop is made from, besides its row. */
export interface SpecSources {
  /** This process's settings: what the row did not keep. */
  settings: LoopSettings & { profiles?: unknown };
  /** The database's path, for the agent's hooks. */
  db: string;
  env: NodeJS.ProcessEnv;
}

/** The stall and hung limits of a loop's settings (rows stored before the hung settings get their defaults). */
function beatLimits(settings: LoopSettings): BeatLimits {
  return {
    stallThreshold: settings.stallThreshold, recoveryPerIteration: settings.recoveryPerIteration,
    recoveryTotal: settings.recoveryTotal, stepTimeoutMs: settings.stepTimeoutMinutes * 60_000,
    quotaProbeMs: settings.quotaProbeMinutes * 60_000,
    hung: {
      ...DEFAULT_HUNG_LIMITS,
      transcriptMs: (settings.hungMinutes ?? 30) * 60_000, cpuIdleMs: (settings.hungMinutes ?? 30) * 60_000,
      errorBannerMs: (settings.hungErrorMinutes ?? 10) * 60_000, repeatedToolCalls: settings.hungRepeatCalls ?? 6,
      ladderMs: (settings.hungLadderMinutes ?? 3) * 60_000,
    },
  };
}

/** A loop's spec rebuilt from what its row stored: what the row kept wins, so an adopted loop runs as it was started. */
export function specOfRow(row: LoopRow, from: SpecSources): LoopSpec {
  const stored = row.settings as Partial<StoredLoopSettings>;
  const settings: LoopSettings = { ...pickLoopSettings(from.settings), ...pickLoopSettings(stored) };
  const cwd = stored.cwd ?? gitTopLevel(row.taskDir) ?? row.taskDir;
  const { profile } = resolveProfile(settings.agentProfile, from.settings.profiles);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(from.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { AUTODECK_TASK_DIR: row.taskDir, AUTODECK_SESSION: row.session, AUTODECK_DB: from.db });
  if (stored.hooksInjected) env[HOOKS_ENV] = HOOKS_INJECTED;
  else delete env[HOOKS_ENV];
  const transcriptDir = profile.transcript === 'claude' ? claudeProjectDir(env.HOME ?? homedir(), cwd) : undefined;
  // the policy for the agent's PreToolUse hook too, and what the user lets autodeck accept in its dialogs
  const approval = withClaudeSession(approvalSetup(settings.approval ?? EMPTY_POLICY, gitTopLevel(row.taskDir) ?? cwd, cwd, env.HOME ?? homedir()), row.agentArgv, env);
  const verify = verifyConfig(row, settings, from.env, stored.mode ?? 'signal');
  const agentFiles = agentFilesFor(profile.name, { env, home: env.HOME ?? homedir(), cwd, sinceMs: Date.parse(row.startedAt) });
  return { argv: row.agentArgv, cwd, env, settings, profile, limits: beatLimits(settings), transcriptDir, approval, verify, agentFiles };
}
