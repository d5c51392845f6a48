import { normalise } from './quota.js';

/**
 * The instant a quota message's reset clause names: an epoch, a delay or a clock
 * time in a zone. Pure: the time is always passed in.
 */

/** Added to every reset time: the limit lifts on the provider's clock, not ours. */
export const QUOTA_RESET_MARGIN_MS = 60_000;

/**
 * A clock time without a date that passed this little before the message was seen has just
 * passed, not tomorrow's: agents print the minute (`try again at 9:28 PM`) while the limit
 * lifts within it, and the screen is looked at a heartbeat later.
 */
export const CLOCK_GRACE_MS = 5 * 60_000;

export interface ResetOptions {
  /** The zone of a clock time that names none (default: the machine's). */
  timeZone?: string | undefined;
  /**
   * When the message was first seen (or written): a delay counts from then, and a clock time
   * is the next such time after it (less CLOCK_GRACE_MS), not after `now`. Default: `now`.
   */
  seenAt?: Date | undefined;
}

/**
 * The reset instant named by `text`, plus QUOTA_RESET_MARGIN_MS, or undefined when it names
 * none. Tried in order: an epoch (`|1749924000`, seconds or milliseconds), a relative delay
 * (`in 2 hours 3 minutes`, `in 2h 3m`, `after 53s`), a clock time with an optional month-day or
 * weekday before it and an optional zone after it. A clock time without a zone is read in
 * `opts.timeZone` (default: the machine's); a zone that Intl does not know falls back to it.
 * A time that has passed when the message was seen rolls forward to the next one (tomorrow,
 * next week, next year); an epoch or a date with its year that has passed, margin included,
 * gives now: never a time in the past.
 */
export function parseResetTime(text: string, now: Date, opts: ResetOptions = {}): Date | undefined {
  // `in an hour`, `in a minute`: one of the unit
  const t = normalise(text).replace(/\s+/g, ' ').replace(/\b(in|after) an? (hour|minute|day|second)\b/gi, '$1 1 $2');
  const seen = Math.min(opts.seenAt?.getTime() ?? now.getTime(), now.getTime());
  const at = epochReset(t) ?? relativeReset(t, seen) ?? clockReset(t, seen, opts.timeZone);
  // Never in the past: an epoch or a dated reset that (with its margin) has passed means now.
  return at === undefined ? undefined : new Date(Math.max(at + QUOTA_RESET_MARGIN_MS, now.getTime()));
}

function epochReset(t: string): number | undefined {
  // an ISO 8601 instant with its offset: `Resets at 2026-09-04T15:00:00Z`
  const iso = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))(?![\w:])/.exec(t);
  if (iso && !Number.isNaN(Date.parse(iso[1]!))) return Date.parse(iso[1]!);
  // `|<epoch>` (Claude Code); `"resets_at":<epoch>` in Codex's JSON error (pi#4172).
  const m = /\|\s*(\d{10,13})(?!\d)/.exec(t) ?? /\bresets?_at\\?"?\s*[:=]\s*(\d{10,13})(?!\d)/i.exec(t);
  if (!m) return undefined;
  const n = Number(m[1]);
  return n < 1e11 ? n * 1000 : n;
}

const DURATION_PART = String.raw`\d+(?:\.\d+)?\s*(?:milliseconds?|ms|days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)(?![a-z])`;
/** `in 2 hours 3 minutes`, `after 53s`, `in: 3 hours` (claude-auto-retry), `wait 30 mins`. */
const RELATIVE = new RegExp(String.raw`\b(?:in|after|wait(?:\s+for)?)\s*:?\s+((?:${DURATION_PART}(?:\s*,?\s*(?:and\s+)?))+)`, 'i');

function relativeReset(t: string, nowMs: number): number | undefined {
  const secondsField = /\bresets_in_seconds\\?"?\s*:\s*(\d+)/i.exec(t);
  if (secondsField) return nowMs + Number(secondsField[1]) * 1000;
  const m = RELATIVE.exec(t);
  if (!m) return undefined;
  let ms = 0;
  for (const [, n, unit] of m[1]!.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) ms += Number(n) * unitMs(unit!.toLowerCase());
  return nowMs + Math.round(ms);
}

function unitMs(unit: string): number {
  if (unit === 'ms' || unit.startsWith('milli')) return 1;
  if (unit.startsWith('d')) return 86_400_000;
  if (unit.startsWith('h')) return 3_600_000;
  if (unit.startsWith('m')) return 60_000;
  return 1000;
}

