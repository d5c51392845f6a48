import { describe, expect, it } from 'vitest';
import { findQuotaMessage, quotaFromTranscriptEntry, resetClause } from '../../src/agents/quota.js';
import { parseResetTime, QUOTA_RESET_MARGIN_MS } from '../../src/agents/resetTime.js';

/** The expected result: the reset instant plus the margin, as an ISO string. */
const reset = (iso: string) => new Date(Date.parse(iso) + QUOTA_RESET_MARGIN_MS).toISOString();
const parse = (text: string, now: string, timeZone = 'UTC') => parseResetTime(text, new Date(now), { timeZone })?.toISOString();

describe('findQuotaMessage: stops', () => {
  it.each([
    // the wording of CLAUDE-CODE.md
    ['epoch form', 'Claude AI usage limit reached|1749924000', '|1749924000'],
    ['older sentence', 'Claude usage limit reached. Your limit will reset at 1pm (Etc/GMT+5).', 'reset at 1pm (Etc/GMT+5).'],
    ['5-hour, U+2219', '5-hour limit reached ∙ resets 5am', 'resets 5am'],
    ['5-hour, U+00B7', '5-hour limit reached · resets 5am', 'resets 5am'],
    ['5-hour, bullet', '5-hour limit reached • resets 5am', 'resets 5am'],
    ['Opus weekly', 'Opus weekly limit reached ∙ resets Oct 31, 9am', 'resets Oct 31, 9am'],
    ['hit your limit', "  ⎿  You've hit your limit · resets 2am (Europe/Paris)", 'resets 2am (Europe/Paris)'],
    ['session limit', "⎿  You've hit your session limit · resets 12:50am (America/Los_Angeles)", 'resets 12:50am (America/Los_Angeles)'],
    ['weekly limit', "You've hit your weekly limit · resets Mon 9am (UTC)", 'resets Mon 9am (UTC)'],
    ['Opus limit', "You've hit your Opus limit · resets Oct 31, 9am (Asia/Kolkata)", 'resets Oct 31, 9am (Asia/Kolkata)'],
    ['Sonnet limit', "You’ve hit your Sonnet limit · resets 7:51am (UTC)", 'resets 7:51am (UTC)'],
    ['API 429 raw', '  ⎿  API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}', undefined],
    ['API 429 rejected', '  ⎿  API Error: Request rejected (429) · This request would exceed your account\'s rate limit. Please try again later.', undefined],
    // other agents (transcribed from their issue threads; see src/agents/quota.ts)
    ['Codex, relative', "■ You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 hours 3 minutes.", 'try again in 2 hours 3 minutes.'],
    ['Codex, clock', "■ You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 3:28 PM.", 'try again at 3:28 PM.'],
    ['Codex, date', "■ You've hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at Jul 5th, 2026 8:19 PM.", 'try again at Jul 5th, 2026 8:19 PM.'],
    ['Codex, retries spent', '■ stream error: exceeded retry limit, last status: 429 Too Many Requests; request id: c4fc59ca', undefined],
    ['Codex, JSON', 'Error: {"type":"error","error":{"type":"usage_limit_reached","message":"The usage limit has been reached","resets_in_seconds":13872}}', 'resets_in_seconds":13872}}'],
    ['OpenAI rate limit', 'Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 20s.', 'try again in 20s.'],
    ['Gemini usage limit', 'Usage limit reached for gemini-3-flash-preview. Access resets at 10:57 PM GMT-3.', 'resets at 10:57 PM GMT-3.'],
    ['Gemini capacity', 'You have exhausted your capacity on this model. Your quota will reset after 53s.', 'reset after 53s.'],
    ['Gemini daily quota', '⚡ You have reached your daily gemini-2.5-pro quota limit.', undefined],
    ['Gemini quota exceeded', 'Quota exceeded for quota metric generate_content_free_tier_requests', undefined],
    ['Gemini RESOURCE_EXHAUSTED', '✕ [API Error: {"error":{"message":"{\\n  \\"error\\": {\\n    \\"code\\": 429,\\n    \\"status\\": \\"RESOURCE_EXHAUSTED\\"', undefined],
    ['aider, retries given up', "The API provider has rate limited you. Try again later or check your quotas.", undefined],
  ])('%s', (_, text, resetText) => {
    const m = findQuotaMessage(text);
    expect(m).toBeDefined();
    expect(m?.resetText).toBe(resetText);
  });

  it('finds the line on a whole Claude Code screen, menu below it', () => {
    const screen = [
      '● Running the tests now.',
      '',
      "  ⎿  You've hit your session limit · resets 7:51am (UTC)",
      '',
      '╭──────────────────────────────────────────────╮',
      '│ What do you want to do?                      │',
      '│ ❯ 1. Stop and wait for limit to reset        │',
      '│   2. Upgrade your plan                       │',
      '╰──────────────────────────────────────────────╯',
      '  Enter to confirm · Esc to cancel',
    ].join('\n');
    expect(findQuotaMessage(screen)).toEqual({
      line: "⎿  You've hit your session limit · resets 7:51am (UTC)",
      resetText: 'resets 7:51am (UTC)',
    });
  });

  it('joins a reset clause the terminal wrapped onto the next lines', () => {
    const codex = "■ You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 5 days 22 hours 11\nminutes.\n\n› ";
    expect(findQuotaMessage(codex)?.resetText).toBe('try again in 5 days 22 hours 11 minutes.');
    const admin = "■ You've hit your usage limit. To get more access now, send a request to your admin\nor try again at 3:28 PM.\n";
    expect(findQuotaMessage(admin)?.resetText).toBe('try again at 3:28 PM.');
  });

  it('takes the last stop on the screen', () => {
    const screen = "5-hour limit reached ∙ resets 5am\n> continue\nOpus weekly limit reached ∙ resets Oct 31, 9am\n";
    expect(findQuotaMessage(screen)?.resetText).toBe('resets Oct 31, 9am');
  });

  it('aider: a give-up after earlier retries is a stop', () => {
    const screen = [
      'litellm.RateLimitError: AnthropicException - {"type":"error","error":{"type":"rate_limit_error"}}',
      'The API provider has rate limited you. Try again later or check your quotas.',
      'Retrying in 0.2 seconds...',
      'litellm.RateLimitError: AnthropicException - {"type":"error","error":{"type":"rate_limit_error"}}',
      'The API provider has rate limited you. Try again later or check your quotas.',
      '> ',
    ].join('\n');
    expect(findQuotaMessage(screen)?.line).toBe('The API provider has rate limited you. Try again later or check your quotas.');
  });
});

