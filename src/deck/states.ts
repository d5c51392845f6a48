import type { LoopRow } from '../store/loops.js';
import { needsYou } from './needsYou.js';
import type { HostIssueKind } from '../hosts/issue.js';

/**
 * THE states of a module, in one table: the STATE column, the header's counts, the tmux
 * segment, `status`, the `?` legend and the README's table all come from here. Every state
 * belongs to exactly one group; the glyph says the group, the word says the state. Add a
 * state by adding a row (and, when it is derived rather than stored, a line in stateOf).
 * Pure data and functions: `status --format tmux` loads this on every status-line refresh.
 */

/** A semantic colour; components map it to a colour, or to nothing under NO_COLOR. */
export type Tone = 'active' | 'ok' | 'warn' | 'bad' | 'muted';

export type GroupId = 'needs_you' | 'failed' | 'waiting' | 'running' | 'stopped' | 'done' | 'stale' | 'idle';

export interface StateGroup {
  id: GroupId;
  /** One column wide in every terminal font we met. */
  glyph: string;
  /** The header's word: `? 1 needs you`. */
  word: string;
  tone: Tone;
  /** Wants a person's eye: the header draws its count inverse, so it stands out without colour too. */
  loud?: boolean;
  meaning: string;
}

/** The groups in the order a person acts on them: the header's, the segment's, the legend's. */
export const STATE_GROUPS: readonly StateGroup[] = [
  { id: 'needs_you', glyph: '?', word: 'needs you', tone: 'warn', loud: true, meaning: 'a live loop waits on a person: answer in attach (Enter), or stop it' },
  { id: 'failed', glyph: '✗', word: 'failed', tone: 'bad', loud: true, meaning: 'ended without its work done: read the log (l) or the detail (d), then start again (r or s); on a host\'s own row, that host cannot be read (STEP says why)' },
  { id: 'waiting', glyph: '‖', word: 'waiting', tone: 'warn', meaning: 'alive but not moving (or a host read for the first time), and autodeck is on it: nothing to do' },
  { id: 'running', glyph: '▶', word: 'running', tone: 'active', meaning: 'an agent is working' },
  { id: 'stopped', glyph: '■', word: 'stopped', tone: 'muted', meaning: 'stopped by a limit or by hand: raise the limit and start again (s), or leave it' },
  { id: 'done', glyph: '✓', word: 'done', tone: 'ok', meaning: 'its work is complete' },
  { id: 'stale', glyph: '~', word: 'stale', tone: 'muted', meaning: 'a loop as last seen on a host that does not answer now, with how long ago; the host\'s own row says why' },
  { id: 'idle', glyph: '·', word: 'idle', tone: 'muted', meaning: 'no loop has run on it yet; the word is the module\'s own status (no loops: a host with nothing to show)' },
];

/**
 * Where a state comes from: a live loop's status, a finished run's outcome, a module's own
 * status, derived, a host's own row (why another host cannot be read; it is no module), or
 * one of Claude Code's own sessions.
 */
export type StateSource = 'loop' | 'outcome' | 'lifecycle' | 'derived' | 'host' | 'claude';

export interface StateDef {
  source: StateSource;
  /** The stored value (`quota_wait`, `max_iterations`, `draft`), or the derived state's name. */
  id: string;
  /** At most nine columns: the STATE cell holds the glyph, a space and this. */
  word: string;
  group: GroupId;
  /** The group's tone unless said. */
  tone?: Tone;
  loud?: boolean;
  meaning: string;
}

