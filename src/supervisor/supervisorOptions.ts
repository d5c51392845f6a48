import type { SessionFactory } from '../sessions/session.js';
import type { TmuxOptions } from '../sessions/tmuxServer.js';
import type { LoopEvent } from '../store/events.js';
import type { Store } from '../store/index.js';
import type { RunRow } from '../store/runs.js';
import type { Clock } from './clock.js';
import type { LoopSettings } from './loopSpec.js';

/** What the supervisor needs of the settings. */
export interface SupervisorSettings extends LoopSettings {
  /** The user's additions to the agent profiles (settings file `profiles`). */
  profiles?: unknown;
  agent: string[];
  agentCwd?: string | undefined;
  backend: 'pty' | 'tmux';
  db: string;
  roots: string[];
  maxIterations: number;
  timeoutMinutes: number;
  mode?: 'signal' | 'hook';
}

export interface SupervisorOptions {
  store: Store;
  settings: SupervisorSettings;
  /** The wall clock alone (tests); `clock` gives both. */
  now?: () => number;
  /** Wall and monotonic time (clock.ts); the system's by default. */
  clock?: Clock;
  /** Session factories per backend; tests pass their own (a private tmux socket, say). */
  spawn?: SessionFactory;
  tmux?: TmuxOptions;
  host?: string;
  pid?: number;
  env?: NodeJS.ProcessEnv;
  /** This process's own supervisor (a command's): the process's last resort watches it (lastResort.ts). */
  lastResort?: boolean;
}

/** What a supervisor tells its listeners. */
export interface SupervisorEvents {
  event: [LoopEvent];
  change: [];
  ended: [RunRow];
  /** Every TICK_MS, after the loops' checks: the process's one pulse (the deck's and the clocks' looks come with it). */
  tick: [];
}
