import { hostname } from 'node:os';
import type { Store } from '../store/index.js';
import type { LoopEvent } from '../store/events.js';
import type { RunRow } from '../store/runs.js';
import { discoverModules, readModuleInfo, type LifecycleStatus } from '../protocol/modules.js';
import { DEFAULT_TMUX_SOCKET } from '../sessions/tmuxServer.js';
import { ownVersion } from '../ownPackage.js';
import { homeDir } from '../paths.js';
import { CliError, EXIT } from './context.js';

/**
 * What `status --json` adds for a dashboard reading this host over ssh, so that one call
 * per look is enough: this autodeck's version, the host's clock (to correct the other
 * side's), the tmux server its loops run on (to attach), the events after one the reader
 * has seen (`--events-since ID`), and the task modules under the roots (`--modules`, so a
 * loop can be started on one).
 */
export interface HostPollJson {
  version: string;
  host: string;
  now: string;
  tmuxSocket: string;
  /** Its home folder (paths under it are shown as `~/…`). */
  home: string;
  events?: LoopEvent[];
  /** The newest event id there is (the reader's next `--events-since`). */
  lastEventId?: number;
  modules?: ModuleJson[];
}

export interface ModuleJson {
  dir: string;
  name: string;
  lifecycle: LifecycleStatus;
  /** The module's newest finished run, if any. */
  lastRun?: LastRunJson;
}

export type LastRunJson = Pick<RunRow, 'id' | 'outcome' | 'endedAt' | 'iterations' | 'maxIterations' | 'forced' | 'activeMs' | 'tokens' | 'costUsd'>;

/** Events one look returns at most: a reader that was away long sees the newest. */
export const POLL_EVENTS_MAX = 200;

/** `--events-since` as a whole number >= 0, or undefined when not given. */
export function eventsSinceFlag(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n)) throw new CliError(`autodeck: --events-since: ${JSON.stringify(raw)} is not an event id (a whole number >= 0)`, EXIT.usage);
  return n;
}

export function hostPollJson(store: Store, opts: { eventsSince?: number | undefined; modules: boolean; roots: readonly string[]; env: NodeJS.ProcessEnv }): HostPollJson {
  const out: HostPollJson = { version: ownVersion(), host: hostname(), now: new Date().toISOString(), tmuxSocket: opts.env.AUTODECK_TMUX_SOCKET || DEFAULT_TMUX_SOCKET, home: homeDir(opts.env) };
  if (opts.eventsSince !== undefined) {
    // The newest id first: an event written meanwhile is in the list, not skipped. Below the
    // reader's own id when the log was started again: the reader then starts from 0.
    const newest = store.events.list(1).at(-1)?.id ?? 0;
    out.events = store.events.since(opts.eventsSince, POLL_EVENTS_MAX);
    out.lastEventId = Math.max(newest, out.events.at(-1)?.id ?? 0);
  }
  if (opts.modules) {
    const last = store.runs.latestByTaskDir();
    out.modules = discoverModules(opts.roots).map((m) => {
      const r = last.get(m.dir);
      const module: ModuleJson = { dir: m.dir, name: m.name, lifecycle: readModuleInfo(m.dir).status };
      if (r) {
        module.lastRun = {
          id: r.id, outcome: r.outcome, endedAt: r.endedAt, iterations: r.iterations, maxIterations: r.maxIterations, forced: r.forced,
          activeMs: r.activeMs, tokens: r.tokens, costUsd: r.costUsd,
        };
      }
      return module;
    });
  }
  return out;
}