const MONTH = String.raw`jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?`;
const WEEKDAY = String.raw`sun(?:day)?|mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?`;
/** `5am`, `12:50am`, `9:05 PM`, `9 p.m.`, or 24-hour `13:00` (not the `37:42` of `15:37:42`). */
const CLOCK = /(?<![\d:])(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?|(?<![\d:])(\d{1,2}):(\d{2})(?![\d:])/i;
/** A month-day (`Oct 31`, `Jul 5th, 2026`) or weekday (`Mon`) right before the clock time. */
const DATE_BEFORE = new RegExp(String.raw`(?:\b(${MONTH})\.? (\d{1,2})(?:st|nd|rd|th)?(?:,? (\d{4}))?|\b(${WEEKDAY})\.?),? (?:at )?$`, 'i');
/** A date with no time after it: Codex's `Try again Aug 18.` (midnight, local). */
const DATE_ONLY = new RegExp(String.raw`\b(${MONTH})\.? (\d{1,2})(?:st|nd|rd|th)?\b(?:,? (\d{4}))?`, 'i');

interface Wall {
  hour: number;
  minute: number;
  month?: number;
  day?: number;
  year?: number;
  weekday?: number;
}

function clockReset(t: string, seenMs: number, fallbackZone: string | undefined): number | undefined {
  const clock = CLOCK.exec(t);
  const wall = clock ? wallFromClock(t, clock) : wallFromDateOnly(t);
  if (!wall) return undefined;
  const rest = clock ? t.slice(clock.index + clock[0].length) : '';
  const zone = zoneAfter(rest) ?? namedZone(fallbackZone) ?? namedZone(machineZone()) ?? fixedZone(0);
  // `at 11am tomorrow`: not today even when 11am is still ahead
  if (/\btomorrow\b/i.test(t) && wall.month === undefined && wall.weekday === undefined) {
    const today = wallDate(seenMs, zone);
    return wallToUtc(Date.UTC(today.year, today.month, today.day + 1, wall.hour, wall.minute), zone)[0]!;
  }
  return nextOccurrence(wall, seenMs - CLOCK_GRACE_MS, zone);
}

function wallFromClock(t: string, clock: RegExpExecArray): Wall | undefined {
  const time = clockTime(clock);
  if (!time) return undefined;
  const d = DATE_BEFORE.exec(t.slice(0, clock.index));
  if (!d) return time;
  if (d[4]) return { ...time, weekday: weekdayIndex(d[4]) };
  return { ...time, ...monthDay(d[1]!, d[2]!, d[3]) };
}

function wallFromDateOnly(t: string): Wall | undefined {
  const d = DATE_ONLY.exec(t);
  return d ? { hour: 0, minute: 0, ...monthDay(d[1]!, d[2]!, d[3]) } : undefined;
}

function clockTime(m: RegExpExecArray): { hour: number; minute: number } | undefined {
  if (m[3]) {
    const h = Number(m[1]);
    const minute = Number(m[2] ?? 0);
    if (h < 1 || h > 12 || minute > 59) return undefined;
    return { hour: (h % 12) + (m[3].toLowerCase() === 'p' ? 12 : 0), minute };
  }
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  return hour > 23 || minute > 59 ? undefined : { hour, minute };
}

function monthDay(month: string, day: string, year: string | undefined): Pick<Wall, 'month' | 'day' | 'year'> {
  const m = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].indexOf(month.slice(0, 3).toLowerCase());
  return year ? { month: m, day: Number(day), year: Number(year) } : { month: m, day: Number(day) };
}

function weekdayIndex(name: string): number {
  return ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].indexOf(name.slice(0, 3).toLowerCase());
}

/**
 * The first instant after `nowMs` that the wall time names, rolling forward: a bare clock time
 * by days, a weekday by weeks, a month-day by years (an explicit year never rolls). Each
 * candidate is converted from its own calendar day, so "tomorrow 9am" across a daylight-saving
 * change is still 9am, not now + 24 h; on a fall-back day a repeated time that has passed
 * once is still ahead the second time.
 */
function nextOccurrence(w: Wall, nowMs: number, zone: Zone): number {
  const today = wallDate(nowMs, zone);
  const instants = (y: number, mo: number, d: number) => wallToUtc(Date.UTC(y, mo, d, w.hour, w.minute), zone);
  const after = (y: number, mo: number, d: number) => instants(y, mo, d).find((t) => t > nowMs);
  if (w.month !== undefined && w.day !== undefined) {
    if (w.year !== undefined) return instants(w.year, w.month, w.day)[0]!;
    return after(today.year, w.month, w.day) ?? instants(today.year + 1, w.month, w.day)[0]!;
  }
  const ahead = w.weekday === undefined ? 0 : (w.weekday - today.weekday + 7) % 7;
  const step = w.weekday === undefined ? 1 : 7;
  return after(today.year, today.month, today.day + ahead) ?? instants(today.year, today.month, today.day + ahead + step)[0]!;
}

// ---------------------------------------------------------------------------------------------
// Time zones with Intl only