export const STATES: readonly StateDef[] = [
  { source: 'derived', id: 'needs_you', word: 'needs you', group: 'needs_you', loud: true, meaning: 'a prompt autodeck may not answer, a question, a usage limit that resets beyond the horizon, an answer that did not take' },
  { source: 'loop', id: 'failed', word: 'failed', group: 'failed', loud: true, meaning: 'the loop failed (restart limit, a missing command, a hung agent); the row says why' },
  { source: 'outcome', id: 'failed', word: 'failed', group: 'failed', meaning: 'the last run failed' },
  { source: 'outcome', id: 'blocked', word: 'blocked', group: 'failed', meaning: 'the agent found a blocker it cannot pass alone' },
  { source: 'lifecycle', id: 'blocked', word: 'blocked', group: 'failed', meaning: 'the module says it is blocked' },
  { source: 'outcome', id: 'merge_conflict', word: 'conflict', group: 'failed', meaning: 'its merge met a conflict' },
  { source: 'outcome', id: 'stall_limit', word: 'stuck', group: 'failed', meaning: 'stall recoveries ran out' },
  { source: 'outcome', id: 'reasoning_loop', word: 'looping', group: 'failed', meaning: 'the agent kept repeating itself' },
  { source: 'outcome', id: 'killed', word: 'killed', group: 'failed', meaning: 'its agent was killed' },
  { source: 'outcome', id: 'verify_failed', word: 'verify', group: 'failed', meaning: 'its verify command failed as many times in a row as allowed' },
  { source: 'host', id: 'unreachable', word: 'no answer', group: 'failed', loud: true, meaning: 'a host ssh does not reach (or that does not answer in time)' },
  { source: 'host', id: 'no-autodeck', word: 'missing', group: 'failed', loud: true, meaning: 'a host with no autodeck where a login shell or the usual places find one' },
  { source: 'host', id: 'too-old', word: 'too old', group: 'failed', loud: true, meaning: 'a host whose autodeck is too old to be read' },
  { source: 'host', id: 'error', word: 'error', group: 'failed', loud: true, meaning: 'a host whose autodeck answered with an error' },
  { source: 'loop', id: 'stalled', word: 'stalled', group: 'waiting', loud: true, meaning: 'its screen stopped moving: autodeck is recovering it (Enter, Esc, a restart)' },
  { source: 'loop', id: 'quota_wait', word: 'quota', group: 'waiting', loud: true, meaning: 'a usage limit: it goes on at the reset, its timeout paused' },
  { source: 'loop', id: 'suspended', word: 'suspended', group: 'waiting', tone: 'muted', meaning: 'left when its autodeck quit: the next one resumes it' },
  { source: 'host', id: 'connecting', word: 'reading', group: 'waiting', tone: 'muted', meaning: 'a host being read for the first time' },
  { source: 'loop', id: 'starting', word: 'starting', group: 'running', meaning: 'its agent is starting (or restarting)' },
  { source: 'loop', id: 'running', word: 'running', group: 'running', meaning: 'its agent is at work' },
  { source: 'loop', id: 'verifying', word: 'verifying', group: 'running', meaning: 'the agent said it is done: its verify command runs (complete when it passes, back to work when it fails)' },
  { source: 'loop', id: 'stopping', word: 'stopping', group: 'running', tone: 'warn', meaning: 'asked to stop: it ends after its current step' },
  { source: 'outcome', id: 'max_iterations', word: 'max iter', group: 'stopped', tone: 'warn', meaning: 'it used every iteration it was given' },
  { source: 'outcome', id: 'timeout', word: 'timeout', group: 'stopped', tone: 'warn', meaning: 'it ran out of time' },
  { source: 'outcome', id: 'budget', word: 'budget', group: 'stopped', tone: 'warn', meaning: 'it reached its token or cost limit' },
  { source: 'outcome', id: 'context_limit', word: 'context', group: 'stopped', tone: 'warn', meaning: 'its context window filled up' },
  { source: 'outcome', id: 'user_stop', word: 'stopped', group: 'stopped', meaning: 'stopped by a person' },
  { source: 'outcome', id: 'stopped', word: 'stopped', group: 'stopped', meaning: 'stopped by a person' },
  { source: 'lifecycle', id: 'cancelled', word: 'cancelled', group: 'stopped', meaning: 'the module says it is cancelled' },
  { source: 'outcome', id: 'complete', word: 'complete', group: 'done', meaning: 'its last run completed' },
  { source: 'lifecycle', id: 'complete', word: 'complete', group: 'done', meaning: 'the module says it is complete' },
  { source: 'lifecycle', id: 'satisfied', word: 'satisfied', group: 'done', meaning: 'the module says its goal is met' },
  { source: 'derived', id: 'stale', word: 'stale', group: 'stale', meaning: 'a loop as last seen on a host that does not answer: the cell says how long ago' },
  ...['draft', 'planning', 'review', 'executing', 're-planning', 'evolving'].map((id): StateDef => (
    { source: 'lifecycle', id, word: id === 're-planning' ? 're-plan' : id, group: 'idle', meaning: 'the module\'s own status' })),
  { source: 'host', id: 'empty', word: 'no loops', group: 'idle', meaning: 'a host with no loop and no task module to show' },
];

/**
 * Claude Code's own sessions (rows marked ✻, docs/claude-sessions.md), in the same groups so
 * the header's counts add up to the rows. A usage limit needs a person (Claude Code does not
 * resume by itself) unless autodeck governs the session (adopted), which resumes it after the reset.
 */
