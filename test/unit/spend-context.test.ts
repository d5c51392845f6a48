import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messagesOf, tokensByModel } from '../../src/spend/usage.js';
import { spendOf } from '../../src/spend/prices.js';
import { TranscriptUsage } from '../../src/spend/reader.js';
import {
  compactionsAsOf, contextFill, contextPercent, contextWindowOf, mergeContextWindows, newContextState, parseContextWindows, scanContext,
} from '../../src/spend/context.js';
import { contextLimitReached, iterationShare, SpendLedger } from '../../src/spend/ledger.js';
import { SpendMeter } from '../../src/spend/meter.js';
import { changedFields, signalWrittenMs, spendFields } from '../../src/spend/loopSpend.js';
import { Store } from '../../src/store/index.js';

// Spend, ctx % and compactions from transcripts the real Claude Code 2.1.197 wrote against
// the fake API with scripted usage (test/fixtures/screens/claude/README.md says how).

const FIXTURES = new URL('../fixtures/transcripts/', import.meta.url);
const lines = (name: string): string[] => readFileSync(new URL(name, FIXTURES), 'utf8').split('\n').filter((l) => l !== '');
const entries = (name: string): unknown[] => lines(name).map((l) => JSON.parse(l) as unknown);

const USAGE = 'claude-2.1.197-usage.jsonl';
const COMPACT = 'claude-2.1.197-compact.jsonl';

let tmp: string | undefined;
afterEach(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
});

describe('usage and cost from a real transcript with growing usage', () => {
  it('counts each message once per model, and prices sonnet and haiku from the table', () => {
    const byModel = tokensByModel(messagesOf(entries(USAGE)).values());
    // three sonnet messages (the tool turn's two content entries are one message) and one haiku
    expect(byModel.get('claude-sonnet-4-5-20250929')).toEqual({ input: 90, output: 135, cacheWrite: 4500, cacheWrite1h: 0, cacheRead: 18000 });
    expect(byModel.get('claude-haiku-4-5-20251001')).toEqual({ input: 50, output: 75, cacheWrite: 2500, cacheWrite1h: 0, cacheRead: 12000 });
    const spend = spendOf(byModel);
    expect(spend.tokens).toBe(22725 + 14625);
    // sonnet 3/15, writes 3.75, reads 0.3; haiku 1/5, writes 1.25, reads 0.1 (USD per MTok)
    expect(spend.costUsd).toBeCloseTo((90 * 3 + 135 * 15 + 4500 * 3.75 + 18000 * 0.3 + 50 + 75 * 5 + 2500 * 1.25 + 12000 * 0.1) / 1e6, 12);
  });

  it('the default model of 2.1.197 (claude-opus-4-8) has no price: tokens only', () => {
    const spend = spendOf(tokensByModel(messagesOf(entries(COMPACT)).values()));
    expect(spend.costUsd).toBeUndefined();
    expect(spend.unpriced).toEqual(['claude-opus-4-8']);
    expect(spend.tokens).toBe([150_000, 850_000, 40_000, 45_000, 50_000].reduce((a, b) => a + b) + 5 * 300 + (5 + 10 + 20 + 30 + 40) + (10 + 20 + 40 + 60 + 80));
  });
});

