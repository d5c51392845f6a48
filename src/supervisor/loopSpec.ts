import type { ModelPrice } from '../spend/prices.js';
import type { SessionFactory } from '../sessions/session.js';
import type { Store } from '../store/index.js';
import type { LoopRow } from '../store/loops.js';
import type { EventKind } from '../store/events.js';
import type { RunRow } from '../store/runs.js';
import type { AgentProfile } from '../config/schema.js';
import type { AgentFiles } from '../agents/agentRecord.js';
import type { Profile } from '../agents/profiles.js';
import type { ApprovalPolicy } from '../policy/rules.js';
import type { BeatLimits } from './heartbeat.js';
import type { ApprovalSetup } from './watchdog.js';
import type { Clock } from './clock.js';
import type { Loop } from './loop.js';
import type { VerifyCommand } from '../verify/command.js';
import type { VerifyConfig } from './verifyGate.js';

/** The settings one loop runs with; stored with its row so another owner can take it over. */
export interface LoopSettings {
  agentProfile: AgentProfile;
  heartbeatSeconds: number;
  recoveryPerIteration: number;
  recoveryTotal: number;
  stepTimeoutMinutes: number;
  quotaProbeMinutes: number;
  stallThreshold: number;
  graceSeconds: number;
  restartLimit: number;
  hungMinutes: number;
  hungErrorMinutes: number;
  hungRepeatCalls: number;
  hungLadderMinutes: number;
  /** Spend limits (0 or absent: off) and price overrides (src/spend/). */
  maxTokens?: number;
  maxCostUsd?: number;
  prices?: Record<string, ModelPrice>;
  /** Context window overrides by model id (src/spend/context.ts). */
  contextWindows?: Record<string, number>;
  /** The approval policy (src/policy/); absent in rows stored before it: no rules. */
  approval?: ApprovalPolicy;
  /** The verify before `complete` (src/verify/), as resolved when the loop started; absent: none. */
  verifyCommand?: VerifyCommand;
  verifyTimeoutMinutes?: number;
  verifyAttempts?: number;
}

/** What a loop runs: its agent's command, its settings and limits. */
export interface LoopSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  settings: LoopSettings;
  /** The agent's profile (with the user's patterns), and the stall limits. */
  profile: Profile;
  limits: BeatLimits;
  /** Where the agent's transcript lives, when its profile has one. */
  transcriptDir?: string | undefined;
  /** The approval policy for its permission prompts; absent: a prompt is answered by the stall recovery. */
  approval?: ApprovalSetup | undefined;
  /** What must pass before the loop is complete; absent: the agent's word is enough. */
  verify?: VerifyConfig | undefined;
  /** The files the agent keeps about itself (Codex's rollout, Gemini CLI's session), when its profile has them. */
  agentFiles?: AgentFiles | undefined;
}

/** What a loop needs of its supervisor. */
export interface LoopDeps {
  store: Store;
  spawn: SessionFactory;
  /** Wall time for what is stored or compared across processes; monotonic time for durations (clock.ts). */
  clock: Clock;
  /** Records an event (database and listeners); called inside the loop's transactions. */
  record: (row: LoopRow, kind: EventKind, detail: Record<string, unknown>, opts?: { again?: boolean }) => void;
  /** Something visible changed. */
  changed: () => void;
  /** The loop is over; its row is gone (or kept as failed). */
  ended: (loop: Loop, run: RunRow) => void;
  /** A write found the database locked by another process; it is retried later. */
  busy?: (err: unknown) => void;
}