export const CLAUDE_STATES: readonly StateDef[] = [
  { source: 'claude', id: 'needs_you', word: 'needs you', group: 'needs_you', loud: true, meaning: 'a permission request or a question: answer it (a)' },
  { source: 'claude', id: 'limit', word: 'limit', group: 'needs_you', loud: true, meaning: 'a usage limit: Claude Code does not go on by itself; adopt it (s) or send it on after the reset' },
  { source: 'claude', id: 'limit_adopted', word: 'quota', group: 'waiting', loud: true, meaning: 'a usage limit: autodeck resumes it once after the reset' },
  { source: 'claude', id: 'working', word: 'working', group: 'running', meaning: 'a turn is running' },
  { source: 'claude', id: 'idle', word: 'idle', group: 'idle', meaning: 'between turns: send it a prompt (p)' },
  { source: 'claude', id: 'done', word: 'done', group: 'done', meaning: 'Claude Code says its task is done' },
  { source: 'claude', id: 'failed', word: 'failed', group: 'failed', loud: true, meaning: 'Claude Code says it failed' },
  { source: 'claude', id: 'stopped', word: 'stopped', group: 'stopped', meaning: 'ended (claude stop), still listed by Claude Code' },
];

const BY_KEY = new Map([...STATES, ...CLAUDE_STATES].map((s) => [`${s.source}:${s.id}`, s]));
const GROUP_BY_ID = new Map(STATE_GROUPS.map((g) => [g.id, g]));

export function groupById(id: GroupId): StateGroup {
  return GROUP_BY_ID.get(id)!;
}

/** A value this autodeck does not know (a newer one wrote it): its word as it is, in the group such values belong to. */
const UNKNOWN_GROUP: Record<StateSource, GroupId> = { loop: 'running', outcome: 'stopped', lifecycle: 'idle', derived: 'idle', host: 'failed', claude: 'idle' };

export function stateDef(source: StateSource, id: string): StateDef {
  return BY_KEY.get(`${source}:${id}`) ?? { source, id, word: id, group: UNKNOWN_GROUP[source], tone: 'muted', meaning: 'a state this autodeck does not know' };
}

/** What decides a module's state: its live (or failed) loop, else its last run, else its own status. */
export interface StateInput {
  loop?: Pick<LoopRow, 'status' | 'waitingFor' | 'stopReason'> | undefined;
  lastOutcome?: string | undefined;
  lifecycle?: string | undefined;
  /** A host's own row: why it is there (it is no module). */
  hostIssue?: HostIssueKind | undefined;
  /** A loop as last seen on a host that does not answer now. */
  stale?: boolean | undefined;
}

/**
 * A host's own row is its issue; a loop last seen on a host that does not answer is stale;
 * a live loop that waits on a person needs you, whatever its status; any other loop is its
 * status; with no loop, the last run's outcome; with none, the module's own status.
 */
export function stateOf(m: StateInput): StateDef {
  if (m.hostIssue !== undefined) return stateDef('host', m.hostIssue);
  if (m.stale) return stateDef('derived', 'stale');
  if (m.loop) {
    if (m.loop.status !== 'failed' && needsYou(m.loop)) return stateDef('derived', 'needs_you');
    return stateDef('loop', m.loop.status);
  }
  if (m.lastOutcome !== undefined) return stateDef('outcome', m.lastOutcome);
  return stateDef('lifecycle', m.lifecycle ?? 'unknown');
}

export interface GroupCount {
  group: StateGroup;
  count: number;
}

/** How many of `states` are in each group, in the groups' order, the empty ones left out: they add up to `states.length`. */
export function countGroups(states: readonly StateDef[]): GroupCount[] {
  const counts = new Map<GroupId, number>();
  for (const s of states) counts.set(s.group, (counts.get(s.group) ?? 0) + 1);
  return STATE_GROUPS.filter((g) => counts.has(g.id)).map((group) => ({ group, count: counts.get(group.id)! }));
}

/** A count as the header shows it: `? 1 needs you`, or `?1` when `compact` (a side pane, the tmux segment). */
export function countText(c: GroupCount, compact: boolean): string {
  return compact ? `${c.group.glyph}${c.count}` : `${c.group.glyph} ${c.count} ${c.group.word}`;
}

/** The groups of live loops a tmux status line shows (`?1 ✗1 ‖1 ▶3`); '' when none (the line stays clean). */
export function tmuxSegment(states: readonly StateDef[]): string {
  return countGroups(states).map((c) => countText(c, true)).join(' ');
}

/** The states of a group, each word once, in the table's order. */
export function wordsOf(group: GroupId): string[] {
  return [...new Set(STATES.filter((s) => s.group === group).map((s) => s.word))];
}

/** The `?` legend and the README's table: per group, its glyph and word, its states, what it means. */
export function stateLegend(): { head: string; states: string; meaning: string }[] {
  return STATE_GROUPS.map((g) => ({ head: `${g.glyph} ${g.word}`, states: wordsOf(g.id).join(', '), meaning: g.meaning }));
}

/** The README's table of states, generated from the table above. */
export function stateTableMarkdown(): string {
  return ['| group | states | what it means |', '|---|---|---|',
    ...stateLegend().map((l) => `| \`${l.head}\` | ${l.states} | ${l.meaning} |`)].join('\n');
}