describe('findQuotaMessage: not a stop', () => {
  it.each([
    ['a warning', 'Approaching usage limit · resets at 9pm'],
    ['an Opus warning', 'Approaching Opus usage limit'],
    ['a percentage warning', "You've used 92% of your session limit · resets 5am (Europe/Paris)"],
    ['a Codex warning', "⚠ Heads up, you've used over 75% of your 5h limit. Run /status for a breakdown."],
    // CLAUDE-CODE.md: "An API retry is busy too" — the agent may still get through.
    ['a retry in progress', '✻ Session limit reached · Retrying in 2s (attempt 1/10) · attempt 1/10'],
    ['a retry after a 429', '  ⎿  API Error (429 rate_limit_error) · Retrying in 5 seconds… (attempt 2/10)'],
    ['aider still retrying', 'The API provider has rate limited you. Try again later or check your quotas.\nRetrying in 0.5 seconds...'],
    ['Codex reconnecting', '■ stream error: exceeded retry limit, last status: 429 Too Many Requests\nRe-connecting... 1/5'],
    ['context, not quota', 'Context limit reached · /compact or /clear to continue'],
    ['prose about limits', 'The worker should back off when the rate limit is hit; the rate limit reached case too.'],
    ['a code line', '      12 +  expect(screen).toContain("5-hour limit reached ∙ resets 5am")'],
    ['a non-quota API error', '  ⎿  API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'],
    ['a connection retry', '  ⎿  API Error (Connection error.) · Retrying in 5 seconds… (attempt 2/10)'],
    ['setting a limit', 'Set maxIterations to limit the loop; the usage is fine.'],
    ['empty', ''],
  ])('%s', (_, text) => {
    expect(findQuotaMessage(text)).toBeUndefined();
  });

  it('a stop followed by a retry is busy again', () => {
    const screen = "⎿  You've hit your session limit · resets 7:51am (UTC)\n> continue\n✻ Session limit reached · Retrying in 2s · attempt 1/10";
    expect(findQuotaMessage(screen)).toBeUndefined();
  });
});

