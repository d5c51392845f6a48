import { describe, expect, it } from 'vitest';
import { findQuotaMessage } from '../../src/agents/quota.js';
import { parseResetTime, QUOTA_RESET_MARGIN_MS } from '../../src/agents/resetTime.js';

/*
 * Quota wording that does not start the line or uses other words, and the
 * reset clauses that go with it. Inputs marked "claude-auto-retry" are copied from
 * cheapestinference/claude-auto-retry test/patterns.test.js and test/time-parser.test.js
 * (commit a81d3763224b1bf3467b89c29c872a4cc6b50f7b); the others are hand-written from reported wordings.
 * Every case runs on a fixed clock; the expected instant is given without the margin.
 */

const at = (iso: string) => new Date(Date.parse(iso) + QUOTA_RESET_MARGIN_MS).toISOString();

/** The reset instant of the whole text as the supervisor computes it: quota line, then its clause. */
function resetOf(text: string, now: string, timeZone = 'UTC'): string | undefined {
  const m = findQuotaMessage(text);
  if (!m) return 'no quota';
  return parseResetTime(m.resetText ?? m.line, new Date(now), { timeZone })?.toISOString();
}

describe('quota stops in other words or not at the start of the line', () => {
  const now = '2026-03-18T13:00:00Z';
  it.each([
    ['error label, em dash, zone', 'error: usage limit reached — resets at 3:00 AM (UTC)', '2026-03-19T03:00:00Z'],
    ['Error: hit your usage limit (no reset)', "Error: You've hit your usage limit", undefined],
    ['plan limit, try again at', 'Plan limit reached … try again at 9:15 pm', '2026-03-18T21:15:00Z'],
    ['out of extra usage (claude-auto-retry)', "You're out of extra usage · resets 3pm", '2026-03-18T15:00:00Z'],
    ['resets in: (claude-auto-retry)', 'usage limit · resets in: 3 hours', '2026-03-18T16:00:00Z'],
    ['5-hour with a hyphen (claude-auto-retry)', '5-hour limit reached - resets 3pm', '2026-03-18T15:00:00Z'],
    ['Dublin zone (claude-auto-retry)', '5-hour limit reached - resets 3pm (Europe/Dublin)', '2026-03-18T15:00:00Z'],
    ['usage limit, resets at (claude-auto-retry)', 'Claude usage limit reached. Resets at 2pm', '2026-03-18T14:00:00Z'],
    ['try again in hours, alone (claude-auto-retry)', 'Please try again in 5 hours', '2026-03-18T18:00:00Z'],
    ['rate limit hit (claude-auto-retry)', 'Rate limit hit. Resets at 4pm', '2026-03-18T16:00:00Z'],
    ['hit the limit (claude-auto-retry)', 'You hit the limit. Resets at 5pm', '2026-03-18T17:00:00Z'],
    ['Tbilisi zone, passed today: tomorrow (claude-auto-retry)', "You've hit your limit · resets 3pm (Asia/Tbilisi)", '2026-03-19T11:00:00Z'],
    ['reset on the next line (claude-auto-retry)', "⚠ You've hit your limit\n· resets 3pm (UTC)", '2026-03-18T15:00:00Z'],
    ['Resets on the next line (claude-auto-retry)', '⚠ 5-hour limit reached\nResets at 3pm (UTC)', '2026-03-18T15:00:00Z'],
    ['drawn in a box (claude-auto-retry)', "╭──────────╮\n│ ⚠ You've hit your limit │\n│ · resets 3pm │\n╰──────────╯", '2026-03-18T15:00:00Z'],
    ['5-hour in the middle (claude-auto-retry)', "⚠ You've hit your 5-hour limit\n· resets 3pm (Asia/Tbilisi)", '2026-03-19T11:00:00Z'],
    ['wait, relative', 'Usage limit reached, wait 30 mins', '2026-03-18T13:30:00Z'],
    ['after a tool bullet', "  ⎿  Error: You've hit your usage limit · resets 4:30pm (UTC)", '2026-03-18T16:30:00Z'],
    ['bracketed label', '[ERROR] Usage limit exceeded · try again in 45 minutes', '2026-03-18T13:45:00Z'],
    ['bare limit with a reset (claude-auto-retry, older)', 'limit resets in: 3 hours', '2026-03-18T16:00:00Z'],
    ['escape sequences in a raw stream (claude-auto-retry)', '5-hour \x1b[1mlimit\x1b[0m reached - resets 3pm', '2026-03-18T15:00:00Z'],
    ['an OSC hyperlink around it (claude-auto-retry)', '\x1b]8;;link\x1b\\5-hour limit reached\x1b]8;;\x1b\\ - resets 3pm', '2026-03-18T15:00:00Z'],
    ['usage limit, zone (claude-auto-retry)', 'Usage limit. Resets at 2pm (America/New_York)', '2026-03-18T18:00:00Z'],
    // other wording classes seen in supervisors' tests (examples written here)
    ['no apostrophe', 'Youve hit your limit · resets 10am (UTC)', '2026-03-19T10:00:00Z'],
    ['upper case', "YOU'VE HIT YOUR LIMIT · resets 8pm (America/Toronto)", '2026-03-19T00:00:00Z'],
    ['no reset given', "You've hit your limit · please wait", undefined],
    ['an ISO instant', 'usage limit reached. Resets at 2026-03-18T17:30:00Z', '2026-03-18T17:30:00Z'],
    ['an ISO instant with an offset', 'Usage limit reached · resets 2026-03-18T19:00:00+02:00', '2026-03-18T17:00:00Z'],
    ['a boxed banner, reset on the next line', '╭────────────────────────╮\n│  Claude usage limit reached  │\n│  Resets at 3pm  │\n╰────────────────────────╯', '2026-03-18T15:00:00Z'],
    ['weekly, relative days', 'Weekly limit reached, try again in 2 days', '2026-03-20T13:00:00Z'],
    ['an unknown zone falls back to the configured one', "You've hit your limit · resets 8pm (Unknown/Timezone)", '2026-03-18T20:00:00Z'],
    ['rate limit with its reset', 'Rate limit exceeded · resets in 10 minutes', '2026-03-18T13:10:00Z'],
    ['the older apology', 'Sorry, your usage limit reached. Your limit will reset at 11am tomorrow', '2026-03-19T11:00:00Z'],
    ['tomorrow, though the hour is still ahead today', 'Usage limit reached for today. Your limit will reset at 3pm tomorrow', '2026-03-19T15:00:00Z'],
    ['the reset sentence alone', 'Your limit will reset at 12am (midnight)', '2026-03-19T00:00:00Z'],
    ['a zone abbreviation', 'usage limit reached · resets at 5:00 PM PST', '2026-03-19T01:00:00Z'],
    ['a daylight abbreviation', 'usage limit reached · resets at 11am EDT', '2026-03-18T15:00:00Z'],
    ['in an hour', 'Usage limit reached. Try again in an hour.', '2026-03-18T14:00:00Z'],
  ])('%s', (_, text, expected) => {
    expect(resetOf(text, now)).toBe(expected === undefined ? undefined : at(expected));
  });
});

