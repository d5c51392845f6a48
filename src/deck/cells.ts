import prettyMs from 'pretty-ms';
import { activeBase, activeMsSince, type ActiveBase } from '../supervisor/limits.js';
import { printable } from '../format/event.js';
import type { DeckRow } from './deck.js';
import { ctxCellText, spendCellText } from '../spend/text.js';
import { needsYou, needsYouLine } from './needsYou.js';
import { claudeCells, claudeState, claudeStateCell } from '../claudeSessions/cells.js';
import { groupById, stateDef, stateOf, type StateDef, type Tone } from './states.js';

/** The HOST column's word for this machine. */
export const LOCAL_HOST_CELL = 'local';

export type { Tone } from './states.js';

export interface StateCell {
  /** One column wide in every terminal font we met; the word carries the meaning too. */
  glyph: string;
  word: string;
  tone: Tone;
  /** Wants a person's eye: drawn inverse, so it stands out without colour too. */
  loud?: boolean;
}

/** How a state reads in the STATE column: its group's glyph, its own word. */
export function cellOf(s: StateDef): StateCell {
  const g = groupById(s.group);
  return { glyph: g.glyph, word: s.word, tone: s.tone ?? g.tone, ...(s.loud ? { loud: true } : {}) };
}

/** A row's state (src/deck/states.ts): a Claude Code session's, a host's own row, a stale loop, or a module's. */
export function rowState(row: DeckRow): StateDef {
  if (row.claude) {
    // a session last seen on a host that does not answer: stale, and still a Claude Code session (the header counts it so)
    return row.staleFor === undefined ? claudeState(row.claude) : { ...stateDef('derived', 'stale'), source: 'claude' };
  }
  return stateOf({
    loop: row.loop, lastOutcome: row.lastRun?.outcome, lifecycle: row.lifecycle,
    hostIssue: row.hostIssue?.kind, stale: row.staleFor !== undefined,
  });
}

/**
 * The state column: a host's own row says why it is there; a stale loop, how long ago it
 * was seen; a loop's status (or "needs you"); with no loop, the outcome of the
 * module's last run (what a person wants to know after a loop ended), else its own status.
 */
export function stateCell(row: DeckRow): StateCell {
  if (row.claude && row.staleFor === undefined) return claudeStateCell(row.claude);
  const state = rowState(row);
  const cell = cellOf(state);
  // a loop last seen on a host that does not answer: how long ago, after the word
  if (row.staleFor !== undefined && state.group === 'stale') return { ...cell, word: `${cell.word} ${row.staleFor}` };
  // A loop elsewhere whose owner died waits for an autodeck to adopt it.
  return row.loop && !row.here && !row.ownerAlive ? { glyph: cell.glyph, word: `${cell.word}?`, tone: 'muted' } : cell;
}

/**
 * Clocks formatted, by whole second: a tick asks for the same second of a row several
 * times (its cells, the comparison of rows, the live clocks), and pretty-ms is not cheap.
 */
const clocks = new Map<number, string>();

/** `12:04` below an hour, `1:02:03` above: fixed shape, so the column does not jump. */
export function clockDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  let text = clocks.get(seconds);
  if (text === undefined) {
    if (clocks.size >= 1024) clocks.clear();
    text = prettyMs(seconds * 1000, { colonNotation: true, secondsDecimalDigits: 0 });
    clocks.set(seconds, text);
  }
  return text;
}

/** `45s`, `3m`, `2h`, `4d`: the one-unit age of a last signal. */
export function shortAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/**
 * `just now`, `3m ago`: minutes at the finest, so an idle dashboard redraws once a
 * minute at most (each redraw is a frame sent down an ssh link).
 */
export function endedAgo(ms: number): string {
  return ms < 60_000 ? 'just now' : `${shortAge(ms)} ago`;
}

/** How full a bar is: `done` of `total`, between 0 and 1 (0 when there is no total). */
export function fill(done: number, total: number): number {
  return total > 0 && Number.isFinite(done) ? Math.min(1, Math.max(0, done / total)) : 0;
}

/** A quota wait's STEP: the time left to the reset, counting down. */
export function quotaStep(leftMs: number): string {
  return leftMs > 0 ? `reset in ${clockDuration(leftMs + 999)}` : 'reset: trying again';
}

function minutes(m: number): string {
  return m >= 60 && m % 60 === 0 ? `${m / 60}h` : `${Number(m.toFixed(2))}m`;
}