describe('resetClause', () => {
  it.each([
    ['Try again later or check your quotas.', undefined],
    ['Claude AI usage limit reached|1749924000', '|1749924000'],
    ['You have exhausted your capacity on this model. Your quota will reset after 53s.', 'reset after 53s.'],
  ])('%s', (text, clause) => {
    expect(resetClause(text)).toBe(clause);
  });
});

describe('parseResetTime: clock times', () => {
  it.each([
    ['5am, later today', 'resets 5am', '2026-06-15T01:00:00Z', 'UTC', '2026-06-15T05:00:00Z'],
    ['5am, passed: tomorrow', 'resets 5am', '2026-06-15T06:00:00Z', 'UTC', '2026-06-16T05:00:00Z'],
    // the minute it names has just begun: it lifts within that minute (margin added), not tomorrow
    ['exactly now has just passed', 'resets 5am', '2026-06-15T05:00:00Z', 'UTC', '2026-06-15T05:00:00Z'],
    // (the margin makes it 5:01, already past at 5:04: now, which is 5:03 plus the margin)
    ['passed four minutes ago: has just passed', 'try again at 5:00 AM', '2026-06-15T05:04:00Z', 'UTC', '2026-06-15T05:03:00Z'],
    ['passed six minutes ago: tomorrow', 'try again at 5:00 AM', '2026-06-15T05:06:00Z', 'UTC', '2026-06-16T05:00:00Z'],
    ['12:50am', 'resets 12:50am', '2026-06-15T10:00:00Z', 'UTC', '2026-06-16T00:50:00Z'],
    ['12pm is noon', 'resets 12pm', '2026-06-15T10:00:00Z', 'UTC', '2026-06-15T12:00:00Z'],
    ['9:05 PM', 'try again at 9:05 PM.', '2026-06-15T10:00:00Z', 'UTC', '2026-06-15T21:05:00Z'],
    ['9 p.m.', 'resets at 9 p.m.', '2026-06-15T10:00:00Z', 'UTC', '2026-06-15T21:00:00Z'],
    ['24-hour 13:00', 'resets at 13:00', '2026-06-15T10:00:00Z', 'UTC', '2026-06-15T13:00:00Z'],
    ['24-hour 13:00, passed', 'resets at 13:00', '2026-06-15T14:00:00Z', 'UTC', '2026-06-16T13:00:00Z'],
    // zones in parentheses win over the default
    ['(UTC)', 'resets 7:51am (UTC)', '2026-06-15T08:00:00Z', 'Europe/Paris', '2026-06-16T07:51:00Z'],
    ['(Europe/Paris), summer', 'resets 2am (Europe/Paris)', '2026-06-15T12:00:00Z', 'UTC', '2026-06-16T02:00:00+02:00'],
    ['(Europe/Paris), winter', 'resets 2am (Europe/Paris)', '2026-01-15T12:00:00Z', 'UTC', '2026-01-16T02:00:00+01:00'],
    ['(America/Los_Angeles)', 'resets 12:50am (America/Los_Angeles)', '2026-06-15T10:00:00Z', 'UTC', '2026-06-16T00:50:00-07:00'],
    ['(Asia/Kolkata), half-hour zone', 'resets 12:50am (Asia/Kolkata)', '2026-06-15T10:00:00Z', 'UTC', '2026-06-16T00:50:00+05:30'],
    ['(Etc/GMT+5) is UTC-5', 'reset at 1pm (Etc/GMT+5).', '2026-06-15T12:00:00Z', 'UTC', '2026-06-15T13:00:00-05:00'],
    ['bare GMT-3 is UTC-3', 'resets at 10:57 PM GMT-3.', '2026-06-15T12:00:00Z', 'UTC', '2026-06-15T22:57:00-03:00'],
    ['bare UTC', 'resets at 15:00 UTC', '2026-06-15T12:00:00Z', 'Asia/Kolkata', '2026-06-15T15:00:00Z'],
    ['lower-case zone name', 'resets 2am (europe/paris)', '2026-06-15T12:00:00Z', 'UTC', '2026-06-16T02:00:00+02:00'],
    // no zone: the given default
    ['no zone: opts.timeZone', '5-hour limit reached ∙ resets 5am', '2026-06-15T12:00:00Z', 'Europe/Paris', '2026-06-16T05:00:00+02:00'],
    ['unknown zone: opts.timeZone', 'resets 5am (Mars/Olympus_Mons)', '2026-06-15T12:00:00Z', 'Asia/Kolkata', '2026-06-16T05:00:00+05:30'],
    ['an abbreviation Intl does not know', 'resets 5am (XYZT)', '2026-06-15T12:30:00Z', 'America/Los_Angeles', '2026-06-16T05:00:00-07:00'],
  ])('%s', (_, text, now, zone, expected) => {
    expect(parse(text, now, zone)).toBe(reset(expected));
  });

  it('without opts uses the machine zone', () => {
    const machine = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const now = new Date('2026-06-15T12:00:00Z');
    expect(parseResetTime('resets 5am', now)?.toISOString()).toBe(parseResetTime('resets 5am', now, { timeZone: machine })?.toISOString());
  });

  it('an invalid opts.timeZone falls back to the machine zone rather than throwing', () => {
    const machine = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const now = new Date('2026-06-15T12:00:00Z');
    expect(parseResetTime('resets 5am', now, { timeZone: 'Not/AZone' })?.toISOString()).toBe(
      parseResetTime('resets 5am', now, { timeZone: machine })?.toISOString(),
    );
  });
});

