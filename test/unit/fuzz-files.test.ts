import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_SIGNAL_BYTES, NEXTS, STEPS, CHECKPOINTS, isValidResult, parseSignal, readSignalFile, SIGNAL_FILE } from '../../src/protocol/signal.js';
import { parseStopRequest, readStopFile, STOP_FILE, STOP_REASONS } from '../../src/protocol/stopFile.js';
import { resolveSettings, formatSettingError } from '../../src/config/settings.js';
import { parsePolicy, parseRule } from '../../src/policy/parse.js';
import { parsePrices } from '../../src/spend/prices.js';
import { parseContextWindows } from '../../src/spend/context.js';
import { parseLock } from '../../src/hooks/lock.js';
import { parseChecklist, parsePlan, tasksFromTexts } from '../../src/hooks/tasks.js';
import { bent, hasControl, hostileBytes, hostileJsonText, hostileString, hostileValue, quick, runs, safeStringify } from '../helpers/hostile.js';

// Property-based: the files an agent or a person writes, read by autodeck. For any content:
// no throw, a valid value or a typed error (a reason, one printable line), within a
// generous time bound. Failures found are kept below as regression examples.

const dir = mkdtempSync(join(tmpdir(), 'autodeck-fuzz-files-'));
const signal = { step: 'exec', result: 'PASS', next: 'check', checkpoint: '', iteration: 1, timestamp: '2026-11-22T05:00:00Z' };
const SIGNAL_FIELDS = Object.keys(signal);

/** A signal text: hostile JSON, or a valid signal with some fields bent. */
const signalText = fc.oneof(hostileJsonText(), bent(signal, SIGNAL_FIELDS).map(safeStringify));

describe('the signal file', () => {
  it('parseSignal: a valid signal or a short printable reason, never a throw', () => {
    fc.assert(fc.property(signalText, (text) => {
      const r = quick(() => parseSignal(text));
      if (r.ok) {
        expect(STEPS).toContain(r.signal.step);
        expect(NEXTS).toContain(r.signal.next);
        expect(CHECKPOINTS).toContain(r.signal.checkpoint);
        expect(isValidResult(r.signal.result)).toBe(true);
        if (r.signal.iteration !== undefined) expect(Number.isSafeInteger(r.signal.iteration) && r.signal.iteration >= 0).toBe(true);
        // what the loop records and sends on is plain JSON
        expect(JSON.parse(JSON.stringify(r.signal))).toEqual(r.signal);
      } else {
        expect(r.reason.length).toBeLessThan(200);
        expect(r.reason).not.toContain('\n');
      }
    }), { numRuns: runs(150) });
  });

  it('readSignalFile: any bytes at that name, as a file', () => {
    const path = join(dir, SIGNAL_FILE);
    fc.assert(fc.property(hostileBytes, (bytes) => {
      writeFileSync(path, bytes);
      const r = quick(() => readSignalFile(path));
      expect(typeof r.identity).toBe('string');
      if (!r.ok) expect(typeof r.reason).toBe('string');
    }), { numRuns: runs(100) });
  });

  it('a file past the size cap is refused unread', () => {
    expect(parseSignal(JSON.stringify({ ...signal, pad: 'x'.repeat(MAX_SIGNAL_BYTES) }))).toMatchObject({ ok: false });
  });
});

describe('the stop file', () => {
  it('any content asks to stop, with a known reason', () => {
    const path = join(dir, STOP_FILE);
    fc.assert(fc.property(fc.oneof(hostileJsonText(), bent({ reason: 'timeout', timestamp: '2026-11-22T05:00:00Z', force: true }, ['reason', 'timestamp', 'force']).map(safeStringify)), (text) => {
      const r = quick(() => parseStopRequest(text));
      expect(STOP_REASONS).toContain(r.reason);
      expect(typeof r.timestamp).toBe('string');
      expect(r.force === undefined || r.force === true).toBe(true);
      writeFileSync(path, text);
      expect(STOP_REASONS).toContain(quick(() => readStopFile(dir))!.reason);
    }), { numRuns: runs(100) });
  });
});

describe('settings and policy files', () => {
  const project = join(dir, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  const env = { HOME: join(dir, 'home'), XDG_CONFIG_HOME: join(dir, 'config') };
  const settingsText = fc.oneof(
    hostileJsonText(),
    bent({ maxIterations: 5, timeoutMinutes: 10, agent: 'claude', approval: { rules: [{ deny: 'Bash(rm*)' }] }, prices: {}, contextWindows: {} },
      ['maxIterations', 'timeoutMinutes', 'agent', 'approval', 'prices', 'contextWindows', 'heartbeatSeconds', 'backend', 'roots', 'profiles', 'notifyUrl']).map(safeStringify),
  );

  it('.autodeck.json: settings complete, each error one printable line starting autodeck:', () => {
    fc.assert(fc.property(settingsText, (text) => {
      writeFileSync(join(project, '.autodeck.json'), text);
      const { value, errors } = quick(() => resolveSettings({ flags: {}, env, cwd: project }));
      expect(value.maxIterations).toBeGreaterThanOrEqual(1);
      expect(Array.isArray(value.agent)).toBe(true);
      for (const e of errors) {
        const line = formatSettingError(e);
        expect(line.startsWith('autodeck: ')).toBe(true);
        expect(hasControl(line)).toBe(false);
        expect(line.length).toBeLessThan(1000);
      }
    }), { numRuns: runs(100) });
  });

  it('regression (found by the property above): a key or value with control characters is shown escaped', () => {
    writeFileSync(join(project, '.autodeck.json'), JSON.stringify({ 'max\u001b[2JIterations': 1, profiles: '\u0000\u0007', agent: '' }));
    const { errors } = resolveSettings({ flags: {}, env, cwd: project });
    expect(errors.length).toBeGreaterThanOrEqual(2);
    for (const e of errors) expect(hasControl(formatSettingError(e))).toBe(false);
    expect(errors.map(formatSettingError).join('\n')).toContain('max\\x1b[2JIterations');
  });

  it('an approval policy, prices and context windows: a value or an error string', () => {
    fc.assert(fc.property(hostileValue, (raw) => {
      for (const parse of [parsePolicy, parsePrices, parseContextWindows]) {
        const r = quick(() => parse(raw)) as { value?: unknown; error?: string };
        expect('value' in r || typeof r.error === 'string').toBe(true);
      }
      const rule = quick(() => parseRule(raw));
      expect(typeof rule === 'string' || ['allow', 'deny', 'ask'].includes(rule.decision)).toBe(true);
    }), { numRuns: runs(300) });
  });
});

describe('the files the Stop hook reads (written by the agent)', () => {
  it('a lock, a checklist, a plan: a value or nothing', () => {
    fc.assert(fc.property(fc.oneof(hostileJsonText(), bent({ owner: 'o', pid: 1, host: 'h', heartbeat_at: '2026-11-22T05:00:00Z' }, ['owner', 'pid', 'host', 'heartbeat_at']).map(safeStringify)), hostileString, (text, plan) => {
      const lock = quick(() => parseLock(text));
      if (lock) expect(typeof lock.owner === 'string' && Number.isSafeInteger(lock.pid)).toBe(true);
      const tasks = quick(() => parseChecklist(text));
      expect(Array.isArray(tasks)).toBe(true);
      expect(Array.isArray(quick(() => parsePlan(plan)))).toBe(true);
      const summary = quick(() => tasksFromTexts(text, plan));
      expect(summary.completed).toBeLessThanOrEqual(summary.total);
    }), { numRuns: runs(100) });
  });
});

process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