describe('ctx %', () => {
  it('is the last main-chain request\'s input side against the model\'s window', () => {
    const fill = contextFill(scanContext(entries(USAGE), newContextState()));
    // the last request was answered as haiku: 50 + 2,500 + 12,000 of 200k
    expect(fill).toEqual({ model: 'claude-haiku-4-5-20251001', tokens: 14_550, window: 200_000 });
    expect(contextPercent(fill!.tokens, fill!.window)).toBe(7);
    // after the second turn only: sonnet, 30 + 1,500 + 6,000
    const upTo = lines(USAGE).findIndex((l) => l.includes('"cache_read_input_tokens":6000'));
    const early = contextFill(scanContext(entries(USAGE).slice(0, upTo + 1), newContextState()));
    expect(early).toEqual({ model: 'claude-sonnet-4-5-20250929', tokens: 7_530, window: 200_000 });
  });

  it('near the window before a compaction, the compaction\'s postTokens after it, the next request\'s after that', () => {
    const all = entries(COMPACT);
    const idx = (needle: string, nth = 1) => {
      let seen = 0;
      return lines(COMPACT).findIndex((l) => l.includes(needle) && ++seen === nth);
    };
    const before = contextFill(scanContext(all.slice(0, idx('"cache_read_input_tokens":850000') + 1), newContextState()))!;
    expect(before).toEqual({ model: 'claude-opus-4-8', tokens: 850_310, window: 1_000_000 });
    expect(contextPercent(before.tokens, before.window)).toBe(85);
    const boundary = all[idx('"compact_boundary"')] as { compactMetadata: { postTokens: number } };
    const after = contextFill(scanContext(all.slice(0, idx('"compact_boundary"') + 1), newContextState()))!;
    expect(after.tokens).toBe(boundary.compactMetadata.postTokens);
    expect(after.tokens).toBeLessThan(5_000);
    const end = contextFill(scanContext(all, newContextState()))!;
    expect(end).toEqual({ model: 'claude-opus-4-8', tokens: 50_340, window: 1_000_000 });
    expect(contextPercent(end.tokens, end.window)).toBe(5);
  });

  it('leaves out subagents and API errors, goes by timestamp not file order, and has no % for an unknown model', () => {
    const a = (at: string, model: string, read: number, extra: Record<string, unknown> = {}) =>
      ({ type: 'assistant', timestamp: at, message: { model, usage: { input_tokens: 1, cache_read_input_tokens: read } }, ...extra });
    const s = scanContext([
      a('2026-01-01T00:00:02Z', 'claude-sonnet-4-5', 1000),
      a('2026-01-01T00:00:01Z', 'claude-sonnet-4-5', 9), // written later, sent earlier
      a('2026-01-01T00:00:03Z', 'claude-sonnet-4-5', 7777, { isSidechain: true }),
      a('2026-01-01T00:00:04Z', 'claude-sonnet-4-5', 0, { isApiErrorMessage: true }),
    ], newContextState());
    expect(contextFill(s)?.tokens).toBe(1001);
    const unknown = contextFill(scanContext([a('2026-01-01T00:00:00Z', 'claude-opus-9', 5)], newContextState()))!;
    expect(unknown.window).toBeUndefined();
    expect(contextPercent(unknown.tokens, unknown.window)).toBeUndefined();
    expect(contextPercent(null, 200_000)).toBeUndefined();
    expect(contextFill(newContextState())).toBeUndefined();
  });

  it('windows: by id with or without its date, never a shorter prefix; the setting overrides and adds', () => {
    expect(contextWindowOf('claude-sonnet-4-5-20250929')).toBe(200_000);
    expect(contextWindowOf('claude-opus-4-8')).toBe(1_000_000);
    expect(contextWindowOf('claude-opus-4-9')).toBeUndefined();
    const table = mergeContextWindows({ 'Claude-Sonnet-4-5': 1_000_000, 'my-model': 32_000 });
    expect(contextWindowOf('claude-sonnet-4-5-20250929', table)).toBe(1_000_000);
    expect(contextWindowOf('my-model', table)).toBe(32_000);
    expect(parseContextWindows({ 'x': 1000 })).toEqual({ value: { x: 1000 } });
    expect(parseContextWindows([1])).toEqual({ error: 'is not an object of model ids to context window sizes in tokens' });
    expect(parseContextWindows({ x: 0.5 })).toEqual({ error: '"x": must be a whole number of tokens, 1 or more' });
  });
});

describe('compactions', () => {
  it('counts the compact_boundary entries of the real transcript (three /compact), not the summaries after them', () => {
    expect(scanContext(entries(COMPACT), newContextState()).compactions.size).toBe(3);
    expect(scanContext(entries(USAGE), newContextState()).compactions.size).toBe(0);
    // a line read twice is one compaction
    const s = newContextState();
    scanContext(entries(COMPACT), s);
    scanContext(entries(COMPACT), s);
    expect(s.compactions.size).toBe(3);
  });

  it('TranscriptUsage counts them as the file grows', () => {
    tmp = mkdtempSync(join(tmpdir(), 'autodeck-compact-'));
    const path = join(tmp, 's.jsonl');
    const all = lines(COMPACT);
    const second = all.findIndex((l, i) => l.includes('"compact_boundary"') && all.slice(0, i).some((x) => x.includes('"compact_boundary"')));
    writeFileSync(path, `${all.slice(0, second).join('\n')}\n`);
    const r = new TranscriptUsage(path);
    r.update();
    expect(r.compactions()).toBe(1);
    appendFileSync(path, `${all.slice(second).join('\n')}\n`);
    r.update();
    expect(r.compactions()).toBe(3);
  });

  it('as of a time (when a signal was written): only the messages and compactions written by then', () => {
    const all = entries(COMPACT) as { type?: string; subtype?: string; timestamp?: string }[];
    const second = all.filter((e) => e.subtype === 'compact_boundary')[1]!.timestamp!;
    const s = scanContext(all, newContextState());
    expect(compactionsAsOf(s, second)).toBe(2);
    expect(compactionsAsOf(s, '2000-01-01T00:00:00.000Z')).toBe(0);
    expect(compactionsAsOf(s)).toBe(3);
    const byModel = tokensByModel(messagesOf(all).values(), second).get('claude-opus-4-8')!;
    // the three requests before the second compaction: reads 150k + 850k + 40k
    expect(byModel.cacheRead).toBe(1_040_000);
    tmp = mkdtempSync(join(tmpdir(), 'autodeck-asof-'));
    writeFileSync(join(tmp, 'a.jsonl'), readFileSync(new URL(COMPACT, FIXTURES)));
    const meter = new SpendMeter(tmp, 0);
    expect(meter.reading(second)!.compactions).toBe(2);
    expect(meter.reading()!.compactions).toBe(3);
    // a loop that started after the first compaction (a resumed session) counts only its own
    expect(new SpendMeter(tmp, Date.parse(second)).reading()!.compactions).toBe(2);
    expect(compactionsAsOf(s, undefined, second)).toBe(2);
  });

  it('three in one iteration is the limit', () => {
    expect(contextLimitReached(2)).toBe(false);
    expect(contextLimitReached(3)).toBe(true);
  });
});