describe('parseResetTime: dates and weekdays', () => {
  it.each([
    ['month-day, comma', 'resets Oct 31, 9am', '2026-06-15T12:00:00Z', 'America/Los_Angeles', '2026-10-31T09:00:00-07:00'],
    ['month-day, at', 'resets Oct 31 at 9am', '2026-06-15T12:00:00Z', 'America/Los_Angeles', '2026-10-31T09:00:00-07:00'],
    ['month-day with zone', 'resets Oct 31, 9am (Asia/Kolkata)', '2026-06-15T12:00:00Z', 'UTC', '2026-10-31T09:00:00+05:30'],
    ['month-day passed: next year', 'resets Oct 31, 9am', '2026-11-05T12:00:00Z', 'America/Los_Angeles', '2027-10-31T09:00:00-07:00'],
    ['month-day later today', 'resets Oct 31, 9am', '2026-10-31T08:00:00-07:00', 'America/Los_Angeles', '2026-10-31T09:00:00-07:00'],
    ['full month, ordinal, year', 'try again at Jul 5th, 2026 8:19 PM.', '2026-06-15T12:00:00Z', 'UTC', '2026-07-05T20:19:00Z'],
    ['a given year never rolls, and a past one gives now', 'try again at Jan 2nd, 2026 8:19 PM.', '2026-06-15T12:00:00Z', 'UTC', '2026-06-15T11:59:00Z'],
    ['date without a time: midnight', "You've hit your usage limit. Try again Aug 18.", '2026-06-15T12:00:00Z', 'Europe/Paris', '2026-08-18T00:00:00+02:00'],
    // 2026-06-15 is a Monday
    ['weekday ahead', 'resets Fri 9am', '2026-06-15T12:00:00Z', 'UTC', '2026-06-19T09:00:00Z'],
    ['weekday today, later', 'resets Mon 9am', '2026-06-15T08:00:00Z', 'UTC', '2026-06-15T09:00:00Z'],
    ['weekday today, passed: next week', 'resets Mon 9am', '2026-06-15T10:00:00Z', 'UTC', '2026-06-22T09:00:00Z'],
    ['weekday earlier in the week', 'resets Monday at 9:30am (Europe/Paris)', '2026-06-17T12:00:00Z', 'UTC', '2026-06-22T09:30:00+02:00'],
  ])('%s', (_, text, now, zone, expected) => {
    expect(parse(text, now, zone)).toBe(reset(expected));
  });
});

