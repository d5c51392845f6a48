import { basename } from 'node:path';
import { defaultDbPath, defaultRoots } from '../paths.js';
import type { ModelPrice } from '../spend/prices.js';
import type { ApprovalPolicy } from '../policy/parse.js';
import { argv, choice, choiceList, controlKey, decimal, httpUrl, int, optionalArgv, path, paths, type Kind } from './kinds.js';

export const AGENT_PROFILES = ['claude', 'codex', 'gemini', 'aider', 'generic'] as const;
export type AgentProfile = (typeof AGENT_PROFILES)[number];
export const BACKENDS = ['pty', 'tmux'] as const;
export type Backend = (typeof BACKENDS)[number];
export const MODES = ['signal', 'hook'] as const;
export type Mode = (typeof MODES)[number];
/** Ways to tell the user a loop ended, stalled or needs input (src/notify/). */
export const NOTIFY_CHANNELS = ['bell', 'osc9', 'tmux'] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

/** Durations carry their unit in the name. */
export interface Settings {
  maxIterations: number;
  timeoutMinutes: number;
  heartbeatSeconds: number;
  stallThreshold: number;
  recoveryPerIteration: number;
  recoveryTotal: number;
  stepTimeoutMinutes: number;
  restartLimit: number;
  graceSeconds: number;
  quotaProbeMinutes: number;
  /** Hung-agent watchdog (src/supervisor/hung.ts); 0 turns a sign off. */
  hungMinutes: number;
  hungErrorMinutes: number;
  hungRepeatCalls: number;
  hungLadderMinutes: number;
  /** argv template with `{taskDir}` `{taskName}` `{session}` `{root}`; started without a shell. */
  agent: string[];
  agentProfile: AgentProfile;
  backend: Backend;
  /** Absolute path. */
  db: string;
  /** Absolute paths, not yet real paths (a root may not exist yet). */
  roots: string[];
  /** 0 = no REST API. */
  apiPort: number;
  mode: Mode;
  /** Normalised, e.g. `ctrl-q`; see controlKeyByte. */
  detachKey: string;
  /** Empty = no notifications (the default). */
  notify: NotifyChannel[];
  /** argv run without a shell for each notification (the event on stdin and in AUTODECK_EVENT_*); empty = none. */
  notifyCommand: string[];
  /** POSTed each notification as JSON (text for an ntfy topic); empty = none. */
  notifyUrl: string;
  /** Absolute path; undefined = the task module's git top level, chosen by the supervisor. */
  agentCwd: string | undefined;
  /** Raw `profiles` value from a config file (agent pattern extensions), not interpreted here. */
  profiles: unknown;
  /** Spend limits of a loop (src/spend/); 0 = off. */
  maxTokens: number;
  maxCostUsd: number;
  /** `prices` of a config file (USD per million tokens by model id), over the built-in table. */
  prices: Record<string, ModelPrice>;
  /** `contextWindows` of a config file (tokens by model id), over the built-in table (src/spend/context.ts). */
  contextWindows: Record<string, number>;
  /** `approval` of the config files (src/policy/): the project's rules, then the user's. */
  approval: ApprovalPolicy;
}

export type SettingName = Exclude<keyof Settings, 'profiles' | 'prices' | 'contextWindows' | 'approval'>;

/** What a default may depend on; rows may derive from rows above them in the table. */
export interface DefaultContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  resolved: Partial<Settings>;
}

export interface Default<T> {
  value(ctx: DefaultContext): T;
  /** How the default reads in --help. */
  text: string;
}

export interface SettingDef<T> {
  flag: `--${string}`;
  kind: Kind<T>;
  default: Default<T>;
  description: string;
}

const fixed = <T>(v: T, text = String(v)): Default<T> => ({ value: () => structuredClone(v), text });
const derived = <T>(text: string, value: (ctx: DefaultContext) => T): Default<T> => ({ value, text });

/** The profile a program's name implies: `/usr/bin/codex` -> codex, `node` -> generic. */
export function profileForProgram(program: string): AgentProfile {
  const name = basename(program).toLowerCase().replace(/\.(exe|cmd|bat)$/, '');
  return (AGENT_PROFILES as readonly string[]).includes(name) ? (name as AgentProfile) : 'generic';
}

/**
 * THE settings table. Parsing, validation, environment names, flags and the help text
 * all come from here; add a setting by adding a row.
 */