export interface RowCells {
  name: string;
  /** The host the module is on (`local` for this machine). */
  host: string;
  /** Run by another autodeck process. */
  elsewhere: boolean;
  state: StateCell;
  iteration: string;
  step: string;
  elapsed: string;
  /** Elapsed time is not counting (quota wait). */
  paused: boolean;
  stalls: string;
  recoveries: string;
  /** The age of the last signal; for a finished run, how long ago it ended. */
  lastSignal: string;
  /** How much of the iteration budget is used (0..1), for a bar; undefined: no bar. */
  iterationFill?: number | undefined;
  /** How much of the timeout is used (0..1), for a bar; undefined: no bar. */
  elapsedFill?: number | undefined;
  /** Tokens and cost from the transcript (`12.3k $0.41`, `12.3k` without a price, `–` without a transcript). */
  spend?: string;
  /** How full the context is (`85%`; `–` unknown; '' for a finished run). */
  ctx?: string;
}

/** The spend cells of a row: a loop's figures now, or its last run's spend (a finished run has no context). */
export function spendCells(row: DeckRow): Pick<RowCells, 'spend' | 'ctx'> {
  if (row.loop) return { spend: spendCellText(row.loop.tokens, row.loop.costUsd), ctx: ctxCellText(row.loop.contextTokens, row.loop.contextWindow) };
  if (row.lastRun) return { spend: spendCellText(row.lastRun.tokens, row.lastRun.costUsd), ctx: '' };
  return { spend: '', ctx: '' };
}

function waitingText(loop: NonNullable<DeckRow['loop']>): string | undefined {
  const n = loop.status === 'failed' ? undefined : needsYou(loop);
  return n ? needsYouLine(n) : undefined;
}

export interface CellLimits {
  stallThreshold: number;
  recoveryTotal: number;
}

/** A row's cells as far as time does not move them, kept per row. */
interface Timeless {
  limits: CellLimits;
  cells: RowCells;
  /** Its step is a quota wait's countdown, worked out at each look. */
  countdown: boolean;
  /** The row's times, parsed once (the clocks are worked out from them every second). */
  times: RowTimes;
}

interface RowTimes {
  /** A loop's: what its active time counts from. */
  active?: ActiveBase;
  /** A loop's last signal, or the end of a module's last run. */
  lastMs?: number;
  quotaUntilMs?: number;
  /** A loop's timeout, as ELAPSED shows it after the slash. */
  timeout?: string;
  /** A verify running now: when it started, and its number of the allowed (`2/3`). */
  verifyMs?: number;
  verifyOf?: string;
}

function rowTimes(row: DeckRow): RowTimes {
  const loop = row.loop;
  if (!loop) return row.lastRun ? { lastMs: Date.parse(row.lastRun.endedAt) } : {};
  return {
    active: activeBase(loop),
    ...(loop.lastSignalAt ? { lastMs: Date.parse(loop.lastSignalAt) } : {}),
    ...(row.quotaUntil ? { quotaUntilMs: Date.parse(row.quotaUntil) } : {}),
    timeout: minutes(loop.timeoutMinutes),
    ...(loop.status === 'verifying' && loop.verifyStartedAt ? {
      verifyMs: Date.parse(loop.verifyStartedAt),
      verifyOf: `${(loop.verifyFailures ?? 0) + 1}/${Number(loop.settings.verifyAttempts) || 3}`,
    } : {}),
  };
}

/**
 * Per row object: the deck replaces a row when anything in it changed and never changes
 * one, so a row's timeless cells are worked out once. The table asks for every row's cells
 * each second (the clocks), and for the rows that changed at each change.
 */
const timelessByRow = new WeakMap<DeckRow, Timeless>();

function timelessCells(row: DeckRow, limits: CellLimits): Timeless {
  const loop = row.loop;
  // elsewhere: run by another autodeck of this machine (a loop on another host says so in HOST)
  const base = { name: printable(row.name), host: printable(row.host ?? LOCAL_HOST_CELL), elsewhere: Boolean(loop && !row.here && row.host === undefined), state: stateCell(row), ...spendCells(row) };
  if (row.hostIssue) {
    // a host's own row: the why in STEP, nothing else
    const cells = { ...base, iteration: '', paused: false, stalls: '', recoveries: '', elapsed: '', step: printable(row.hostIssue.message), lastSignal: '' };
    return { limits, cells, countdown: false, times: {} };
  }
  if (!loop) {
    const last = row.lastRun;
    // A finished run: its outcome in STATE, its active time in ELAPSED, its end in LAST; STEP is left empty.
    const cells = {
      ...base, iteration: last ? `${last.iterations}/${last.maxIterations}` : '', paused: false, stalls: '', recoveries: '',
      elapsed: last?.activeMs !== undefined ? clockDuration(last.activeMs) : '',
      step: '', lastSignal: '',
      iterationFill: last ? fill(last.iterations, last.maxIterations) : undefined,
    };
    return { limits, cells, countdown: false, times: rowTimes(row) };
  }
  const threshold = Number(loop.settings.stallThreshold) || limits.stallThreshold;
  const total = Number(loop.settings.recoveryTotal) || limits.recoveryTotal;
  // a failed loop shows why it failed (a missing command, the restart limit) where its step was;
  // a loop that needs a person, why and the question; one in a quota wait, the time to the reset
  const reason = loop.status === 'failed' && loop.stopReason ? loop.stopReason : waitingText(loop);
  const countdown = reason === undefined && Boolean(row.quotaUntil);
  const stepText = loop.step ? `${loop.step}${loop.result ? ` ${loop.result}` : ''}${loop.next ? ` -> ${loop.next}` : ''}` : '';
  const cells = {
    ...base,
    iteration: `${loop.iteration}/${loop.maxIterations}`,
    step: countdown ? '' : printable(reason ?? stepText),
    elapsed: '',
    iterationFill: fill(loop.iteration, loop.maxIterations),
    elapsedFill: undefined as number | undefined,
    paused: loop.quotaWaitSince !== '',
    stalls: `${loop.stallCount}/${threshold}`,
    // the loop's stall recoveries of the most it may make (recoveryTotal): `2/10`
    recoveries: total ? `${loop.recoveryTotal}/${total}` : String(loop.recoveryTotal),
    lastSignal: '',
  };
  return { limits, cells, countdown, times: rowTimes(row) };
}