describe('parseResetTime: daylight saving', () => {
  // America/Los_Angeles 2026: 2026-03-08 02:00 PST -> 03:00 PDT; 2026-11-01 02:00 PDT -> 01:00 PST.
  // Europe/Paris 2026: 2026-03-29 02:00 CET -> 03:00 CEST; 2026-10-25 03:00 CEST -> 02:00 CET.
  it.each([
    ['LA: a time inside the spring gap moves forward', 'resets 2:30am (America/Los_Angeles)', '2026-03-08T01:00:00-08:00', '2026-03-08T03:30:00-07:00'],
    ['LA: across spring-forward keeps the wall time', 'resets 5am (America/Los_Angeles)', '2026-03-07T22:00:00-08:00', '2026-03-08T05:00:00-07:00'],
    ['LA: an ambiguous fall-back time takes the earlier instant', 'resets 1:30am (America/Los_Angeles)', '2026-11-01T00:30:00-07:00', '2026-11-01T01:30:00-07:00'],
    ['LA: after the first 1:30, the repeated 1:30 is still ahead', 'resets 1:30am (America/Los_Angeles)', '2026-11-01T01:45:00-07:00', '2026-11-01T01:30:00-08:00'],
    ['LA: after both 1:30s, tomorrow', 'resets 1:30am (America/Los_Angeles)', '2026-11-01T01:45:00-08:00', '2026-11-02T01:30:00-08:00'],
    ['LA: across fall-back keeps the wall time', 'resets 9am (America/Los_Angeles)', '2026-10-31T23:00:00-07:00', '2026-11-01T09:00:00-08:00'],
    ['LA: tomorrow over the change is not now + 24 h', 'resets 5am (America/Los_Angeles)', '2026-03-07T06:00:00-08:00', '2026-03-08T05:00:00-07:00'],
    ['Paris: a time inside the spring gap moves forward', 'resets 2:30am (Europe/Paris)', '2026-03-29T01:00:00+01:00', '2026-03-29T03:30:00+02:00'],
    ['Paris: across spring-forward', 'resets 8am (Europe/Paris)', '2026-03-28T20:00:00+01:00', '2026-03-29T08:00:00+02:00'],
    ['Paris: an ambiguous fall-back time takes the earlier instant', 'resets 2:30am (Europe/Paris)', '2026-10-25T01:00:00+02:00', '2026-10-25T02:30:00+02:00'],
    ['Paris: across fall-back', 'resets 8am (Europe/Paris)', '2026-10-24T20:00:00+02:00', '2026-10-25T08:00:00+01:00'],
    ['Lord Howe: a half-hour gap moves forward by half an hour', 'resets 2:15am (Australia/Lord_Howe)', '2026-10-04T00:00:00+10:30', '2026-10-04T02:45:00+11:00'],
    ['Paris: month-day across the change', 'resets Oct 31, 9am (Europe/Paris)', '2026-10-20T12:00:00Z', '2026-10-31T09:00:00+01:00'],
  ])('%s', (_, text, now, expected) => {
    expect(parse(text, now, 'UTC')).toBe(reset(expected));
  });

  it('uses the default zone for DST when the message names none', () => {
    expect(parse('5-hour limit reached ∙ resets 5am', '2026-03-07T22:00:00-08:00', 'America/Los_Angeles')).toBe(reset('2026-03-08T05:00:00-07:00'));
  });
});

