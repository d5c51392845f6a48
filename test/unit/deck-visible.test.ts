import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';
import { sameVisibleRows } from '../../src/deck/cells.js';
import { cellWidth, cutCell } from '../../src/deck/layout.js';
import { loopRow, moduleRow } from '../helpers/fakeModel.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const LIMITS = { stallThreshold: 3, recoveryTotal: 10 };
const started = new Date(NOW - 65_500).toISOString();
const row = (patch = {}) => moduleRow('a', { loop: loopRow('/ws/AiTasks/a', { startedAt: started, lastSignalAt: new Date(NOW - 4000).toISOString(), ...patch }) });

describe('sameVisibleRows: what a heartbeat may change without a frame', () => {
  it('ignores fields no cell shows: capture hash, lease time, pid; spend while its columns are off', () => {
    const a = [row(), moduleRow('b')];
    const b = [row({ lastCaptureHash: 'x', ownerHeartbeatAt: new Date(NOW).toISOString(), agentPid: 99, tokens: 5, costUsd: 1, restartCount: 0 }), moduleRow('b')];
    expect(sameVisibleRows(a, b, NOW, LIMITS, false)).toBe(true);
  });

  it('sees spend when its columns are on screen', () => {
    const a = [row({ tokens: 5, costUsd: 1 })];
    expect(sameVisibleRows(a, [row({ tokens: 5, costUsd: 1, agentPid: 7 })], NOW, LIMITS, true)).toBe(true);
    expect(sameVisibleRows(a, [row({ tokens: 50_000, costUsd: 1 })], NOW, LIMITS, true)).toBe(false);
    expect(sameVisibleRows(a, [row({ tokens: 50_000, costUsd: 1 })], NOW, LIMITS, false)).toBe(true);
  });

  it.each([
    ['a stall counted', { stallCount: 1 }],
    ['a new step', { step: 'exec', result: '', next: '' }],
    ['a new status', { status: 'stalled' }],
    ['an iteration', { iteration: 4 }],
    ['a recovery', { recoveryStep: 1, recoveryTotal: 1 }],
    // equal at this instant, apart a second later: the row must not be kept stale
    ['a signal 300 ms apart', { lastSignalAt: new Date(NOW - 4300).toISOString() }],
    ['a quota wait ended', { quotaWaitMs: 200 }],
  ])('sees %s', (_what, patch) => {
    expect(sameVisibleRows([row()], [row(patch)], NOW, LIMITS)).toBe(false);
  });

  it('sees rows added, removed or reordered', () => {
    expect(sameVisibleRows([row()], [row(), moduleRow('b')], NOW, LIMITS)).toBe(false);
    expect(sameVisibleRows([row(), moduleRow('b')], [moduleRow('b'), row()], NOW, LIMITS)).toBe(false);
  });
});

describe('cutCell and cellWidth: the fast path agrees with the Unicode tables', () => {
  const narrow = fc.string({ unit: fc.constantFrom(...'abc XYZ09/-:>|~▶█░‖✓✗■!○·↗›…▏▎▍▌▋▊▉─'.split('')), maxLength: 30 });
  const any = fc.string({ unit: fc.constantFrom(...'ab 日本語-モジュール▶🙂é\u0301'.split('')), maxLength: 20 });
  it('cuts and measures like cli-truncate and string-width', () => {
    fc.assert(fc.property(fc.oneof(narrow, any), fc.integer({ min: 0, max: 40 }), (text, width) => {
      expect(cutCell(text, width)).toBe(width <= 1 ? '' : cliTruncate(text, width - 1));
      expect(cellWidth(text)).toBe(stringWidth(text));
    }));
  });
});