describe('per-iteration spend', () => {
  const reading = (tokens: number, costUsd: number | undefined, compactions: number) => ({ spend: { tokens, costUsd, unpriced: [] }, compactions, context: undefined });

  it('an iteration\'s share is the totals less what earlier iterations hold, never below 0', () => {
    const recorded = { tokens: 1000, costUsd: 0.5, compactions: 1, rows: 2 };
    expect(iterationShare(reading(1500, 0.75, 4), recorded)).toEqual({ tokens: 500, costUsd: 0.25, compactions: 3 });
    expect(iterationShare(reading(900, undefined, 0), recorded)).toEqual({ tokens: 0, costUsd: null, compactions: 0 });
  });

  it('SpendLedger records each iteration in SQLite, closing one again rewrites it, the end adds a partial one', () => {
    tmp = mkdtempSync(join(tmpdir(), 'autodeck-ledger-'));
    const store = Store.open(join(tmp, 'db.sqlite'));
    try {
      const key = { taskDir: '/t/a', loopStartedAt: '2026-01-01T00:00:00.000Z', session: 'auto-a' };
      const ledger = new SpendLedger(store.iterations, key);
      expect(ledger.close(undefined, 1, 'x')).toBeUndefined();
      ledger.close(reading(1000, 0.1, 0), 1, '2026-01-01T00:01:00.000Z');
      ledger.close(reading(1500, 0.15, 1), 2, '2026-01-01T00:02:00.000Z');
      ledger.close(reading(1600, 0.16, 1), 2, '2026-01-01T00:02:01.000Z'); // the same signal read again, later
      expect(ledger.compactionsSinceLast(reading(1700, 0.17, 3))).toBe(2);
      ledger.close(reading(1700, 0.17, 3), 3, '2026-01-01T00:03:00.000Z', true);
      ledger.close(reading(1700, 0.17, 3), 4, '2026-01-01T00:03:00.000Z', true); // nothing more spent: no row
      const rows = store.iterations.list(key.taskDir, key.loopStartedAt);
      expect(rows.map((r) => [r.iteration, r.tokens, r.compactions, r.partial])).toEqual([[1, 1000, 0, false], [2, 600, 1, false], [3, 100, 2, true]]);
      expect(rows[1]!.costUsd).toBeCloseTo(0.06, 10);
      // another loop of the same module (a later run) starts from nothing
      expect(new SpendLedger(store.iterations, { ...key, loopStartedAt: '2026-01-02T00:00:00.000Z' }).close(reading(10, 0, 0), 1, 'y')?.tokens).toBe(10);
    } finally {
      store.close();
    }
  });

  it('a signal counts as published when it was renamed into place, not when its temp file was written', () => {
    tmp = mkdtempSync(join(tmpdir(), 'autodeck-signal-time-'));
    const before = Date.now();
    writeFileSync(join(tmp, '.auto-signal.tmp'), '{}\n');
    utimesSync(join(tmp, '.auto-signal.tmp'), new Date('2001-01-01T00:00:00Z'), new Date('2001-01-01T00:00:00Z'));
    renameSync(join(tmp, '.auto-signal.tmp'), join(tmp, '.auto-signal'));
    // the rename stamps the status-change time (Linux file systems do); the old mtime does not win
    expect(signalWrittenMs(join(tmp, '.auto-signal'))).toBeGreaterThanOrEqual(before - 1000);
    expect(signalWrittenMs(join(tmp, 'absent'))).toBeUndefined();
  });

  it('the row\'s figures from a reading, and only those that changed', () => {
    const r = { spend: { tokens: 10, costUsd: undefined, unpriced: ['m'] }, compactions: 1, context: { model: 'm', tokens: 5, window: undefined } };
    expect(spendFields(r)).toEqual({ tokens: 10, costUsd: null, compactions: 1, contextTokens: 5, contextWindow: null });
    expect(spendFields(undefined)).toBeUndefined();
    expect(changedFields({ tokens: 10, costUsd: null, compactions: 1, contextTokens: 5, contextWindow: null }, spendFields(r))).toBeUndefined();
    expect(changedFields({ tokens: 10, costUsd: null }, spendFields(r))).toEqual({ compactions: 1, contextTokens: 5 });
  });

  it('SpendMeter.reading gives spend, compactions and the newest transcript\'s context together', () => {
    tmp = mkdtempSync(join(tmpdir(), 'autodeck-meter-'));
    writeFileSync(join(tmp, 'a.jsonl'), readFileSync(new URL(COMPACT, FIXTURES)));
    const r = new SpendMeter(tmp, 0).reading()!;
    expect(r.compactions).toBe(3);
    expect(r.context).toEqual({ model: 'claude-opus-4-8', tokens: 50_340, window: 1_000_000 });
    expect(new SpendMeter(tmp, 0, undefined, { 'claude-opus-4-8': 200_000 }).reading()!.context?.window).toBe(200_000);
  });
});
