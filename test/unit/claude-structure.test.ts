import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { classifyScreen } from '../../src/agents/classify.js';
import { PROFILES } from '../../src/agents/profiles.js';
import { findQuotaMessage } from '../../src/agents/quota.js';
import { parseResetTime } from '../../src/agents/resetTime.js';
import { parseProgramStatus, stateOfProgramStatus } from '../../src/agents/programStatus.js';
import { newestAgentState } from '../../src/supervisor/agentReports.js';
import { CLAUDE_CODE_NEWEST, CLAUDE_CODE_OLDEST } from '../../src/agents/claudeVersion.js';
import { lastQuotaError, readTranscriptTail } from '../../src/agents/transcript.js';
import { screenLines } from '../bench/corpusData.js';

// Reading Claude Code's screen by its structure, across versions: the newest status line
// wins, a running tool is busy, a generic rate limit is transient, Claude Code's own
// scheduled resume is a reset time; and its OSC 7501 status as captured.

const RULE = '─'.repeat(118);
const classify = (...lines: string[]) => classifyScreen(PROFILES.claude, lines);
const box = (footer: string) => [RULE, '❯\u00a0', RULE, footer];
const newest = (file: string) => screenLines(fileURLToPath(new URL(`../fixtures/screens/claude/${CLAUDE_CODE_NEWEST}/${file}`, import.meta.url)));

describe('the newest status line wins', () => {
  it('a stale spinner above the end of the turn is idle', () => {
    expect(classify('❯ do it', '', '· Germinating… (5m 56s)', '', '● Done.', '', '✻ Churned for 5s', '', ...box('  ⏵⏵ auto mode on (shift+tab to cycle)')).kind).toBe('idle');
    expect(classify('· Germinating… (5m 56s)', '✻ Churned for 5s · done 6:05 PM', '', ...box('  ? for shortcuts')).kind).toBe('idle');
  });

  it('a spinner under an older end of turn is busy', () => {
    expect(classify('✻ Churned for 5s', '', '❯ next', '', '✶ Pondering… (3s)', '', ...box('  ⏵⏵ auto mode on (shift+tab to cycle)')).kind).toBe('busy');
  });

  it('a tool call still running is busy, with `esc to interrupt` under the box or none at all (a status line)', () => {
    const running = ['● Bash(npm test)', '  ⎿  Running… (1m 12s)', '     (ctrl+b ctrl+b (twice) to run in background)', ''];
    expect(classify(...running, ...box('  esc to interrupt · ← for agents')).kind).toBe('busy');
    expect(classify(...running, ...box('  my-status ❯ main')).kind).toBe('busy');
    // the same tool finished, its turn over: idle
    expect(classify('● Bash(npm test)', '  ⎿  Running… (1m 12s)', '', '✻ Baked for 2m 3s', '', ...box('  ? for shortcuts')).kind).toBe('idle');
  });

  it('the busy screens captured from 2.1.332 are busy, its idle ones idle', () => {
    for (const f of ['busy.txt', 'busy-counter.txt', 'api-retry.txt', 'api-retry-429.txt']) expect(classifyScreen(PROFILES.claude, newest(f)).kind, f).toBe('busy');
    for (const f of ['idle.txt', 'idle-manual.txt', 'idle-after-turn.txt', 'pretooluse-denied.txt', 'permission-rejected-auto.txt']) expect(classifyScreen(PROFILES.claude, newest(f)).kind, f).toBe('idle');
  });
});

describe('rate limits: transient, or a usage limit with a reset', () => {
  it.each([
    ['API Error: 429 Too Many Requests'],
    ['● API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Rate limit exceeded"}}'],
    ['Error: rate limit exceeded'],
    ['Rate limit exceeded. Please slow down.'],
    ['Too Many Requests'],
    ['✕ Request throttled by the provider'],
    ['Your requests are being throttled, slow down'],
    ['Error: the request was throttled (429)'],
    ['HTTP 429 Too Many Requests'],
    ['error: RESOURCE_EXHAUSTED'],
    ['Quota exceeded for quota metric "Generate requests" and limit "per minute"'],
    ['● API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit'],
  ])('%s: a transient limit', (line) => {
    expect(findQuotaMessage(line)).toMatchObject({ transient: true });
    expect(classify(line, '', ...box('  ? for shortcuts')).kind).toBe('quota');
  });

  it.each([
    ["  ⎿  You've hit your session limit · resets 8:30am (UTC)"],
    ['Claude usage limit reached. Your limit will reset at 3pm (America/Santiago).'],
    ['5-hour limit reached ∙ resets 9pm'],
    ['Rate limit reached for gpt-4o, try again in 20s'],
  ])('%s: a usage limit with its reset, not transient', (line) => {
    const q = findQuotaMessage(line)!;
    expect(q.resetText).toBeDefined();
    expect(q.transient).toBeUndefined();
  });

  it('a retry still running is busy, not a limit', () => {
    expect(findQuotaMessage('✻ 429 Number of request tokens has exceeded your per-minute rate limit · retrying in 3s · attempt 3/10')).toBeUndefined();
  });

  it('a tool\'s output that mentions a limit is no limit of the agent\'s', () => {
    expect(findQuotaMessage('● Bash(curl https://api.example.com)\n  ⎿  Rate limit exceeded\n     Too Many Requests')).toBeUndefined();
  });
});