describe('not quota', () => {
  it.each([
    ['approaching', 'Approaching usage limit · resets at 9pm'],
    ['a percentage', "You've used 92% of your weekly limit · resets Mon 9am"],
    ['a labelled warning', 'warning: Approaching usage limit'],
    ['normal output (claude-auto-retry)', 'I can help you with that code'],
    ['empty (claude-auto-retry)', ''],
    ['limit and reset far apart, no stop head (claude-auto-retry)', 'hit your limit\n1\n2\n3\n4\n5\n6\n7\nresets 3pm'],
    ['no keywords (claude-auto-retry)', 'Working on your request\nHere is the code\nDone'],
    ['a usage limit mentioned without a reset', 'The usage limit of the API is documented in docs/limits.md'],
    ['a short retry delay is no quota', 'Connection refused. Please try again in 5 seconds'],
    ['context window', 'error: Context limit reached · /compact or /clear to continue'],
    ['a rate limit in a tool\'s output (under ⎿)', '  ⎿  Rate limit exceeded'],
    ['a rate limit in a tool\'s output (its continuation)', '     HTTP 429 Too Many Requests'],
    ['approaching, in a sentence', 'You are approaching your usage limit reached threshold'],
    ['a forecast', 'You will reach your usage limit in about an hour'],
    ['a question about limits', 'How do I tell when the usage limit reached state applies?'],
    ['ulimit', 'ulimit -n 4096'],
    ['a constant', 'const LIMIT = 10;'],
    ['ordinary failures', 'Error: connection timeout'],
  ])('%s', (_, text) => {
    expect(findQuotaMessage(text)).toBeUndefined();
  });
});

