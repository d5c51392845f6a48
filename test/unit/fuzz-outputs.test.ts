import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Store } from '../../src/store/index.js';
import { status } from '../../src/commands/status.js';
import { tmuxStatus } from '../../src/commands/statusTmux.js';
import { sseFrame } from '../../src/api/events.js';
import { EventRecorder } from '../../src/supervisor/eventRecorder.js';
import { systemClock } from '../../src/supervisor/clock.js';
import { formatEvent } from '../../src/format/event.js';
import type { LoopEvent } from '../../src/store/events.js';
import type { Settings } from '../../src/config/schema.js';
import { hasControl, hostileNumber, hostileString, hostileValue, quick, quickAsync, runs } from '../helpers/hostile.js';

// Property-based: what autodeck writes for other programs to parse — `status --json`,
// `status --format tmux` (a tmux status line), the SSE frames of GET /api/events and the
// NDJSON of `run --json` — over state holding hostile values (what agents wrote, folder
// names, an exception's message), and `status`'s own text. Always valid for its reader.

const dir = mkdtempSync(join(tmpdir(), 'autodeck-fuzz-out-'));
let n = 0;
// `status` also looks at Claude Code's own sessions: an empty folder of its own here, never the machine's
const claudeDir = process.env.CLAUDE_CONFIG_DIR;
process.env.CLAUDE_CONFIG_DIR = join(dir, 'claude');
afterAll(() => {
  if (claudeDir === undefined) delete process.env.CLAUDE_CONFIG_DIR;
  else process.env.CLAUDE_CONFIG_DIR = claudeDir;
  rmSync(dir, { recursive: true, force: true });
});

/** Text fields of a loop row that come from outside: folder and module names, agent text, failures. */
const rowText = fc.record({
  taskName: hostileString, step: hostileString, result: hostileString, next: hostileString, stopReason: hostileString, waitingText: hostileString,
});

function capture(): { stream: Writable; text: () => string } {
  let out = '';
  return { stream: new Writable({ write(chunk, _e, done) { out += String(chunk); done(); } }), text: () => out };
}

describe('status --json, --format tmux and the text', () => {
  it('over rows of hostile text and numbers: JSON that parses, one tmux line, printable text', async () => {
    await fc.assert(fc.asyncProperty(rowText, hostileNumber, hostileNumber, async (t, tokens, cost) => {
      const db = join(dir, `s${n++}.db`);
      const store = Store.open(db);
      const now = new Date().toISOString();
      try {
        store.loops.insert({
          session: 's', taskDir: `/t/${t.taskName}`, taskName: t.taskName, root: '/t', maxIterations: 5, timeoutMinutes: 10, startedAt: now,
          backend: 'pty', ownerPid: 1, ownerHost: 'h', ownerHeartbeatAt: now, agentArgv: [t.step], settings: {},
        });
        store.loops.update('s', {
          step: t.step, result: t.result, next: t.next, stopReason: t.stopReason, status: 'failed',
          waitingFor: { reason: 'question', text: t.waitingText, since: now }, tokens: Number.isFinite(tokens) ? tokens : null, costUsd: Number.isFinite(cost) ? cost : null,
        });
        store.runs.insert({
          session: 's', taskDir: '/t/x', taskName: t.taskName, startedAt: now, endedAt: now, iterations: 1, maxIterations: 5, timeoutMinutes: 10,
          outcome: 'failed', stopReason: t.stopReason, forced: false, recoveries: 0, restarts: 0, quotaWaitMs: 0, activeMs: 0, tokens: null, costUsd: null, compactions: null,
        });
      } finally {
        store.close();
      }
      const settings = { db, agent: ['claude'] } as unknown as Settings;
      const json = capture();
      await quickAsync(() => status({ args: [], flags: { json: true }, settings, stdout: json.stream, stderr: capture().stream, cwd: dir }));
      const parsed = JSON.parse(json.text()) as { loops: { taskName: string }[]; recent: unknown[] };
      // SQLite keeps text as UTF-8: a lone surrogate comes back as replacement characters
      const wellFormed = !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(t.taskName);
      if (wellFormed) expect(parsed.loops[0]!.taskName).toBe(t.taskName);
      expect(parsed.recent).toHaveLength(1);

      const tmux = quick(() => tmuxStatus(db));
      expect(tmux).toMatch(/^[^\n\r#]*$/);
      expect(hasControl(tmux)).toBe(false);

      const text = capture();
      await quickAsync(() => status({ args: [], flags: {}, settings, stdout: text.stream, stderr: capture().stream, cwd: dir }));
      for (const l of text.text().split('\n')) expect(hasControl(l)).toBe(false);
    }), { numRuns: runs(40) });
  });
});

describe('events as others read them', () => {
  it('an SSE frame, a `run --json` line and a log line for any event detail', () => {
    const store = Store.open(join(dir, 'events.db'));
    try {
      const told: LoopEvent[] = [];
      const recorder = new EventRecorder(store, systemClock, (e) => told.push(e));
      fc.assert(fc.property(hostileValue, hostileString, fc.constantFrom('error', 'internal_error', 'signal_invalid', 'needs_you', 'approval', 'failed'), (value, text, kind) => {
        told.length = 0;
        quick(() => recorder.record({ session: 's', taskDir: '/t/a', taskName: text }, kind, { where: text, message: text, value }));
        const [e] = told;
        const frame = quick(() => sseFrame(e!));
        expect(frame.endsWith('\n\n')).toBe(true);
        const lines = frame.slice(0, -2).split('\n');
        const data = lines.filter((l) => l.startsWith('data: '));
        expect(data).toHaveLength(1);
        expect(lines.every((l) => l.startsWith('data: ') || l.startsWith('id: '))).toBe(true);
        expect(JSON.parse(data[0]!.slice(6)).kind).toBe(kind);
        const ndjson = JSON.stringify(e);
        expect(ndjson).not.toContain('\n');
        expect(quick(() => formatEvent(e!))).toBeTypeOf('string');
        // and as the log reads it back
        for (const back of quick(() => store.events.list(1))) expect(() => JSON.stringify(back)).not.toThrow();
      }), { numRuns: runs(150) });
    } finally {
      store.close();
    }
  });

  it('regression: a detail stored deep by an earlier version is read back bounded', () => {
    const store = Store.open(join(dir, 'deep.db'));
    try {
      const deep = `{"v":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
      store.db.prepare('INSERT INTO events (at, session_name, task_dir, kind, detail) VALUES (?, ?, ?, ?, ?)').run(new Date().toISOString(), 's', '/t', 'error', deep);
      const [e] = store.events.list(1);
      expect(() => sseFrame(e!)).not.toThrow();
      expect(() => formatEvent(e!)).not.toThrow();
    } finally {
      store.close();
    }
  });
});
