import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { runHook } from '../../src/commands/hook.js';
import { INJECTED_STATE_EVENTS, stateOfEvent } from '../../src/hooks/state.js';
import { parseEvent } from '../../src/hooks/input.js';
import { AGENT_STATES } from '../../src/store/agentState.js';
import { Store } from '../../src/store/index.js';
import { bent, hasControl, hostileJsonText, hostileString, hostileValue, quick, quickAsync, runs, safeStringify } from '../helpers/hostile.js';

// Property-based: every hook event's payload, as Claude Code (or anything that can run the
// hook command) sends it on stdin, through `autodeck hook state` and `autodeck hook stop`
// in-process with a real database and a loop in hook mode. For any payload: the hook exits
// 0 within a generous bound, prints nothing or one JSON object Claude Code can read, and
// leaves the database readable.

const EVENTS = [...new Set([...INJECTED_STATE_EVENTS, 'Stop', 'SubagentStop', 'SessionEnd', 'Unknown'])];
const root = realpathSync(mkdtempSync(join(tmpdir(), 'autodeck-fuzz-hooks-')));
mkdirSync(join(root, '.git'));
const taskDir = join(root, 'AiTasks', 'hooked');
mkdirSync(taskDir, { recursive: true });
writeFileSync(join(taskDir, '.checklist.json'), JSON.stringify([{ id: '1', subject: 'one', status: 'pending' }, { id: '2', subject: 'two', status: 'completed' }]));
const db = join(root, 'state.db');
const store = Store.open(db);
const now = new Date().toISOString();
store.loops.insert({
  session: 'hooked', taskDir, taskName: 'hooked', root: join(root, 'AiTasks'), maxIterations: 50, timeoutMinutes: 60, startedAt: now,
  backend: 'pty', ownerPid: process.pid, ownerHost: 'here', ownerHeartbeatAt: now, agentArgv: ['claude'], settings: { mode: 'hook', cwd: root },
});
const env = { AUTODECK_SESSION: 'hooked', AUTODECK_DB: db, AUTODECK_TASK_DIR: taskDir };

afterAll(() => {
  store.close();
  rmSync(root, { recursive: true, force: true });
});

/** A realistic payload of event `name`, some of its fields bent to hostile values. */
const payload = fc.constantFrom(...EVENTS).chain((name) => bent({
  hook_event_name: name, session_id: 'abc', transcript_path: join(root, 'nope.jsonl'), cwd: root, permission_mode: 'default',
  tool_name: 'Bash', tool_input: { command: 'ls' }, notification_type: 'permission_prompt', message: 'Claude needs your permission',
  source: 'compact', reason: 'other', trigger: 'auto', stop_hook_active: false, last_assistant_message: 'done', error: 'x',
}, ['hook_event_name', 'session_id', 'transcript_path', 'cwd', 'tool_name', 'tool_input', 'notification_type', 'message', 'source', 'reason', 'last_assistant_message', 'stop_hook_active', 'error']));

const input = fc.oneof({ weight: 3, arbitrary: payload.map(safeStringify) }, hostileJsonText(), hostileString);

async function hook(sub: string, text: string): Promise<{ code: number; out: string }> {
  let out = '';
  const stdout = new Writable({ write(chunk, _enc, done) { out += String(chunk); done(); } });
  const stderr = new Writable({ write(_chunk, _enc, done) { done(); } });
  const code = await runHook({ args: [sub], env, stdin: Readable.from([Buffer.from(text)]), stdout, stderr, dbPath: () => db });
  return { code, out };
}

describe('hook payloads', () => {
  it('hook state and hook stop: exit 0, nothing or one JSON object on stdout, the database still readable', async () => {
    await fc.assert(fc.asyncProperty(input, async (text) => {
      const state = await quickAsync(() => hook('state', text));
      expect(state).toEqual({ code: 0, out: '' });
      const stop = await quickAsync(() => hook('stop', text));
      expect(stop.code).toBe(0);
      if (stop.out !== '') {
        expect(stop.out.endsWith('\n') && stop.out.indexOf('\n') === stop.out.length - 1).toBe(true);
        const answer = JSON.parse(stop.out) as { decision?: unknown; reason?: unknown };
        expect(answer.decision).toBe('block');
        expect(typeof answer.reason).toBe('string');
      }
      const row = store.agentState.get('hooked');
      if (row) {
        expect(AGENT_STATES).toContain(row.state);
        expect(() => JSON.stringify(row.detail)).not.toThrow();
      }
      expect(() => store.events.list(5)).not.toThrow();
    }), { numRuns: runs(60) });
  });

  it('stateOfEvent: a known state with plain, bounded detail, or nothing', () => {
    fc.assert(fc.property(fc.oneof(payload, hostileValue.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v))), (event) => {
      const reported = quick(() => stateOfEvent(event));
      if (!reported) return;
      expect(AGENT_STATES).toContain(reported.state);
      const text = JSON.stringify(reported.detail);
      expect(text.length).toBeLessThan(64 * 1024);
    }), { numRuns: runs(300) });
  });

  it('regression (found by the property above): a payload\'s text field of 70,000 characters is kept cut', () => {
    const reported = stateOfEvent({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: '', reason: '\u0000'.repeat(70_000) });
    expect(reported!.state).toBe('waiting');
    expect(String(reported!.detail.reason).length).toBe(4000);
  });

  it('parseEvent: an object or a printable reason', () => {
    fc.assert(fc.property(input, fc.boolean(), (text, timedOut) => {
      const r = quick(() => parseEvent({ text, oversized: false, timedOut }));
      if (!r.ok) expect(hasControl(r.reason)).toBe(false);
      else expect(typeof r.event).toBe('object');
    }), { numRuns: runs(200) });
  });
});