describe('reset clauses (claude-auto-retry test/time-parser.test.js)', () => {
  const now = '2026-03-18T13:00:00Z';
  it.each([
    ['resets 3pm (Europe/Dublin)', '2026-03-18T15:00:00Z'],
    ['Resets at 2pm (America/New_York)', '2026-03-18T18:00:00Z'],
    ['resets 15:30 (Asia/Kolkata)', '2026-03-19T10:00:00Z'],
    ['resets 12pm (UTC)', '2026-03-19T12:00:00Z'],
    ['resets 12am (UTC)', '2026-03-19T00:00:00Z'],
    ['try again in 5 minutes', '2026-03-18T13:05:00Z'],
    ['try again in 2 hours', '2026-03-18T15:00:00Z'],
    ['wait 30 mins', '2026-03-18T13:30:00Z'],
    ['usage limit · resets in: 3 hours', '2026-03-18T16:00:00Z'],
    ['resets in 2 hours', '2026-03-18T15:00:00Z'],
    ['resets 3am (UTC)', '2026-03-19T03:00:00Z'],
  ])('%s', (text, expected) => {
    expect(parseResetTime(text, new Date(now), { timeZone: 'UTC' })?.toISOString()).toBe(at(expected));
  });

  it('some random text has no reset', () => {
    expect(parseResetTime('some random text', new Date(now))).toBeUndefined();
  });
});

describe('time zones and daylight saving', () => {
  it.each([
    // the message's zone wins over the configured one
    ['resets 3pm (America/New_York)', '2026-03-07T12:00:00Z', 'Asia/Tokyo', '2026-03-07T20:00:00Z'],
    // New York springs forward on 2026-03-08: tomorrow 3pm is UTC-4, not UTC-5
    ['resets 3pm (America/New_York)', '2026-03-07T21:00:00Z', 'UTC', '2026-03-08T19:00:00Z'],
    // no zone in the message: the configured zone (Europe/Berlin falls back on 2026-10-25)
    ['resets 9am', '2026-10-24T10:00:00Z', 'Europe/Berlin', '2026-10-25T08:00:00Z'],
    // a time inside the spring-forward gap moves forward by the gap
    ['resets 2:30am (America/New_York)', '2026-03-07T12:00:00Z', 'UTC', '2026-03-08T07:30:00Z'],
    // a half-hour zone
    ['resets 11pm (Asia/Kolkata)', '2026-03-18T13:00:00Z', 'UTC', '2026-03-18T17:30:00Z'],
    // a fixed offset after GMT
    ['resets at 10:57 PM GMT-3', '2026-03-18T13:00:00Z', 'UTC', '2026-03-19T01:57:00Z'],
  ])('%s at %s (%s)', (text, now, zone, expected) => {
    expect(parseResetTime(text, new Date(now), { timeZone: zone })?.toISOString()).toBe(at(expected));
  });

  it('never returns a time in the past, whatever the clause', () => {
    const now = new Date('2026-03-18T13:00:00Z');
    const clauses = [
      'resets 1pm (UTC)', 'resets 12:59pm (UTC)', 'resets Mar 18, 1pm', 'resets Jan 1, 2020 9am', '|1700000000', 'resets_at":1700000000',
      'resets Wed 9am', 'try again in 0s', 'resets Mar 17', 'resets 1:00 PM GMT', 'resets 9am (Pacific/Kiritimati)',
    ];
    for (const c of clauses) {
      const r = parseResetTime(c, now, { timeZone: 'UTC' });
      expect(r, c).toBeDefined();
      expect(r!.getTime(), c).toBeGreaterThanOrEqual(now.getTime());
    }
  });
});

it('a reset a moment ago plus the margin is still ahead (the margin is kept)', () => {
  const now = new Date('2026-03-18T13:00:00Z');
  expect(parseResetTime(`|${now.getTime() / 1000 - 52}`, now)?.toISOString()).toBe('2026-03-18T13:00:08.000Z');
});