describe("Claude Code's own scheduled resume (2.1.332)", () => {
  it('reads "Continuing automatically at …" as the reset time, and as a resume it schedules itself', () => {
    const c = classifyScreen(PROFILES.claude, newest('quota-self-resume.txt'));
    expect(c.kind).toBe('quota');
    expect(c.quotaSelfResume).toBe(true);
    expect(c.quotaReset).toMatch(/^at \d{1,2}(?::\d\d)?[ap]m$/);
    const now = new Date('2026-11-27T19:00:00Z');
    const at = parseResetTime(c.quotaReset!, now, { timeZone: 'UTC' })!;
    expect(at.getTime()).toBeGreaterThan(now.getTime());
  });

  it('a transcribed line: the time it names, not the limit\'s own clause', () => {
    const q = findQuotaMessage("  ⎿  You've hit your session limit · resets 9:30pm (UTC)\n  ⚠ Usage limit reached · limit resets 9:30pm\n    Continuing automatically at 9:31pm · Esc to cancel")!;
    expect(q).toMatchObject({ selfResume: true, resetText: 'at 9:31pm' });
  });
});

describe('OSC 7501 program status (captured from 2.1.332)', () => {
  const captured = readFileSync(fileURLToPath(new URL(`../fixtures/screens/claude/${CLAUDE_CODE_NEWEST}/osc7501.txt`, import.meta.url)), 'utf8')
    .split('\n').filter((l) => l.startsWith('7501;')).map((l) => l.slice('7501;'.length));

  it('the probe, working, blocked on a permission with its words, working, done', () => {
    const statuses = captured.map(parseProgramStatus);
    expect(statuses[0]).toBeUndefined(); // `?`: the probe
    const seen = statuses.filter((s) => s !== undefined);
    expect(seen.map((s) => s.state)).toEqual(['working', 'blocked', 'working', 'done']);
    expect(seen[1]).toMatchObject({ kind: 'permission', msg: 'approve Bash: echo hi > x.txt', app: 'claude-code' });
    expect(seen.map(stateOfProgramStatus)).toEqual(['busy', 'waiting', 'busy', 'idle']);
  });

  it('untrusted payloads: control characters and junk read as nothing or as plain words', () => {
    expect(parseProgramStatus('state=')).toBeUndefined();
    expect(parseProgramStatus('app=x')).toBeUndefined();
    expect(parseProgramStatus(`state=working:msg=${Buffer.from('a\x1b[31mb\x07').toString('base64')}`)).toMatchObject({ state: 'working', msg: 'a [31mb' });
    expect(stateOfProgramStatus({ state: 'clear' })).toBeUndefined();
  });
});

describe('a running tool in 2.1.332 (its command and elapsed time under ⎿, the background hint)', () => {
  it('is busy under a status line that replaced the footer', () => {
    const running = ['  Waiting forty seconds', '  ⎿  $ node -e "setTimeout(() => {}, 40000)" (7s)', '     (ctrl+b ctrl+b (twice) to run in background)', ''];
    expect(classify(...running, ...box('  my-status ❯ main · all quiet')).kind).toBe('busy');
    expect(classifyScreen(PROFILES.claude, newest('busy-long-tool.txt')).kind).toBe('busy');
  });
});

describe("the agent's own word: its hooks or its OSC 7501 status, whichever came last", () => {
  const hook = (state: 'busy' | 'waiting' | 'idle' | 'exited', at: number) => ({ session: 's', state, event: 'X', detail: {}, at: new Date(at).toISOString() });
  const osc = (state: string, at: number) => ({ status: { state }, at });
  it('the newer report wins; reports of a previous process count for nothing', () => {
    expect(newestAgentState(hook('busy', 2000), osc('blocked', 3000), 1000)).toBe('waiting');
    expect(newestAgentState(hook('idle', 4000), osc('working', 3000), 1000)).toBe('idle');
    expect(newestAgentState(undefined, osc('done', 3000), 1000)).toBe('idle');
    expect(newestAgentState(hook('busy', 500), osc('working', 400), 1000)).toBeUndefined();
    expect(newestAgentState(hook('exited', 2000), osc('clear', 3000), 1000)).toBe('exited');
  });
});

describe('a limit in the transcript of each end (captured)', () => {
  const entries = (version: string, name: string) => readTranscriptTail(fileURLToPath(new URL(`../fixtures/transcripts/claude-${version}-${name}.jsonl`, import.meta.url)));
  it('a subscriber\'s usage limit: its reset, from the fields 2.1.332 writes (apiErrorParams.rate_limit_info.resetsAt) or the text', () => {
    const newer = lastQuotaError(entries(CLAUDE_CODE_NEWEST, '429-subscriber'))!;
    expect(newer.resetText).toMatch(/^\|\d{10}$/);
    expect(newer.transient).toBeUndefined();
    const older = lastQuotaError(entries(CLAUDE_CODE_OLDEST, '429-subscriber'))!;
    expect(older.resetText).toMatch(/resets/);
    expect(older.transient).toBeUndefined();
  });
  it('an API key\'s per-minute 429: transient at both ends', () => {
    for (const v of [CLAUDE_CODE_OLDEST, CLAUDE_CODE_NEWEST]) expect(lastQuotaError(entries(v, '429')), v).toMatchObject({ transient: true });
  });
});