/** The cells rowCells works out from `now` (a quota's countdown is the step's): the only ones time alone changes. */
export const TIMED_CELLS: ReadonlySet<string> = new Set(['elapsed', 'lastSignal', 'step']);

/**
 * Every cell of a row as text, at time `now`. Text from files (names, steps) is made
 * printable: a module name cannot drive the terminal.
 */
export function rowCells(row: DeckRow, now: number, limits: CellLimits): RowCells {
  // a Claude Code session: this machine's, or another host's (its paths shown against that host's home)
  if (row.claude) {
    const cells = claudeCells(row.claude, row.name, now, row.host === undefined ? process.env.HOME : row.home);
    return { ...cells, host: printable(row.host ?? LOCAL_HOST_CELL), ...(row.staleFor !== undefined ? { state: stateCell(row) } : {}) };
  }
  let t = timelessByRow.get(row);
  if (t?.limits !== limits) {
    t = timelessCells(row, limits);
    timelessByRow.set(row, t);
  }
  const loop = row.loop;
  const times = t.times;
  if (!loop) return { ...t.cells, lastSignal: times.lastMs !== undefined ? endedAgo(now - times.lastMs) : '' };
  const live = loop.status !== 'failed' && loop.status !== 'suspended';
  const active = live ? activeMsSince(times.active!, now) : 0;
  const cells: RowCells = {
    ...t.cells,
    elapsed: `${clockDuration(active)}/${times.timeout!}`,
    elapsedFill: live ? fill(active, loop.timeoutMinutes * 60_000) : undefined,
    lastSignal: times.lastMs !== undefined ? shortAge(now - times.lastMs) : '-',
  };
  if (t.countdown) cells.step = printable(quotaStep(times.quotaUntilMs! - now));
  // a verify under way: how long it has run, and which of the allowed it is
  else if (times.verifyMs !== undefined) cells.step = `verify ${clockDuration(now - times.verifyMs)} (${times.verifyOf})`;
  return cells;
}

/** RowCells fields drawn only in some layouts (the spend columns from 130 columns). */
export const SPEND_FIELDS: ReadonlySet<string> = new Set(['spend', 'ctx']);

/**
 * Everything a row shows at `now`, as one string: two rows that draw alike give the same.
 * Every field of RowCells counts, so a column added there is compared too; the spend
 * fields only when their columns are on screen (`spendShown`).
 */
export function visibleText(row: DeckRow, now: number, limits: CellLimits, spendShown = true): string {
  // Bars move in eighths of a cell: fills compared as drawn at the widest bar, not as raw fractions.
  const entries = Object.entries(rowCells(row, now, limits)).filter(([k]) => spendShown || !SPEND_FIELDS.has(k));
  const cells = entries.map(([k, v]) => {
    if (k.endsWith('Fill')) return v === undefined ? '' : String(Math.round(Number(v) * 64));
    return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
  });
  // The times cells count from are compared as they are: cells equal now but apart later would go stale.
  const l = row.loop;
  const bases = l ? [l.startedAt, l.quotaWaitMs, l.quotaWaitSince, l.lastSignalAt, l.verifyStartedAt] : [row.lastRun?.endedAt];
  return [row.key, row.quotaUntil, ...bases, ...cells].join('\u0000');
}

/**
 * Whether two lists of rows look the same at `now`: the same rows in the same order, every
 * cell's text alike. A heartbeat moves fields no cell shows (capture hashes, lease times,
 * a stall count reset to what it was): the dashboard keeps the rows it has and draws nothing.
 */
export function sameVisibleRows(a: readonly DeckRow[], b: readonly DeckRow[], now: number, limits: CellLimits, spendShown = true): boolean {
  if (a === b) return true;
  return a.length === b.length && a.every((r, i) => r === b[i] || visibleText(r, now, limits, spendShown) === visibleText(b[i]!, now, limits, spendShown));
}
