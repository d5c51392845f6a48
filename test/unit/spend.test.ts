import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messagesOf, tokensByModel, usageOfEntry, totalTokens } from '../../src/spend/usage.js';
import { costOf, mergePrices, priceOf, spendOf } from '../../src/spend/prices.js';
import { TranscriptUsage } from '../../src/spend/reader.js';
import { budgetOn, budgetReached, SpendMeter } from '../../src/spend/meter.js';

const FIXTURES = new URL('../fixtures/transcripts/', import.meta.url);
/** A transcript's entries; a line that is not JSON (one still being written) is left out. */
const entries = (name: string): unknown[] => readFileSync(new URL(name, FIXTURES), 'utf8').split('\n').flatMap((l) => {
  try {
    return [JSON.parse(l) as unknown];
  } catch {
    return [];
  }
});

describe('usage from the transcript', () => {
  it('counts each API message once, from the real Claude Code 2.1.197 against the fake API', () => {
    const byModel = tokensByModel(messagesOf(entries('claude-2.1.197-tool-turn.jsonl')).values());
    expect([...byModel.keys()]).toEqual(['claude-opus-4-8']);
    expect(byModel.get('claude-opus-4-8')).toEqual({ input: 200, output: 40, cacheWrite: 0, cacheWrite1h: 0, cacheRead: 0 });
  });

  it('skips subagents (isSidechain) and counts the entries of one message once', () => {
    const messages = messagesOf(entries('handmade-loop.jsonl'));
    expect([...messages.keys()]).toEqual(['msg_01', 'msg_02', 'msg_03', 'msg_04']);
    const t = tokensByModel(messages.values()).get('claude-sonnet-4-5-20250929')!;
    expect(t).toEqual({ input: 48, output: 124, cacheWrite: 0, cacheWrite1h: 0, cacheRead: 16384 });
    expect(totalTokens(t)).toBe(16556);
  });

  it('takes the last usage of a message (the final output count), and ignores what is not usage', () => {
    const m = (out: number, extra: Record<string, unknown> = {}) => ({ type: 'assistant', message: { id: 'msg_X', model: 'm', usage: { input_tokens: 5, output_tokens: out } }, ...extra });
    const got = messagesOf([m(1), m(9), { type: 'user', message: { usage: { input_tokens: 99 } } }, m(50, { isSidechain: true }), null, 'x']);
    expect(got.get('msg_X')?.tokens.output).toBe(9);
    expect(got.size).toBe(1);
    expect(usageOfEntry({ type: 'assistant', message: { id: 'a', usage: { input_tokens: -3, output_tokens: 'many' } } }, 'f')?.tokens)
      .toEqual({ input: 0, output: 0, cacheWrite: 0, cacheWrite1h: 0, cacheRead: 0 });
  });
});

describe('prices', () => {
  it('knows a model with or without its date, never by a shorter prefix', () => {
    expect(priceOf('claude-sonnet-4-5-20250929')).toEqual({ input: 3, output: 15 });
    expect(priceOf('claude-opus-4-1')).toEqual({ input: 15, output: 75 });
    expect(priceOf('claude-opus-4-8')).toBeUndefined();
    expect(priceOf('<synthetic>')).toBeUndefined();
    expect(priceOf('')).toBeUndefined();
  });

  it('costs input, output, cache writes (5 min, 1 h) and reads', () => {
    const t = { input: 1_000_000, output: 1_000_000, cacheWrite: 3_000_000, cacheWrite1h: 1_000_000, cacheRead: 10_000_000 };
    // 3 + 15 + 2 × 3.75 + 1 × 6 + 10 × 0.3
    expect(costOf(t, { input: 3, output: 15 })).toBeCloseTo(34.5, 10);
    expect(costOf(t, { input: 3, output: 15, cacheWrite: 4, cacheWrite1h: 5, cacheRead: 0.5 })).toBeCloseTo(3 + 15 + 8 + 5 + 5, 10);
  });

  it('gives a cost for known models and none (tokens only) when a model has no price', () => {
    const loop = tokensByModel(messagesOf(entries('handmade-loop.jsonl')).values());
    const s = spendOf(loop);
    expect(s.tokens).toBe(16556);
    expect(s.costUsd).toBeCloseTo((48 * 3 + 124 * 15 + 16384 * 0.3) / 1e6, 12);
    const fake = spendOf(tokensByModel(messagesOf(entries('claude-2.1.197-tool-turn.jsonl')).values()));
    expect(fake).toEqual({ tokens: 240, costUsd: undefined, unpriced: ['claude-opus-4-8'] });
    // the API error entries (`<synthetic>`, no tokens) do not make a cost unknown
    expect(spendOf(tokensByModel(messagesOf(entries('handmade-quota.jsonl')).values())).costUsd).toBeGreaterThan(0);
    // a `prices` setting gives the unknown model a price
    expect(spendOf(tokensByModel(messagesOf(entries('claude-2.1.197-tool-turn.jsonl')).values()), mergePrices({ 'Claude-Opus-4-8': { input: 10, output: 50 } })).costUsd)
      .toBeCloseTo((200 * 10 + 40 * 50) / 1e6, 12);
  });
});

