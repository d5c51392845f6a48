import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/index.js';
import { LoopRowWriter } from '../../src/supervisor/loopRowWriter.js';

// A loop's row writer on a real SQLite file: what it tells the dashboard, and what it writes.

let dir: string | undefined;
let store: Store | undefined;
afterEach(() => {
  store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  store = dir = undefined;
});

function writer(): { w: LoopRowWriter; changes: () => number } {
  dir = mkdtempSync(join(tmpdir(), 'autodeck-writer-'));
  store = Store.open(join(dir, 'state.db'));
  const now = '2026-11-26T12:00:00.000Z';
  const row = store.loops.insert({
    session: 'auto-a-123456', taskDir: '/t/a', taskName: 'a', root: '/t', maxIterations: 20, timeoutMinutes: 30, startedAt: now,
    backend: 'pty', ownerPid: 1, ownerHost: 'h', ownerHeartbeatAt: now, agentArgv: ['sim'], settings: {},
  });
  let changes = 0;
  const w = new LoopRowWriter(row, { store, record: () => {}, changed: () => changes++ });
  return { w, changes: () => changes };
}

describe('the row writer', () => {
  it('a heartbeat that moved only the screen hash tells no change; one that moved the stall count does', () => {
    const { w, changes } = writer();
    w.patchLater({ lastCaptureHash: 'h1' });
    expect(changes()).toBe(0);
    w.patchLater({ lastCaptureHash: 'h2', stallCount: 1 });
    expect(changes()).toBe(1);
    w.patch({ agentPid: 42 });
    expect(changes()).toBe(2); // a patch is written at once, and always told
    // the hash is written all the same, with the next flush
    w.patchLater({ lastCaptureHash: 'h3' });
    expect(w.flush()).toEqual({ lastCaptureHash: 'h3' });
    expect(store!.loops.get('auto-a-123456')).toMatchObject({ lastCaptureHash: 'h3', stallCount: 1, agentPid: 42 });
  });
});
