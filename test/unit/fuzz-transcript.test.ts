import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isReasoningLoop, lastAssistantTexts, lastQuotaError, readTranscriptTail } from '../../src/agents/transcript.js';
import { quotaFromTranscriptEntry } from '../../src/agents/quota.js';
import { repeatedToolCalls, toolPending, transcriptSessionId } from '../../src/supervisor/hung.js';
import { messagesOf, tokensByModel, usageOfEntry } from '../../src/spend/usage.js';
import { SpendMeter } from '../../src/spend/meter.js';
import { sentinelSeen } from '../../src/hooks/sentinel.js';
import { parseResetTime } from '../../src/agents/resetTime.js';
import { bent, hostileJsonText, hostileString, hostileValue, quick, runs, safeStringify } from '../helpers/hostile.js';

// Property-based: Claude Code's transcript, read by the watchdog (reasoning loops, API 429s,
// the hung-agent signs), the spend meter (usage, compactions, context) and the Stop hook.
// Lines are the real transcripts of test/fixtures/transcripts (Claude Code 2.1.197) with
// fields bent to hostile values, and hostile lines of their own. For any file: no throw,
// values of the right shape, within a generous time bound.

const FIXTURES = new URL('../fixtures/transcripts/', import.meta.url);
const realEntries: Record<string, unknown>[] = readdirSync(FIXTURES)
  .flatMap((f) => readFileSync(new URL(f, FIXTURES), 'utf8').split('\n'))
  .flatMap((l) => {
    try {
      const v: unknown = JSON.parse(l);
      return v && typeof v === 'object' && !Array.isArray(v) ? [v as Record<string, unknown>] : [];
    } catch {
      return []; // the handmade fixtures hold broken lines on purpose
    }
  });

/** A real entry with a few of its fields (or its message's) bent. */
const bentEntry = fc.constantFrom(...realEntries).chain((e) => {
  const message = (e.message ?? {}) as Record<string, unknown>;
  return fc.oneof(
    bent(e, Object.keys(e)),
    bent(message, ['content', 'usage', 'model', 'id', 'role', ...Object.keys(message)]).map((m) => ({ ...e, message: m })),
  );
});

const line = fc.oneof({ weight: 5, arbitrary: bentEntry.map(safeStringify) }, { weight: 2, arbitrary: fc.constantFrom(...realEntries).map((e) => JSON.stringify(e)) }, hostileJsonText());
const transcript = fc.array(line, { minLength: 1, maxLength: 12 }).map((lines) => `${lines.join('\n')}\n`);

const dir = mkdtempSync(join(tmpdir(), 'autodeck-fuzz-transcript-'));

describe('a transcript of hostile lines', () => {
  it('every reader of its entries: no throw, values of their shape', () => {
    let n = 0;
    fc.assert(fc.property(transcript, fc.integer({ min: 0, max: 2 ** 41 }), (text, sinceMs) => {
      const folder = join(dir, `t${n++}`);
      mkdirSync(folder);
      const path = join(folder, 'session.jsonl');
      writeFileSync(path, text);
      const entries = quick(() => readTranscriptTail(path));
      expect(Array.isArray(entries)).toBe(true);
      const texts = quick(() => lastAssistantTexts(entries, 3));
      expect(texts.every((t) => typeof t === 'string')).toBe(true);
      expect(typeof quick(() => isReasoningLoop(texts))).toBe('boolean');
      const quota = quick(() => lastQuotaError(entries, sinceMs));
      if (quota) expect(typeof quota.line).toBe('string');
      expect(Number.isInteger(quick(() => repeatedToolCalls(entries)))).toBe(true);
      expect(typeof quick(() => toolPending(entries))).toBe('boolean');
      const id = quick(() => transcriptSessionId(entries));
      expect(id === undefined || typeof id === 'string').toBe(true);
      expect(typeof quick(() => sentinelSeen(entries))).toBe('boolean');
      for (const e of entries) {
        quick(() => quotaFromTranscriptEntry(e));
        const u = quick(() => usageOfEntry(e, 'x'));
        if (u) expect(Object.values(u.tokens).every((t) => Number.isFinite(t) && t >= 0)).toBe(true);
      }
      for (const t of quick(() => tokensByModel(messagesOf(entries).values())).values()) {
        expect(Object.values(t).every((v) => Number.isFinite(v) && v >= 0)).toBe(true);
      }
      // the spend meter over the folder, as a loop reads it (not through LoopSpend, which swallows errors)
      const reading = quick(() => new SpendMeter(folder, 0).reading());
      if (reading) {
        expect(Number.isFinite(reading.spend.tokens) && reading.spend.tokens >= 0).toBe(true);
        expect(reading.spend.costUsd === undefined || Number.isFinite(reading.spend.costUsd)).toBe(true);
        expect(Number.isInteger(reading.compactions) && reading.compactions >= 0).toBe(true);
        // what the row and `status --json` carry is plain JSON
        expect(() => JSON.parse(JSON.stringify(reading))).not.toThrow();
      }
      rmSync(folder, { recursive: true, force: true });
    }), { numRuns: runs(40) });
  });

  it('a reset time in any words: a date or nothing', () => {
    fc.assert(fc.property(hostileString, fc.integer({ min: 0, max: 2 ** 42 }), fc.constantFrom(undefined, 'UTC', 'America/New_York', 'Not/AZone'), (text, now, timeZone) => {
      const d = quick(() => parseResetTime(text, new Date(now), timeZone ? { timeZone } : {}));
      if (d) expect(Number.isFinite(d.getTime())).toBe(true);
    }), { numRuns: runs(300) });
  });

  it('an entry of any value, alone', () => {
    fc.assert(fc.property(hostileValue, (e) => {
      quick(() => usageOfEntry(e, 'x'));
      quick(() => quotaFromTranscriptEntry(e));
      quick(() => repeatedToolCalls([e, e]));
      quick(() => toolPending([e]));
      quick(() => transcriptSessionId([e]));
      // the readers of parsed entries take objects (readTranscriptTail keeps nothing else)
      if (e && typeof e === 'object' && !Array.isArray(e)) quick(() => lastAssistantTexts([e as Record<string, unknown>], 3));
    }), { numRuns: runs(200) });
  });
});

process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
