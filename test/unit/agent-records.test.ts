import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CodexFiles, findRollouts, RolloutState, RolloutUsage } from '../../src/agents/codex/rollout.js';
import { ANSWER_SETTLE_MS, GeminiFiles, SessionState, SessionUsage } from '../../src/agents/gemini/session.js';
import { STARTUP_MS } from '../../src/agents/agentRecord.js';
import { JsonlFollower } from '../../src/agents/jsonlFollower.js';
import { parseResetTime } from '../../src/agents/resetTime.js';
import type { MessageUsage } from '../../src/spend/usage.js';
import { SpendMeter } from '../../src/spend/meter.js';

/*
 * The agents' own files, read from real ones (test/fixtures/transcripts/codex-0.171.0-*.jsonl,
 * gemini-0.61.0-*.jsonl: captured with test/e2e/{codex,gemini}-capture.test.ts) and from
 * files grown line by line as the agents write them.
 */

const TRANSCRIPTS = fileURLToPath(new URL('../fixtures/transcripts/', import.meta.url));
const entries = (file: string): Record<string, unknown>[] => readFileSync(TRANSCRIPTS + file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe("Codex's rollout", () => {
  it('a turn is busy from task_started to task_complete', () => {
    const all = entries('codex-0.171.0-turn.jsonl');
    const started = all.findIndex((e) => (e.payload as { type?: string }).type === 'task_started');
    const s = new RolloutState();
    s.take(all.slice(0, started + 1));
    expect(s.state).toBe('busy');
    s.take(all.slice(started + 1));
    expect(s.state).toBe('idle');
    expect(s.quota).toBeUndefined();
  });

  it('the open tool call is the request, with its whole command, until its output comes', () => {
    const all = entries('codex-0.171.0-approvals.jsonl');
    const calls = all.map((e, i) => [e, i] as const).filter(([e]) => (e.payload as { type?: string }).type === 'function_call');
    const long = calls.at(-1)!;
    const s = new RolloutState();
    s.take(all.slice(0, long[1] + 1));
    expect(s.state).toBe('busy');
    expect(s.request()).toMatchObject({
      tool: 'Bash', source: 'session',
      command: 'printf \'%s\\n\' "first line of a rather long report" "second line of the same report" "third line" > report-of-a-long-name.txt && git status --short && echo all done',
    });
    // the first call, answered: no request after its output
    const first = calls[0]!;
    const t = new RolloutState();
    t.take(all.slice(0, first[1] + 1));
    expect(t.request()).toMatchObject({ tool: 'Bash', command: 'echo hi > yes.txt' });
    const output = all.findIndex((e, i) => i > first[1] && (e.payload as { type?: string }).type === 'function_call_output');
    t.take(all.slice(first[1] + 1, output + 1));
    expect(t.request()).toBeUndefined();
  });

  it('a usage-limit stop is the turn\'s end with its message and when it was written; the next turn clears it', () => {
    const all = entries('codex-0.171.0-usage-limit.jsonl');
    const s = new RolloutState();
    const stop = all.findIndex((e) => (e.payload as { error?: { codex_error_info?: string } }).error?.codex_error_info === 'usage_limit_exceeded');
    s.take(all.slice(0, stop + 1));
    expect(s.state).toBe('idle');
    expect(s.quota?.line).toMatch(/^You’ve hit your usage limit\. .* try again at \d{1,2}:\d{2} PM\.$/);
    expect(s.quota?.atMs).toBe(Date.parse(String(all[stop]!.timestamp)));
    // its clock time is the next one after it was written, even read long after
    const written = new Date(s.quota!.atMs);
    const muchLater = new Date(s.quota!.atMs + 3 * 3_600_000);
    expect(parseResetTime(s.quota!.line, muchLater, { timeZone: 'UTC', seenAt: written })!.getTime()).toBe(muchLater.getTime());
    s.take(all.slice(stop + 1));
    expect(s.quota).toBeUndefined();
    expect(s.state).toBe('idle');
  });

  it('spend: what the running total grew by, once per growth (a repeated total adds nothing)', () => {
    for (const file of ['codex-0.171.0-turn.jsonl', 'codex-0.171.0-approvals.jsonl', 'codex-0.171.0-usage-limit.jsonl']) {
      const all = entries(file);
      const into = new Map<string, MessageUsage>();
      new RolloutUsage(file).take(all, into);
      const last = all.filter((e) => (e.payload as { type?: string }).type === 'token_count').at(-1)!;
      const total = ((last.payload as { info: { total_token_usage: Record<string, number> } }).info.total_token_usage);
      const sum = [...into.values()].reduce((a, m) => ({ in: a.in + m.tokens.input + m.tokens.cacheRead, out: a.out + m.tokens.output }), { in: 0, out: 0 });
      expect(sum, file).toEqual({ in: total.input_tokens, out: total.output_tokens });
      expect([...into.values()].every((m) => m.model === 'gpt-5.1-codex' && m.at !== undefined), file).toBe(true);
    }
  });
});

const isRecordOf = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

describe("Gemini CLI's session file", () => {
  it('busy while the newest message is the user\'s; the screen decides otherwise', () => {
    const all = entries('gemini-0.61.0-turn.jsonl');
    const user = all.findIndex((e) => e.type === 'user');
    const s = new SessionState();
    s.take(all.slice(0, user + 1));
    expect(s.state).toBe('busy');
    s.take(all.slice(user + 1));
    expect(s.state).toBeUndefined();
  });

  it('the session context it starts every conversation with is no prompt: not busy at start, nor after the chat is reset', () => {
    const all = entries('gemini-0.61.0-approvals.jsonl');
    const setup = all.findIndex((e) => isRecordOf(e.$set) && Array.isArray(e.$set.messages));
    expect(setup).toBeGreaterThan(0);
    const s = new SessionState();
    s.take(all.slice(0, setup + 1));
    expect(s.last).toBeUndefined();
    expect(s.state).toBeUndefined();
    // a turn, then the chat reset to its context alone (as after a cancelled request): the screen decides again
    s.take([{ id: 'u', type: 'user', timestamp: '2026-11-27T23:17:44.075Z', content: [{ text: 'go' }] }]);
    expect(s.state).toBe('busy');
    const context = (all[setup]!.$set as { messages: unknown[] }).messages;
    s.take([{ id: 'c', type: 'user', timestamp: '2026-11-27T23:17:47.023Z', content: (context[0] as { content: unknown }).content }, { $set: { messages: context } }]);
    expect(s.state).toBeUndefined();
  });

  it('spend per message id (a later line of the same id replaces it; replayed history has no tokens)', () => {
    const into = new Map<string, MessageUsage>();
    new SessionUsage().take(entries('gemini-0.61.0-approvals.jsonl'), into);
    const ids = new Set(entries('gemini-0.61.0-approvals.jsonl').filter((e) => e.type === 'gemini' && e.tokens).map((e) => e.id));
    expect(into.size).toBe(ids.size);
    for (const m of into.values()) expect(m).toMatchObject({ model: 'gemini-2.5-pro', tokens: { input: 900, output: 30, cacheRead: 0 } });
  });
});

describe('finding the files of a loop', () => {
  it("Codex: the newest rollout of the agent's folder written since the loop started", () => {
    const home = mkdtempSync(join(tmpdir(), 'autodeck-codex-files-'));
    try {
      const cwd = mkdtempSync(join(tmpdir(), 'autodeck-codex-cwd-'));
      const day = new Date();
      const dir = join(home, 'sessions', String(day.getFullYear()), String(day.getMonth() + 1).padStart(2, '0'), String(day.getDate()).padStart(2, '0'));
      mkdirSync(dir, { recursive: true });
      const meta = (c: string) => `${JSON.stringify({ timestamp: day.toISOString(), type: 'session_meta', payload: { id: 'x', cwd: c } })}\n`;
      writeFileSync(join(dir, 'rollout-a.jsonl'), meta(cwd));
      writeFileSync(join(dir, 'rollout-b.jsonl'), meta('/somewhere/else'));
      writeFileSync(join(dir, 'rollout-old.jsonl'), meta(cwd));
      const old = (Date.now() - 3_600_000) / 1000;
      utimesSync(join(dir, 'rollout-old.jsonl'), old, old);
      const opts = { codexHome: home, cwd, sinceMs: Date.now() - 60_000 };
      expect(findRollouts(opts)).toEqual([join(dir, 'rollout-a.jsonl')]);
      // grows as the agent writes: a turn starts, then ends
      const files = new CodexFiles(opts);
      expect(files.record(undefined)).toMatchObject({ state: undefined });
      appendFileSync(join(dir, 'rollout-a.jsonl'), `${JSON.stringify({ timestamp: day.toISOString(), type: 'event_msg', payload: { type: 'task_started' } })}\n`);
      expect(files.record(undefined)).toMatchObject({ state: 'busy' });
      appendFileSync(join(dir, 'rollout-a.jsonl'), `${JSON.stringify({ timestamp: day.toISOString(), type: 'event_msg', payload: { type: 'task_complete' } })}\n{"partial":`);
      expect(files.record(undefined)).toMatchObject({ state: 'idle' });
      rmSync(cwd, { recursive: true, force: true });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("Gemini CLI: the newest session whose projectHash is the folder's", () => {
    const base = mkdtempSync(join(tmpdir(), 'autodeck-gemini-files-'));
    try {
      const cwd = mkdtempSync(join(tmpdir(), 'autodeck-gemini-cwd-'));
      const chats = join(base, 'tmp', 'proj', 'chats');
      mkdirSync(chats, { recursive: true });
      const hash = createHash('sha256').update(cwd).digest('hex');
      const file = join(chats, 'session-2026-11-27T19-49-abc.jsonl');
      writeFileSync(file, `${JSON.stringify({ sessionId: 's', projectHash: hash, kind: 'main' })}\n`);
      writeFileSync(join(chats, 'session-2026-11-27T19-50-other.jsonl'), `${JSON.stringify({ sessionId: 't', projectHash: 'f'.repeat(64) })}\n`);
      let clock = Date.now();
      const files = new GeminiFiles({ geminiHome: base, cwd, sinceMs: Date.now() - 60_000, now: () => clock });
      // the header alone, written as the CLI starts: still starting up (busy) until its first message, then the screen decides
      expect(files.record(7)).toMatchObject({ state: 'busy' });
      clock += STARTUP_MS;
      expect(files.record(7)).toMatchObject({ state: undefined });
      appendFileSync(file, `${JSON.stringify({ id: 'u1', type: 'user', content: [{ text: 'go' }] })}\n`);
      expect(files.record(7)).toMatchObject({ state: 'busy' });
      appendFileSync(file, `${JSON.stringify({ id: 'g1', type: 'gemini', content: 'done', tokens: { input: 1000, output: 50, cached: 400, thoughts: 20, tool: 0 }, model: 'gemini-2.5-pro', timestamp: new Date(clock).toISOString() })}\n`);
      // the answer just written: the CLI has yet to draw its tool calls (busy a moment), then the screen decides
      expect(files.record(7)).toMatchObject({ state: 'busy' });
      clock += ANSWER_SETTLE_MS;
      expect(files.record(7)).toMatchObject({ state: undefined });
      // spend through the meter: 1000 in (400 of them cached), 50 + 20 out, priced
      const meter = new SpendMeter(undefined, Date.now() - 60_000, undefined, undefined, files.spend);
      const spend = meter.read()!;
      expect(spend.tokens).toBe(1070);
      expect(spend.costUsd).toBeCloseTo((600 * 1.25 + 400 * 0.3125 + 70 * 10) / 1e6, 12);
      rmSync(cwd, { recursive: true, force: true });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('JsonlFollower', () => {
  it('reads whole lines as they come, skips what is not JSON, starts again when the file is rewritten', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autodeck-jsonl-'));
    try {
      const f = join(dir, 'x.jsonl');
      writeFileSync(f, '{"a":1}\nnot json\n{"b":');
      const r = new JsonlFollower(f);
      expect(r.update()).toEqual({ entries: [{ a: 1 }], restarted: false });
      appendFileSync(f, '2}\n[1,2]\n');
      expect(r.update()).toEqual({ entries: [{ b: 2 }], restarted: false });
      writeFileSync(f, '{"c":3}\n');
      expect(r.update()).toEqual({ entries: [{ c: 3 }], restarted: true });
      expect(new JsonlFollower(join(dir, 'missing.jsonl')).update()).toEqual({ entries: [], restarted: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
