import type { StateCell, RowCells } from '../deck/cells.js';
import { groupById, stateDef, type StateDef } from '../deck/states.js';
import { printable } from '../format/event.js';
import { spendCellText } from '../spend/text.js';
import { activeAdoptedMs } from './governor.js';
import type { ClaudeEntry } from './watch.js';
import { kindWord, needLine, type ClaudePhase } from './view.js';

/**
 * A Claude Code session as a row of the dashboard's table, in the loops' columns: NAME
 * with Claude Code's mark, STATE, ITER (an adopted session's turns, else its kind), STEP
 * (what it needs, else its folder), ELAPSED (its age; an adopted one's active time of its
 * timeout), LAST (when it last changed). Pure.
 */

/** The mark in front of a Claude Code session's name: not one of autodeck's loops. */
export const CLAUDE_MARK = '✻';

/** The session's state in the table's one set of states and groups (src/deck/states.ts). */
export function claudeState(e: ClaudeEntry): StateDef {
  const phase: ClaudePhase = e.view.phase;
  if (phase === 'limit') return stateDef('claude', e.adopted ? 'limit_adopted' : 'limit');
  // a state autodeck does not know: Claude Code's own word
  if (phase === 'other') return stateDef('claude', printable(e.view.word).slice(0, 12) || 'unknown');
  return stateDef('claude', phase);
}

export function claudeStateCell(e: ClaudeEntry): StateCell {
  const s = claudeState(e);
  const g = groupById(s.group);
  return { glyph: g.glyph, word: s.word, tone: s.tone ?? g.tone, ...(s.loud ? { loud: true } : {}) };
}

/** `~/src/app` for a folder under the home directory. */
export function shortPath(path: string, home: string | undefined): string {
  return home && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path;
}

function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** The row's cells but HOST: a session of this machine (the table adds its word). */
export function claudeCells(e: ClaudeEntry, name: string, now: number, home: string | undefined): Omit<RowCells, 'host'> {
  const s = e.session;
  const a = e.adopted;
  const need = e.view.need;
  const step = need ? needLine(need) : a && a.status === 'quota_wait' && a.quotaResetAt ? `limit: resume after ${a.quotaResetAt.slice(11, 16)}` : shortPath(s.cwd, home);
  const elapsed = a
    ? `${clock(activeAdoptedMs(a, now))}/${a.timeoutMinutes}m`
    : e.view.live && s.startedAt !== undefined ? clock(now - s.startedAt) : '';
  const changed = s.updatedAt ?? s.startedAt;
  return {
    name: printable(`${CLAUDE_MARK} ${name}`),
    elsewhere: false,
    state: claudeStateCell(e),
    iteration: a ? `${a.turns}/${a.maxIterations}` : kindWord(s.kind),
    step: printable(step),
    elapsed,
    paused: Boolean(a?.quotaWaitSince),
    stalls: '',
    recoveries: '',
    lastSignal: changed !== undefined ? age(now - changed) : '',
    ...(a ? { iterationFill: a.maxIterations > 0 ? Math.min(1, a.turns / a.maxIterations) : 0, elapsedFill: Math.min(1, activeAdoptedMs(a, now) / (a.timeoutMinutes * 60_000)) } : {}),
    spend: a ? spendCellText(a.tokens, a.costUsd) : '',
    ctx: '',
  };
}