describe('TranscriptUsage: reading a transcript as it grows', () => {
  it('counts only whole lines, each message once, however the file is read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autodeck-spend-'));
    try {
      const path = join(dir, 't.jsonl');
      const r = new TranscriptUsage(path);
      expect(r.update()).toBe(false); // not there yet
      const lines = readFileSync(new URL('handmade-loop.jsonl', FIXTURES), 'utf8').split('\n').filter((l) => l !== '');
      writeFileSync(path, '');
      // line by line, the last one in two halves
      for (const line of lines.slice(0, -1)) {
        appendFileSync(path, `${line}\n`);
        expect(r.update()).toBe(true);
      }
      appendFileSync(path, '{"type":"assistant","message":{"id":"msg_05","model":"claude-sonnet-4-5","usage":{"input_tokens":1,');
      r.update();
      expect(r.messageCount).toBe(4);
      appendFileSync(path, '"output_tokens":2}}}\n');
      r.update();
      expect(r.messageCount).toBe(5);
      expect(totalTokens(r.byModel().get('claude-sonnet-4-5-20250929')!)).toBe(16556);
      // rewritten shorter: read again from the start
      writeFileSync(path, '{"type":"assistant","message":{"id":"m","model":"claude-opus-4-8","usage":{"output_tokens":7}}}\n');
      r.update();
      expect([...r.byModel().entries()]).toEqual([['claude-opus-4-8', { input: 0, output: 7, cacheWrite: 0, cacheWrite1h: 0, cacheRead: 0 }]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the budget', () => {
  const spend = (tokens: number, costUsd: number | undefined) => ({ tokens, costUsd, unpriced: costUsd === undefined ? ['m'] : [] });

  it('is reached at maxTokens or maxCostUsd, whichever comes first; 0 is off', () => {
    expect(budgetReached(spend(19_999, 1), { maxTokens: 20_000 })).toBe(false);
    expect(budgetReached(spend(20_000, 1), { maxTokens: 20_000 })).toBe(true);
    expect(budgetReached(spend(10, 2.5), { maxTokens: 20_000, maxCostUsd: 2.5 })).toBe(true);
    expect(budgetReached(spend(10 ** 9, 10 ** 6), { maxTokens: 0, maxCostUsd: 0 })).toBe(false);
    expect(budgetOn({ maxTokens: 0, maxCostUsd: 0 })).toBe(false);
    expect(budgetOn({ maxCostUsd: 0.5 })).toBe(true);
  });

  it('cannot be reached by cost while the cost is unknown, nor at all without a transcript', () => {
    expect(budgetReached(spend(10 ** 9, undefined), { maxCostUsd: 0.01 })).toBe(false);
    expect(budgetReached(spend(10 ** 9, undefined), { maxCostUsd: 0.01, maxTokens: 1000 })).toBe(true);
    expect(budgetReached(undefined, { maxTokens: 1 })).toBe(false);
  });
});

describe('SpendMeter', () => {
  it('reads the transcripts written since the loop started, not older ones, and says when there is none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autodeck-meter-'));
    try {
      const start = Date.now();
      expect(new SpendMeter(join(dir, 'not-yet'), start).read()).toBeUndefined();
      expect(new SpendMeter(undefined, start).read()).toBeUndefined();
      const old = join(dir, 'old.jsonl');
      writeFileSync(old, readFileSync(new URL('handmade-loop.jsonl', FIXTURES)));
      utimesSync(old, new Date(start - 60_000), new Date(start - 60_000));
      const meter = new SpendMeter(dir, start);
      expect(meter.read()).toBeUndefined();
      const current = join(dir, 'current.jsonl');
      writeFileSync(current, readFileSync(new URL('claude-2.1.197-tool-turn.jsonl', FIXTURES)));
      // set, not left to the clock: a file system's time may lag Date.now() by a tick
      utimesSync(current, new Date(start + 1000), new Date(start + 1000));
      expect(meter.read()).toEqual({ tokens: 240, costUsd: undefined, unpriced: ['claude-opus-4-8'] });
      // with a price for it from the settings
      expect(new SpendMeter(dir, start, { 'claude-opus-4-8': { input: 5, output: 25 } }).read()?.costUsd).toBeCloseTo((200 * 5 + 40 * 25) / 1e6, 12);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
