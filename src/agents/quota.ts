/**
 * Quota / usage-limit stops (SPEC 5.4): finding the message on a screen or in a transcript
 * entry, and turning its reset clause into an instant. Pure: the time is always passed in.
 */

/** Added to every reset time: the limit lifts on the provider's clock, not ours. */
export const QUOTA_RESET_MARGIN_MS = 60_000;

export interface QuotaMatch {
  /** The screen line (or first transcript line) that carries the stop, trimmed. */
  line: string;
  /** The reset clause ("resets 5am (UTC)", "try again in 20s", "|1749924000"), when it has one. */
  resetText?: string;
}

/**
 * A stop line: `head` must match at the start of the line once leading decorations
 * (`⎿`, `■`, `✕ [`, `⚡`, box rules, bullets) are stripped, so prose or a diff that merely
 * mentions a limit does not match; `need`, when given, must occur in that line or the next
 * three (API error dumps wrap). `mid` patterns are JSON fields matched anywhere in a line.
 */
interface StopPattern {
  head?: RegExp;
  mid?: RegExp;
  need?: RegExp;
  /** Where the wording comes from: `spec` (SPEC 5.4 / CLAUDE-CODE.md) or `transcribed <source>`. */
  from: string;
}

const STOP_PATTERNS: readonly StopPattern[] = [
  // `Claude AI usage limit reached|<epoch>`, `Claude usage limit reached. Your limit will reset at 1pm (…)`
  { head: /^Claude (?:AI )?usage limit reached\b/i, from: 'spec' },
  // `5-hour limit reached ∙ resets 5am`, `Opus weekly limit reached ∙ resets Oct 31, 9am`;
  // Gemini `Usage limit reached for gemini-3-flash-preview. Access resets at 10:57 PM GMT-3.`
  // (transcribed, google-gemini/gemini-cli#22643); OpenAI `Rate limit reached for gpt-4o …`.
  {
    head: /^(?:[\w-]+ )?(?:5-hour|five-hour|session|weekly|daily|monthly|usage|rate|quota|opus|sonnet) limit (?:reached|exceeded)\b/i,
    from: 'spec',
  },
  // `You've hit your limit · resets 2am (Europe/Paris)`, `… your session|weekly|Opus|Sonnet limit …`;
  // Codex `You've hit your usage limit. … try again in 5 days 22 hours 11 minutes.` (transcribed,
  // openai/codex#3899, #3124, #26668); Gemini `You have reached your daily gemini-2.5-pro quota
  // limit.` (transcribed, google-gemini/gemini-cli#3796).
  { head: /^You(?:'ve| have) (?:hit|reached) your (?:[\w.-]+ ){0,3}(?:limit|quota)\b/i, from: 'spec' },
  // `API Error: 429 … rate_limit_error …`, `API Error: Request rejected (429) · …`; Gemini
  // `✕ [API Error: {"error":{… "code": 429 … RESOURCE_EXHAUSTED …` (transcribed, gemini-cli#1800).
  { head: /^API Error\b/i, need: /\b429\b|rate_limit|RESOURCE_EXHAUSTED|quota/i, from: 'spec' },
  { mid: /\btype\\?"?\s*:\s*\\?"rate_limit_error\b/, from: 'spec' },
  // Gemini: `You have exhausted your capacity on this model. Your quota will reset after 53s.`
  // (transcribed, router-for-me/CLIProxyAPI#1702), `You have exhausted your daily quota on this
  // model.` (gemini-cli#15576), the raw `"status": "RESOURCE_EXHAUSTED"` (gemini-cli#1848).
  { head: /^You have exhausted your (?:[\w-]+ )?(?:quota|capacity)\b/i, from: 'transcribed gemini-cli' },
  { head: /^Quota exceeded\b/i, from: 'transcribed gemini-cli' },
  { mid: /\bstatus\\?"?\s*:\s*\\?"RESOURCE_EXHAUSTED\b/, from: 'transcribed gemini-cli#1848' },
  // Codex after its own retries: `stream error: exceeded retry limit, last status: 429 Too Many
  // Requests` (transcribed, openai/codex#36823); its JSON `"type":"usage_limit_reached"`
  // (transcribed, earendil-works/pi#4172).
  { head: /^(?:[\w ]+: )?exceeded retry limit\b.*\b429\b/i, from: 'transcribed openai/codex#36823' },
  { mid: /\btype\\?"?\s*:\s*\\?"usage_limit_reached\b/, from: 'transcribed earendil-works/pi#4172' },
  // Aider (litellm): `The API provider has rate limited you. Try again later or check your
  // quotas.` — a stop only when no `Retrying in …` follows (transcribed, Aider-AI aider/exceptions.py).
  { head: /^The API provider has rate limited you\b/i, from: 'transcribed aider exceptions.py' },
];

/**
 * Warnings, not stops: `Approaching usage limit`, `You've used 92% of your session limit ·
 * resets …` (CLAUDE-CODE.md), Codex `⚠ Heads up, you've used over 75% of your 5h limit.`
 * (transcribed, openai/codex tui). Checked first, so a warning line never counts.
 */
const WARNING_HEADS: readonly RegExp[] = [/^Approaching\b/i, /^You(?:'ve| have) used\b/i, /^Heads up\b/i];

/**
 * A retry still in progress: Claude Code's `Session limit reached · Retrying in 2s (…) · attempt
 * 1/10` (CLAUDE-CODE.md: "an API retry is busy too"), aider's `Retrying in 0.2 seconds...`,
 * Codex `Re-connecting... 1/5` / `retrying 1/5 in 200ms`. Such a line at or after the last stop
 * line means the agent is busy, so there is no quota stop (yet): the agent may still succeed,
 * and a later final failure prints the stop line again below the retries.
 */
const BUSY_RETRY: readonly RegExp[] = [
  /\bRetrying in\b/i,
  /\battempt \d+\s*\/\s*\d+/i,
  /\bRe-?connecting\b.*\d+\s*\/\s*\d+/i,
  /\bretrying \d+\s*\/\s*\d+/i,
];

/**
 * Finds the last quota stop in screen text (or a transcript message). Returns undefined for
 * warnings, for a retry still running, and for text that merely mentions a limit.
 */
export function findQuotaMessage(text: string): QuotaMatch | undefined {
  const lines = text.split(/\r?\n/).map(normalise);
  const at = lastStopLine(lines);
  if (at === undefined) return undefined;
  if (lines.slice(at).some((l) => BUSY_RETRY.some((re) => re.test(l)))) return undefined;
  const resetText = resetClause(logicalLine(lines, at));
  return resetText === undefined ? { line: lines[at]!.trim() } : { line: lines[at]!.trim(), resetText };
}

function lastStopLine(lines: string[]): number | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    if (isStopLine(lines, i)) return i;
  }
  return undefined;
}

function isStopLine(lines: string[], i: number): boolean {
  const bare = stripDecorations(lines[i]!);
  if (WARNING_HEADS.some((re) => re.test(bare))) return false;
  return STOP_PATTERNS.some((p) => {
    if (p.mid) return p.mid.test(lines[i]!);
    if (!p.head?.test(bare)) return false;
    return !p.need || p.need.test(lines.slice(i, i + 4).join(' '));
  });
}

/** NBSP (Claude Code's prompt) and typographic apostrophes would defeat the patterns. */
function normalise(line: string): string {
  return line.replace(/\u00a0/g, ' ').replace(/[\u2018\u2019]/g, "'");
}

/** Leading glyphs a TUI puts before a message: `⎿`, `■`, `✕ [`, `⚡`, `│`, bullets, spaces. */
function stripDecorations(line: string): string {
  return line.replace(/^[^\p{L}\p{N}]+/u, '');
}

/**
 * The stop line plus up to two wrapped continuation lines (a terminal wraps at its width:
 * Codex's `… try again in 5 days 22 hours 11` / `minutes.`, `… send a request to your admin`
 * / `or try again at 3:28 PM.`). A continuation starts in lower case or with a digit.
 */
function logicalLine(lines: string[], at: number): string {
  const parts = [lines[at]!.trim()];
  for (let i = at + 1; i < lines.length && i <= at + 2; i++) {
    const next = lines[i]!.trim();
    if (!/^[a-z0-9]/.test(next)) break;
    parts.push(next);
  }
  return parts.join(' ');
}

/** Where a reset clause starts; `resets_at` / `resets_in_seconds` are Codex's JSON fields. */
const RESET_KEYWORD = /\b(?:resets?|try again|retry after|available again)\b|\bresets_(?:at|in_seconds)\b/i;
const EPOCH_BAR = /\|\s*\d{10,13}(?!\d)/;

/**
 * The part of a message that says when the limit lifts, from its keyword to the end;
 * undefined when it carries no digit ("Try again later") since nothing could be parsed.
 */
export function resetClause(text: string): string | undefined {
  const t = normalise(text);
  const k = RESET_KEYWORD.exec(t);
  const clause = k ? t.slice(k.index).trim() : EPOCH_BAR.exec(t)?.[0];
  return clause !== undefined && /\d/.test(clause) ? clause : undefined;
}

/**
 * A Claude Code transcript line that is a quota stop (CLAUDE-CODE.md): an assistant entry with
 * `isApiErrorMessage: true` and `apiErrorStatus: 429`. Older versions wrote the plain
 * `Claude AI usage limit reached|<epoch>` as a synthetic assistant message (model
 * `<synthetic>`), accepted too when its text is a stop.
 */
export function quotaFromTranscriptEntry(entry: unknown): QuotaMatch | undefined {
  if (!isRecord(entry) || entry['type'] !== 'assistant') return undefined;
  const message = isRecord(entry['message']) ? entry['message'] : {};
  const text = contentText(message['content']);
  const apiQuota = entry['isApiErrorMessage'] === true && entry['apiErrorStatus'] === 429;
  const found = findQuotaMessage(text);
  if (apiQuota) {
    const line = found?.line ?? firstLine(text) ?? 'API Error: 429';
    const resetText = found?.resetText ?? resetClause(text);
    return resetText === undefined ? { line } : { line, resetText };
  }
  return message['model'] === '<synthetic>' ? found : undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The text of a message's content: a string, or the `text` blocks of an array. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is { type: 'text'; text: string } => isRecord(b) && b['type'] === 'text' && typeof b['text'] === 'string')
    .map((b) => b.text)
    .join('\n');
}

function firstLine(text: string): string | undefined {
  return text.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '');
}

// ---------------------------------------------------------------------------------------------
// Reset time

/**
 * The reset instant named by `text`, plus QUOTA_RESET_MARGIN_MS, or undefined when it names
 * none. Tried in order: an epoch (`|1749924000`, seconds or milliseconds), a relative delay
 * (`in 2 hours 3 minutes`, `in 2h 3m`, `after 53s`), a clock time with an optional month-day or
 * weekday before it and an optional zone after it. A clock time without a zone is read in
 * `opts.timeZone` (default: the machine's); a zone that Intl does not know falls back to it.
 * A time that has passed rolls forward to the next one (tomorrow, next week, next year).
 */
export function parseResetTime(text: string, now: Date, opts: { timeZone?: string } = {}): Date | undefined {
  const t = normalise(text).replace(/\s+/g, ' ');
  const at = epochReset(t) ?? relativeReset(t, now.getTime()) ?? clockReset(t, now.getTime(), opts.timeZone);
  return at === undefined ? undefined : new Date(at + QUOTA_RESET_MARGIN_MS);
}

function epochReset(t: string): number | undefined {
  // `|<epoch>` (Claude Code); `"resets_at":<epoch>` in Codex's JSON error (pi#4172).
  const m = /\|\s*(\d{10,13})(?!\d)/.exec(t) ?? /\bresets?_at\\?"?\s*[:=]\s*(\d{10,13})(?!\d)/i.exec(t);
  if (!m) return undefined;
  const n = Number(m[1]);
  return n < 1e11 ? n * 1000 : n;
}

const DURATION_PART = String.raw`\d+(?:\.\d+)?\s*(?:milliseconds?|ms|days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)(?![a-z])`;
const RELATIVE = new RegExp(String.raw`\b(?:in|after)\s+((?:${DURATION_PART}(?:\s*,?\s*(?:and\s+)?))+)`, 'i');

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

function clockReset(t: string, nowMs: number, fallbackZone: string | undefined): number | undefined {
  const clock = CLOCK.exec(t);
  const wall = clock ? wallFromClock(t, clock) : wallFromDateOnly(t);
  if (!wall) return undefined;
  const rest = clock ? t.slice(clock.index + clock[0].length) : '';
  const zone = zoneAfter(rest) ?? namedZone(fallbackZone) ?? namedZone(machineZone()) ?? fixedZone(0);
  return nextOccurrence(wall, nowMs, zone);
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
 * The first instant after now that the wall time names, rolling forward: a bare clock time
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
  const m = /^\s*(?:\(([^()]{1,64})\)|((?:UTC|GMT|Z)(?:[+-]\d{1,2}(?::?\d{2})?)?(?![\w/])|[A-Za-z]+\/[A-Za-z0-9_+\-/]+))/i.exec(rest);
  const name = m?.[1] ?? m?.[2];
  return name === undefined ? undefined : namedZone(name.trim());
}

function namedZone(name: string | undefined): Zone | undefined {
  if (!name) return undefined;
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