export const SETTING_DEFS: { readonly [N in SettingName]: SettingDef<Settings[N]> } = {
  maxIterations: {
    flag: '--max-iterations', kind: int(1, 1000), default: fixed(20),
    description: 'most iterations per loop',
  },
  maxTokens: {
    flag: '--max-tokens', kind: int(0), default: fixed(0, '0 (off)'),
    description: "stop a loop (reason budget) once its agent's transcript shows this many tokens (input, output, cache)",
  },
  maxCostUsd: {
    flag: '--max-cost', kind: decimal({ min: 0 }, 'USD'), default: fixed(0, '0 (off)'),
    description: 'stop a loop (reason budget) once its estimated cost reaches this many US dollars',
  },
  timeoutMinutes: {
    flag: '--timeout', kind: decimal({ min: 0, exclusive: true, max: 1440 }, 'MINUTES'), default: fixed(30),
    description: 'stop a loop after this long (decimals allowed: 0.05 is 3 s)',
  },
  heartbeatSeconds: {
    flag: '--heartbeat', kind: decimal({ min: 0, exclusive: true }, 'SECONDS'), default: fixed(60),
    description: 'how often a loop owner proves it is alive',
  },
  stallThreshold: {
    flag: '--stall-threshold', kind: int(1), default: fixed(3),
    description: 'unchanged screen captures that make a suspected stall',
  },
  recoveryPerIteration: {
    flag: '--recovery-per-iteration', kind: int(0), default: fixed(3),
    description: 'stall recoveries allowed per iteration',
  },
  recoveryTotal: {
    flag: '--recovery-total', kind: int(0), default: fixed(10),
    description: 'stall recoveries allowed per loop',
  },
  stepTimeoutMinutes: {
    flag: '--step-timeout', kind: decimal({ min: 0, exclusive: true }, 'MINUTES'), default: fixed(10),
    description: 'no signal or status update for this long is a suspected stall',
  },
  restartLimit: {
    flag: '--restart-limit', kind: int(0), default: fixed(3),
    description: 'agent restarts without progress before a loop has failed',
  },
  graceSeconds: {
    flag: '--grace', kind: decimal({ min: 0 }, 'SECONDS'), default: fixed(600),
    description: 'after a stop file, how long the agent may take to exit before it is killed',
  },
  quotaProbeMinutes: {
    flag: '--quota-probe', kind: decimal({ min: 0, exclusive: true }, 'MINUTES'), default: fixed(15),
    description: 'when a quota message gives no reset time, how often to try again',
  },
  hungMinutes: {
    flag: '--hung-after', kind: decimal({ min: 0 }, 'MINUTES'), default: fixed(30, '30 (0 = off)'),
    description: 'a busy agent whose transcript stays still (no tool running) or whose processes idle this long is hung',
  },
  hungErrorMinutes: {
    flag: '--hung-error', kind: decimal({ min: 0 }, 'MINUTES'), default: fixed(10, '10 (0 = off)'),
    description: 'an API error banner (5xx, overloaded) staying this long is a hung agent',
  },
  hungRepeatCalls: {
    flag: '--hung-repeat', kind: int(0), default: fixed(6, '6 (0 = off)'),
    description: 'this many identical tool calls in a row in the transcript is a hung agent',
  },
  hungLadderMinutes: {
    flag: '--hung-ladder', kind: decimal({ min: 0, exclusive: true }, 'MINUTES'), default: fixed(3),
    description: 'time between the steps for a hung agent: Esc, continuation, restart with resume, failed',
  },
  agent: {
    flag: '--agent', kind: argv,
    default: fixed(['claude', '/autodeck-auto {taskDir}'], 'claude "/autodeck-auto {taskDir}"'),
    description: 'agent command with {taskDir} {taskName} {session} {root}; split like a shell would, never run by one',
  },
  agentProfile: {
    flag: '--agent-profile', kind: choice(AGENT_PROFILES, 'PROFILE'),
    default: derived('from the agent program name', (ctx) => profileForProgram(ctx.resolved.agent?.[0] ?? '')),
    description: "how the agent's screen is read (prompts, quota messages)",
  },
  backend: {
    flag: '--backend', kind: choice(BACKENDS), default: fixed<Backend>('pty'),
    description: 'where agents run: pty (inside autodeck) or tmux (outlives autodeck)',
  },
  db: {
    flag: '--db', kind: path(), default: derived('$XDG_STATE_HOME/autodeck/state.db', (ctx) => defaultDbPath(ctx.env)),
    description: 'the state database',
  },
  roots: {
    flag: '--root', kind: paths, default: derived('AiTasks at the git top level', (ctx) => defaultRoots(ctx.cwd)),
    description: 'a folder holding task modules (repeatable)',
  },
  apiPort: {
    flag: '--api-port', kind: int(0, 65535, 'PORT'), default: fixed(0, '0 = off'),
    description: 'port of the loopback REST API',
  },
  mode: {
    flag: '--mode', kind: choice(MODES), default: fixed<Mode>('signal'),
    description: 'signal: the agent runs its own loop; hook: an interactive agent driven by the Stop hook',
  },
  detachKey: {
    flag: '--detach-key', kind: controlKey, default: fixed('ctrl-q'),
    description: 'leaves attach mode',
  },
  notify: {
    flag: '--notify', kind: choiceList(NOTIFY_CHANNELS, 'CHANNELS'), default: fixed<NotifyChannel[]>([], 'none'),
    description: 'tell you when a loop ends, stalls or needs input: bell, osc9 (desktop notification), tmux (status-line message)',
  },
  notifyCommand: {
    flag: '--notify-command', kind: optionalArgv, default: fixed<string[]>([], 'none'),
    description: 'run this command (no shell) for each notification, with the event as JSON on stdin and AUTODECK_EVENT_* variables',
  },
  notifyUrl: {
    flag: '--notify-url', kind: httpUrl, default: fixed('', 'none'),
    description: 'POST each notification as JSON to this URL (an ntfy topic URL gets a readable text and a Title)',
  },
  agentCwd: {
    flag: '--agent-cwd', kind: path('DIR'), default: derived("the task module's git top level", () => undefined),
    description: 'working directory of the agent',
  },
};

/** A table row with the names derived from it. */
export interface SettingRow extends SettingDef<Settings[SettingName]> {
  name: SettingName;
  /** `AUTODECK_<UPPER_SNAKE>` of the name. */
  env: string;
  /** The camelCase key the parsed flag is given under. */
  flagKey: string;
}

export const envName = (name: string): string => `AUTODECK_${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
const flagKeyOf = (flag: string): string => flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export const SETTINGS_TABLE: readonly SettingRow[] = (Object.keys(SETTING_DEFS) as SettingName[]).map((name) => ({
  name,
  ...(SETTING_DEFS[name] as SettingDef<Settings[SettingName]>),
  env: envName(name),
  flagKey: flagKeyOf(SETTING_DEFS[name].flag),
}));

/** Config-file keys that are not settings but are kept for others to interpret. */
export const RESERVED_FILE_KEYS = ['profiles', 'prices', 'contextWindows', 'approval'] as const;