describe('parseResetTime: relative and epoch', () => {
  const now = '2026-06-15T12:00:00Z';
  it.each([
    ['hours and minutes', "You've hit your usage limit … try again in 2 hours 3 minutes", '2026-06-15T14:03:00Z'],
    ['short units', 'resets in 2h 3m', '2026-06-15T14:03:00Z'],
    ['seconds', 'Rate limit reached for gpt-4o … Please try again in 20s.', '2026-06-15T12:00:20Z'],
    ['after', 'Your quota will reset after 53s.', '2026-06-15T12:00:53Z'],
    ['days', 'try again in 5 days 22 hours 11 minutes.', '2026-06-21T10:11:00Z'],
    ['singular and "and"', 'try again in 1 hour and 1 minute', '2026-06-15T13:01:00Z'],
    ['decimal seconds', 'Please try again in 1.5s.', '2026-06-15T12:00:01.500Z'],
    ['Go duration', 'Please try again in 6m0s.', '2026-06-15T12:06:00Z'],
    ['milliseconds', 'Please try again in 820ms.', '2026-06-15T12:00:00.820Z'],
    ['Codex resets_in_seconds', '{"type":"usage_limit_reached","resets_in_seconds":3600}', '2026-06-15T13:00:00Z'],
    ['epoch seconds', 'Claude AI usage limit reached|1781546400', '2026-06-15T18:00:00Z'],
    ['epoch milliseconds', 'Claude AI usage limit reached|1781546400000', '2026-06-15T18:00:00Z'],
    ['an epoch that has passed is now, never the past', 'Claude AI usage limit reached|1749924000', '2026-06-15T11:59:00Z'],
    ['Codex resets_at', '{"resets_at":1781528400,"plan_type":"plus"}', '2026-06-15T13:00:00Z'],
  ])('%s', (_, text, expected) => {
    expect(parse(text, now)).toBe(reset(expected));
  });

  it('adds exactly the margin', () => {
    expect(QUOTA_RESET_MARGIN_MS).toBe(60_000);
    const at = parseResetTime('try again in 10s', new Date(now));
    expect(at!.getTime() - Date.parse(now)).toBe(10_000 + 60_000);
  });

  it.each([
    ['no time at all', 'Try again later or check your quotas.'],
    ['empty', ''],
    ['an hour out of range', 'resets 13pm'],
    ['a log timestamp with seconds', 'at 15:37:42 the build failed'],
    ['a monthly cycle date', 'Usage will reset when your monthly cycle ends on 9/23/2026.'],
    ['a count, not a duration', 'try again in 3 sessions'],
  ])('nothing parseable: %s', (_, text) => {
    expect(parseResetTime(text, new Date(now), { timeZone: 'UTC' })).toBeUndefined();
  });
});

describe('quotaFromTranscriptEntry', () => {
  const base = { type: 'assistant', isSidechain: false, uuid: 'a-1', timestamp: '2026-06-15T05:10:00.000Z' };
  const synthetic = (text: string) => ({ id: 'x', model: '<synthetic>', role: 'assistant', content: [{ type: 'text', text }] });

  it('an API error entry with status 429 is a stop, with its reset text', () => {
    const entry = { ...base, message: synthetic("You've hit your session limit · resets 7:51am (UTC)"), error: 'rate_limit', isApiErrorMessage: true, apiErrorStatus: 429 };
    expect(quotaFromTranscriptEntry(entry)).toEqual({ line: "You've hit your session limit · resets 7:51am (UTC)", resetText: 'resets 7:51am (UTC)' });
  });

  it('an API-key 429 without a reset time', () => {
    const entry = { ...base, message: synthetic('API Error: Request rejected (429) · Please try again later.'), isApiErrorMessage: true, apiErrorStatus: 429 };
    // no reset and no usage-limit wording: a transient limit (an API key's rate limit)
    expect(quotaFromTranscriptEntry(entry)).toEqual({ line: 'API Error: Request rejected (429) · Please try again later.', transient: true });
  });

  it('the old synthetic epoch message counts too', () => {
    const entry = { ...base, message: synthetic('Claude AI usage limit reached|1749924000') };
    expect(quotaFromTranscriptEntry(entry)?.resetText).toBe('|1749924000');
  });

  it.each([
    ['another API error', { ...base, message: synthetic('API Error: 529 Overloaded'), isApiErrorMessage: true, apiErrorStatus: 529 }],
    ['the model quoting a limit message', { ...base, message: { id: 'm', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: '5-hour limit reached ∙ resets 5am' }] } }],
    ['a user entry', { ...base, type: 'user', message: { role: 'user', content: 'Claude AI usage limit reached|1749924000' }, isApiErrorMessage: true, apiErrorStatus: 429 }],
    ['not an object', 'API Error: 429'],
    ['null', null],
  ])('not a stop: %s', (_, entry) => {
    expect(quotaFromTranscriptEntry(entry)).toBeUndefined();
  });
});