/** A zone as its UTC offset (ms) at a given instant. */
type Zone = (utcMs: number) => number;

const DAY_MS = 86_400_000;

function fixedZone(offsetMs: number): Zone {
  return () => offsetMs;
}

/**
 * The zone named after a clock time: `(Europe/Paris)`, `(Etc/GMT+5)`, `(UTC)`, or bare
 * `UTC`, `GMT-3` (Gemini's `10:57 PM GMT-3`), `America/Los_Angeles`. `GMT-3` is a human
 * offset (UTC−3); `Etc/GMT+5` is the IANA zone, whose sign is inverted (UTC−5), left to Intl.
 */
function zoneAfter(rest: string): Zone | undefined {
  const m = /^\s*(?:\(([^()]{1,64})\)|((?:UTC|GMT|Z)(?:[+-]\d{1,2}(?::?\d{2})?)?(?![\w/])|[A-Za-z]+\/[A-Za-z0-9_+\-/]+|[A-Z]{2,4}T(?![\w/])))/i.exec(rest);
  const name = m?.[1] ?? m?.[2];
  return name === undefined ? undefined : namedZone(name.trim());
}

/**
 * Common zone abbreviations as fixed offsets (hours). `IST` is read as India, `CST` as US
 * Central: the most likely in an English message; a named IANA zone is always better.
 */
const ABBREVIATIONS: Readonly<Record<string, number>> = {
  PST: -8, PDT: -7, MST: -7, MDT: -6, CST: -6, CDT: -5, EST: -5, EDT: -4, AKST: -9, AKDT: -8, HST: -10,
  WET: 0, WEST: 1, BST: 1, CET: 1, CEST: 2, EET: 2, EEST: 3, MSK: 3, IST: 5.5, SGT: 8, HKT: 8, JST: 9, KST: 9,
  AEST: 10, AEDT: 11, NZST: 12, NZDT: 13,
};

function namedZone(name: string | undefined): Zone | undefined {
  if (!name) return undefined;
  const abbr = ABBREVIATIONS[name.toUpperCase()];
  if (abbr !== undefined) return fixedZone(abbr * 3_600_000);
  const off = /^(?:UTC|GMT|Z)(?:([+-])(\d{1,2})(?::?(\d{2}))?)?$/i.exec(name);
  if (off) return fixedZone((off[1] === '-' ? -1 : 1) * (Number(off[2] ?? 0) * 60 + Number(off[3] ?? 0)) * 60_000);
  const fmt = formatter(name);
  return fmt ? (utcMs) => intlOffset(fmt, utcMs) : undefined;
}

function machineZone(): string | undefined {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

const formatters = new Map<string, Intl.DateTimeFormat | undefined>();

/** A formatter for the zone, or undefined when Intl does not know the name (RangeError). */
function formatter(zone: string): Intl.DateTimeFormat | undefined {
  if (!formatters.has(zone)) {
    let fmt: Intl.DateTimeFormat | undefined;
    try {
      fmt = new Intl.DateTimeFormat('en-US', {
        timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
        hour: 'numeric', minute: 'numeric', second: 'numeric',
      });
    } catch {
      fmt = undefined;
    }
    formatters.set(zone, fmt);
  }
  return formatters.get(zone);
}

/** Offset = the zone's wall clock read as if it were UTC, minus the instant (whole seconds). */
function intlOffset(fmt: Intl.DateTimeFormat, utcMs: number): number {
  const p: Record<string, number> = {};
  for (const part of fmt.formatToParts(utcMs)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const asUtc = Date.UTC(p['year']!, p['month']! - 1, p['day']!, p['hour']! % 24, p['minute']!, p['second']!);
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

function wallDate(utcMs: number, zone: Zone): { year: number; month: number; day: number; weekday: number } {
  const d = new Date(utcMs + zone(utcMs));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth(), day: d.getUTCDate(), weekday: d.getUTCDay() };
}

/**
 * The instants at which the zone's clock shows `wallMs` (a wall time encoded as if UTC),
 * earliest first. The offsets a day before and after are the only candidates (no zone
 * changes twice in a day). Both valid: an ambiguous fall-back time, the earlier instant comes
 * first. Neither valid: a time inside a spring-forward gap, read with the offset from before
 * the gap, which moves it forward by the gap's length (2:30 -> 3:30). This is Temporal's
 * "compatible" disambiguation (tc39.es/proposal-temporal/docs/timezone.html).
 */
function wallToUtc(wallMs: number, zone: Zone): number[] {
  const before = wallMs - zone(wallMs - DAY_MS);
  const after = wallMs - zone(wallMs + DAY_MS);
  const valid = [...new Set([before, after])].filter((t) => t + zone(t) === wallMs).sort((a, b) => a - b);
  return valid.length > 0 ? valid : [before];
}
