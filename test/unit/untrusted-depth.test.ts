import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hostileValue, runs } from '../helpers/hostile.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_SIGNAL_BYTES, parseSignal } from '../../src/protocol/signal.js';
import { repeatedToolCalls } from '../../src/supervisor/hung.js';
import { Store } from '../../src/store/index.js';
import { show } from '../../src/config/kinds.js';
import { excerpt } from '../../src/api/body.js';
import { hookRequest } from '../../src/policy/screenRequest.js';
import { waitingRequest } from '../../src/supervisor/approvals.js';
import { boundedCopy, boundedDetail, cutString, describeValue, DETAIL_BOUNDS } from '../../src/format/bounded.js';

/**
 * A value an agent (or a person) can write, nested deeper than JSON.stringify can recurse:
 * JSON.parse reads it without trouble, anything that describes or copies it by recursion
 * overflows the stack. Under the signal file's 64 KiB cap, 30,000 levels fit.
 */
const DEPTH = 30_000;
const deepText = (depth = DEPTH): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deep = (depth = DEPTH): unknown => JSON.parse(deepText(depth));
const signal = { step: 'exec', result: 'PASS', next: 'check', checkpoint: '', iteration: 1, timestamp: '2026-11-22T05:00:00Z' };

describe('values nested deeper than the stack: described and copied within bounds', () => {
  it('a deeply nested value is itself fine to parse (the trouble is describing it)', () => {
    expect(() => JSON.stringify(deep())).toThrow(RangeError);
  });

  it.each(['step', 'result', 'next', 'checkpoint', 'timestamp', 'iteration'])('a signal whose %s is a deeply nested array is invalid, with a short reason', (field) => {
    const text = JSON.stringify({ ...signal, [field]: '@' }).replace('"@"', deepText());
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_SIGNAL_BYTES);
    const r = parseSignal(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toContain(field);
      expect(r.reason.length).toBeLessThan(120);
    }
  });

  it('the transcript: a tool call whose input nests deeply is counted, not a crash', () => {
    const call = { type: 'assistant', message: { content: [{ type: 'tool_use', name: 'Bash', input: { command: deep() } }] } };
    expect(repeatedToolCalls([call, call, call])).toBe(3);
  });

  it('an event whose detail nests deeply is stored bounded and read back', () => {
    const store = Store.open(join(mkdtempSync(join(tmpdir(), 'autodeck-depth-')), 'state.db'));
    try {
      store.events.record({ at: '2026-11-22T05:00:00.000Z', session: 's', taskDir: '/t/a', kind: 'error', detail: { where: 'hook', payload: deep(), long: 'x'.repeat(1_000_000) } });
      const [e] = store.events.list(1);
      expect(e!.detail.where).toBe('hook');
      expect(JSON.stringify(e!.detail).length).toBeLessThan(DETAIL_BOUNDS.total + 2000);
      store.agentState.set({ session: 's', state: 'waiting', event: 'PermissionRequest', detail: { tool_name: 'Bash', tool_input: { command: 'ls', x: deep() } }, at: '2026-11-22T05:00:00.000Z' });
      const row = store.agentState.get('s')!;
      expect(hookRequest(row.detail)).toMatchObject({ tool: 'Bash', command: 'ls' });
      expect(waitingRequest(row, 0)).toMatchObject({ tool: 'Bash' });
    } finally {
      store.close();
    }
  });

  it('a settings value and an API body value are described in one short line', () => {
    expect(show(deep()).length).toBeLessThanOrEqual(40);
    expect(excerpt(deep()).length).toBeLessThanOrEqual(81);
  });
});

describe('boundedCopy', () => {
  it('keeps plain data as it is', () => {
    const v = { a: [1, 'two', true, null, { b: 'c' }], d: -1.5 };
    expect(boundedCopy(v)).toEqual(v);
  });

  it('cuts depth, strings, entries and the total, saying so', () => {
    const bounds = { depth: 2, string: 5, items: 3, total: 100 };
    expect(boundedCopy([[[1]]], bounds)).toEqual([['[…]']]);
    expect(boundedCopy({ a: { b: { c: 1 } } }, bounds)).toEqual({ a: { b: '{…}' } });
    expect(boundedCopy('abcdefgh', bounds)).toBe('abcd…');
    expect(boundedCopy([1, 2, 3, 4, 5], bounds)).toEqual([1, 2, 3, '… 2 more']);
    expect(boundedCopy({ a: 1, b: 2, c: 3, d: 4 }, bounds)).toEqual({ a: 1, b: 2, c: 3, '…': '1 more' });
    const many = boundedCopy(Array.from({ length: 50 }, () => 'xxxxx'), { depth: 2, string: 5, items: 50, total: 20 }) as unknown[];
    expect(many.slice(0, 4)).toEqual(['xxxxx', 'xxxxx', 'xxxxx', 'xxxxx']);
    expect(many.at(-1)).toBe('… 46 more');
  });

  it('makes what JSON cannot hold into what it can', () => {
    expect(boundedCopy([NaN, Infinity, -Infinity, -0, 10n, undefined, () => 1, Symbol('s')])).toEqual([null, null, null, 0, '10', null, null, null]);
    expect(Object.is(boundedCopy(-0), 0)).toBe(true);
    expect(boundedCopy({ a: undefined, f: () => 1, d: new Date(0) })).toEqual({ d: '1970-01-01T00:00:00.000Z' });
  });

  it('keeps a key named __proto__ as data, never as the copy\'s prototype', () => {
    const v = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}}') as Record<string, unknown>;
    const out = boundedDetail(v);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(out))).toEqual(v);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('never splits a surrogate pair, and a lone one stays valid JSON', () => {
    expect(cutString('ab😀', 3)).toBe('ab…');
    expect(cutString('a😀b', 3)).toBe('a…');
    const lone = boundedCopy('x\ud800y');
    expect(JSON.parse(JSON.stringify(lone))).toBe('x\ud800y');
  });

  it('a getter that throws is no data, and no crash', () => {
    const v = { get bad(): never { throw new Error('no'); } };
    expect(() => boundedCopy(v)).not.toThrow();
  });

  it('any value: a copy JSON can write, within the bounds, never a throw (property)', () => {
    const bounds = { depth: 4, string: 50, items: 5, total: 300 };
    fc.assert(fc.property(hostileValue, (v) => {
      const copy = boundedCopy(v, bounds);
      const text = JSON.stringify(copy) ?? '';
      // strings and keys within the total; markers, quotes and commas besides
      expect(text.length).toBeLessThan(bounds.total * 2 + 2000);
      expect(JSON.parse(JSON.stringify(boundedCopy(JSON.parse(text || 'null'), bounds)) ?? 'null')).toEqual(JSON.parse(text || 'null'));
      expect(describeValue(v).length).toBeLessThanOrEqual(40);
    }), { numRuns: runs(300) });
  });

  it('describeValue: short, quoted, one line', () => {
    expect(describeValue('deploy')).toBe('"deploy"');
    expect(describeValue(' 5')).toBe('" 5"');
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue('x'.repeat(100))).toHaveLength(40);
    expect(describeValue({ a: deep(100) }).length).toBeLessThanOrEqual(40);
  });
});
