import type { EventEmitter } from 'node:events';
import type { LoopEvent } from '../store/events.js';
import type { ClaudeEntry } from '../claudeSessions/watch.js';
import type { ClaudeRowActions } from '../claudeSessions/rowActions.js';

/** This machine's name in the API's `host` fields, as in `status --json --host`. */
export const LOCAL = 'local';

/** One other host as a dashboard last read it: its loops and runs, or why there are none. */
export interface HostStatus {
  host: string;
  /** `ok`, or unreachable, no-autodeck, too-old, error, connecting. */
  state: string;
  message?: string;
  version?: string;
  loops: Record<string, unknown>[];
  recent: Record<string, unknown>[];
  /** Claude Code's own sessions there (as `status --json` has them), when its autodeck lists them. */
  claudeSessions: Record<string, unknown>[];
}

/** What the API of a dashboard over several hosts (src/hosts/) serves of the others. */
export interface HostsView {
  hostStatus(): HostStatus[];
  /** 'event' for each event read from another host, with its `host`. */
  readonly remoteEvents: EventEmitter<{ event: [LoopEvent] }>;
  /** Claude Code's sessions on the other hosts, as last read: each row's key, host and entry. */
  remoteClaudeSessions(): { key: string; host: string; entry: ClaudeEntry }[];
  /** The actions on them (over ssh, through each host's autodeck). */
  readonly claude: ClaudeRowActions;
}
