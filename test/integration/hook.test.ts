import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { BIN } from '../helpers/cli.js';
import { eventsOf, readDb } from '../helpers/db.js';
import { Store } from '../../src/store/index.js';
import { sessionName } from '../../src/paths.js';
import { parseSignal } from '../../src/protocol/signal.js';
import { SENTINEL } from '../../src/hooks/sentinel.js';
import { stopEvent } from '../../src/hooks/claudeHooks.js';

// `autodeck hook stop|state` as Claude Code runs it: a real process fed the event JSON on
// stdin, against a real database and task folder. It runs the built CLI once `hook` is
// wired into src/cli.ts; until then the built command module, through the same entry
// (`hookMain`) a fast path in the CLI would take.

const DIST_CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));
const DIST_HOOK = fileURLToPath(new URL('../../dist/src/commands/hook.js', import.meta.url));
let viaCli = false;

beforeAll(() => {
  if (!existsSync(DIST_HOOK)) throw new Error('dist/ is not built: run "npm run build" (npm test does)');
  viaCli = readFileSync(DIST_CLI, 'utf8').includes('commands/hook.js');
});

function hookArgv(kind: string, extra: string[]): string[] {
  if (viaCli) return [BIN, 'hook', kind, ...extra];
  return ['--input-type=module', '-e',
    `import { hookMain } from ${JSON.stringify(pathToFileURL(DIST_HOOK).href)}; process.exitCode = await hookMain(${JSON.stringify([kind, ...extra])});`];
}

interface HookRun { code: number; stdout: string; stderr: string; ms: number }

/** Runs one hook; `input` null leaves stdin open and silent (a hook run by hand). */
function runHook(ws: Workspace, kind: string, env: NodeJS.ProcessEnv, input: string | Buffer | null, extra: string[] = []): Promise<HookRun> {
  const started = Date.now();
  const child = spawn(process.execPath, hookArgv(kind, extra), { cwd: ws.dir, env: { ...ws.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.on('error', () => { /* the hook stops reading a huge input: EPIPE here is expected */ });
  if (input !== null) child.stdin.end(input);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started });
    });
  });
}

let ws: Workspace;
afterEach(() => ws?.cleanup());

interface Loop { dir: string; session: string; env: NodeJS.ProcessEnv }

/** A module with a running loop row, as the supervisor leaves it, and the environment it gives its agent. */
function loopIn(w: Workspace, name = 'm', opts: { plan?: string; maxIterations?: number; agentPid?: number; mode?: 'signal' | 'hook' } = {}): Loop {
  const dir = w.module(name);
  if (opts.plan !== undefined) writeFileSync(join(dir, '.plan.md'), opts.plan);
  const session = sessionName(name, dir);
  const store = Store.open(w.db);
  store.loops.insert({
    session, taskDir: dir, taskName: name, root: w.root, maxIterations: opts.maxIterations ?? 20, timeoutMinutes: 30,
    startedAt: new Date(Date.now() - 1000).toISOString(), backend: 'pty', ownerPid: process.pid, ownerHost: hostname(),
    ownerHeartbeatAt: new Date().toISOString(), agentArgv: ['claude', name], settings: { cwd: w.dir, mode: opts.mode ?? 'hook' }, status: 'running',
  });
  if (opts.agentPid !== undefined) store.loops.update(session, { agentPid: opts.agentPid });
  store.close();
  return { dir, session, env: { AUTODECK_SESSION: session, AUTODECK_TASK_DIR: dir, AUTODECK_DB: w.db } };
}

function stopJson(w: Workspace, o: { sessionId?: string; transcript?: string; last?: string; active?: boolean } = {}): string {
  return JSON.stringify(stopEvent({
    sessionId: o.sessionId ?? 'c0ffee00-0000-4000-8000-000000000001', transcriptPath: o.transcript ?? join(w.dir, 'home', 'none.jsonl'),
    cwd: w.dir, stopHookActive: o.active ?? false, lastAssistantMessage: o.last,
  }));
}

const signalOf = (dir: string) => {
  const r = parseSignal(readFileSync(join(dir, '.auto-signal'), 'utf8'));
  if (!r.ok) throw new Error(r.reason);
  return r.signal;
};
const progressOf = (w: Workspace, dir: string) =>
  readDb(w.db, (db) => db.prepare('SELECT * FROM hook_progress WHERE task_dir = ?').get(dir) as Record<string, unknown> | undefined);

describe('autodeck hook stop', () => {
  it('without AUTODECK_SESSION does nothing at all, even with stdin left open', async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n' });
    const r = await runHook(ws, 'stop', { AUTODECK_TASK_DIR: loop.dir, AUTODECK_DB: join(ws.dir, 'other.db') }, null);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(join(ws.dir, 'other.db'))).toBe(false);
    expect(existsSync(join(loop.dir, '.auto-signal'))).toBe(false);
  });

  it('blocks with the progress and the remaining tasks, and writes the signal, the lock and its counters', async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '# Plan\n- [x] parse\n- [ ] test\n- [ ] document\n', agentPid: process.pid });
    const r = await runHook(ws, 'stop', loop.env, stopJson(ws));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.endsWith('\n')).toBe(true);
    const out = JSON.parse(r.stdout) as { decision: string; reason: string };
    expect(Object.keys(out)).toEqual(['decision', 'reason']); // never continue:false with a block
    expect(out.decision).toBe('block');
    expect(out.reason).toMatch(/^autodeck: 1\/3 tasks complete \(33%\), iteration 1 of 20\./);
    expect(out.reason).toContain('Remaining tasks:\n- test\n- document');

    expect(signalOf(loop.dir)).toMatchObject({ step: 'exec', result: 'CONTINUE', next: 'exec', checkpoint: '', iteration: 1 });
    expect(readdirSync(loop.dir)).not.toContain('.auto-signal.tmp');
    expect(JSON.parse(readFileSync(join(loop.dir, '.autodeck.lock'), 'utf8'))).toMatchObject({
      owner: 'session:c0ffee00-0000-4000-8000-000000000001', pid: process.pid, host: hostname(),
    });
    expect(progressOf(ws, loop.dir)).toMatchObject({ session_name: loop.session, iteration: 1, completed: 1, stale_iterations: 0, blocks: 1 });
    const [event] = eventsOf(ws.db, loop.dir, 'hook_block');
    expect(event!.detail).toMatchObject({ rule: 'continue', iteration: 1, completed: 1, total: 3, reason: expect.stringMatching(/^autodeck: 1\/3/) });
  });

  it('counts progress across Stops and ends complete when every task is done', async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n- [ ] b\n' });
    await runHook(ws, 'stop', loop.env, stopJson(ws));
    writeFileSync(join(loop.dir, '.plan.md'), '- [x] a\n- [ ] b\n');
    const second = await runHook(ws, 'stop', loop.env, stopJson(ws, { active: true }));
    expect(JSON.parse(second.stdout).reason).toMatch(/^autodeck: 1\/2 tasks complete \(50%\), iteration 2/);
    expect(signalOf(loop.dir).iteration).toBe(2);
    writeFileSync(join(loop.dir, '.plan.md'), '- [x] a\n- [x] b\n');
    const last = await runHook(ws, 'stop', loop.env, stopJson(ws, { active: true }));
    expect(last).toMatchObject({ code: 0, stdout: '' });
    expect(signalOf(loop.dir)).toMatchObject({ step: 'report', result: '(done)', next: '(stop)', iteration: 3 });
    expect(existsSync(join(loop.dir, '.autodeck.lock'))).toBe(false); // the next loop starts free
    expect(eventsOf(ws.db, loop.dir, 'hook_allow').map((e) => e.detail)).toEqual([expect.objectContaining({ rule: 'all_done', outcome: 'complete' })]);
  });

  it('allows and ends complete on the sentinel in the transcript, not on the prompt quoted back', async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n' });
    const transcript = join(ws.dir, 'home', 't.jsonl');
    const line = (o: unknown) => `${JSON.stringify(o)}\n`;
    writeFileSync(transcript, line({ type: 'user', message: { role: 'user', content: `Stop hook feedback:\nend your reply with ${SENTINEL}` } }));
    const quoted = await runHook(ws, 'stop', loop.env, stopJson(ws, { transcript }));
    expect(JSON.parse(quoted.stdout).decision).toBe('block');

    writeFileSync(transcript, line({ type: 'assistant', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: `Done.\n${SENTINEL}` }] } }), { flag: 'a' });
    const r = await runHook(ws, 'stop', loop.env, stopJson(ws, { transcript }));
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(signalOf(loop.dir)).toMatchObject({ step: 'report', result: '(done)', next: '(stop)' });
    expect(eventsOf(ws.db, loop.dir, 'hook_allow')[0]!.detail).toMatchObject({ rule: 'sentinel', outcome: 'complete' });
  });

  it('sees the sentinel in last_assistant_message when the transcript has not caught up', async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n' });
    const r = await runHook(ws, 'stop', loop.env, stopJson(ws, { last: `all good ${SENTINEL}` }));
    expect(r.stdout).toBe('');
    expect(signalOf(loop.dir).next).toBe('(stop)');
  });

  it('writes nothing when the stop file exists: the supervisor is already stopping', async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n' });
    writeFileSync(join(loop.dir, '.auto-stop'), '{"reason":"timeout","timestamp":"2026-11-22T05:00:00Z"}\n');
    const r = await runHook(ws, 'stop', loop.env, stopJson(ws));
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(existsSync(join(loop.dir, '.auto-signal'))).toBe(false);
    expect(readFileSync(join(loop.dir, '.auto-stop'), 'utf8')).toContain('timeout');
    expect(eventsOf(ws.db, loop.dir, 'hook_allow')[0]!.detail).toMatchObject({ rule: 'stop_file' });
  });

  it('a Stop after the loop ended never writes over its (stop) signal', async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n' });
    await runHook(ws, 'stop', loop.env, stopJson(ws, { last: SENTINEL }));
    const ended = readFileSync(join(loop.dir, '.auto-signal'), 'utf8');
    const again = await runHook(ws, 'stop', loop.env, stopJson(ws, { last: 'something else' }));
    expect(again).toMatchObject({ code: 0, stdout: '' });
    expect(readFileSync(join(loop.dir, '.auto-signal'), 'utf8')).toBe(ended);
    expect(eventsOf(ws.db, loop.dir, 'hook_allow').map((e) => e.detail.rule)).toEqual(['sentinel', 'stopping']);
  });

  it('a (stop) whose verify failed since ends nothing: the next Stop blocks with the progress again', async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [x] a\n- [ ] b\n' });
    await runHook(ws, 'stop', loop.env, stopJson(ws, { last: SENTINEL }));
    expect(signalOf(loop.dir).next).toBe('(stop)');
    // the supervisor verified that end; the verify failed, and the loop runs again
    const store = Store.open(ws.db);
    store.loops.update(loop.session, { status: 'running', verifyStartedAt: new Date(Date.now() + 10).toISOString(), verifyFailures: 1 });
    store.close();
    const again = await runHook(ws, 'stop', loop.env, stopJson(ws, { last: 'I looked at the failing test.' }));
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ decision: 'block' });
    expect(signalOf(loop.dir)).toMatchObject({ step: 'exec', result: 'CONTINUE', next: 'exec' });
    expect(eventsOf(ws.db, loop.dir).filter((e) => e.kind.startsWith('hook_')).map((e) => e.detail.rule)).toEqual(['sentinel', 'continue']);
  });

  it("lets another session stop without touching the loop while a live session holds the lock; takes a stale lock", async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n' });
    const held = { owner: 'session:first', pid: process.pid, host: hostname(), heartbeat_at: new Date().toISOString() };
    writeFileSync(join(loop.dir, '.autodeck.lock'), JSON.stringify(held));
    const r = await runHook(ws, 'stop', loop.env, stopJson(ws, { sessionId: 'second' }));
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(existsSync(join(loop.dir, '.auto-signal'))).toBe(false);
    expect(JSON.parse(readFileSync(join(loop.dir, '.autodeck.lock'), 'utf8'))).toEqual(held);
    expect(eventsOf(ws.db, loop.dir, 'hook_allow')[0]!.detail).toMatchObject({ rule: 'lock_held' });

    writeFileSync(join(loop.dir, '.autodeck.lock'), JSON.stringify({ ...held, heartbeat_at: new Date(Date.now() - 6 * 60_000).toISOString() }));
    const taken = await runHook(ws, 'stop', loop.env, stopJson(ws, { sessionId: 'second' }));
    expect(JSON.parse(taken.stdout).decision).toBe('block');
    expect(JSON.parse(readFileSync(join(loop.dir, '.autodeck.lock'), 'utf8')).owner).toBe('session:second');
  });

  it('gives up with the stop file stall_limit after 10 Stops without progress', async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [x] a\n- [ ] b\n' });
    const store = Store.open(ws.db);
    store.hookProgress.set({ taskDir: loop.dir, session: loop.session, iteration: 12, completed: 1, staleIterations: 9, blocks: 8, updatedAt: new Date().toISOString() });
    store.close();
    const r = await runHook(ws, 'stop', loop.env, stopJson(ws));
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(JSON.parse(readFileSync(join(loop.dir, '.auto-stop'), 'utf8'))).toMatchObject({ reason: 'stall_limit' });
    expect(signalOf(loop.dir)).toMatchObject({ next: 'exec', iteration: 13 });
    expect(eventsOf(ws.db, loop.dir, 'hook_allow')[0]!.detail).toMatchObject({ rule: 'stall_limit', outcome: 'stall_limit' });
  });

  it("ignores a previous loop's counters", async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n' });
    const store = Store.open(ws.db);
    store.hookProgress.set({ taskDir: loop.dir, session: loop.session, iteration: 15, completed: 0, staleIterations: 9, blocks: 9, updatedAt: '2020-01-01T00:00:00.000Z' });
    store.close();
    const r = await runHook(ws, 'stop', loop.env, stopJson(ws));
    expect(JSON.parse(r.stdout).reason).toMatch(/iteration 1 of 20/);
  });

  it('finds its loop by the working folder when AUTODECK_TASK_DIR is not set', async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n' });
    const r = await runHook(ws, 'stop', { AUTODECK_SESSION: loop.session, AUTODECK_DB: ws.db }, stopJson(ws));
    expect(JSON.parse(r.stdout).decision).toBe('block');
    expect(signalOf(loop.dir).iteration).toBe(1);
  });

  it('leaves a loop that is not in hook mode alone: the agent runs its own loop (signal mode)', async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n- [ ] b\n', mode: 'signal' });
    for (let i = 0; i < 3; i++) {
      const r = await runHook(ws, 'stop', loop.env, stopJson(ws));
      expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
    expect(existsSync(join(loop.dir, '.auto-signal'))).toBe(false);
    expect(existsSync(join(loop.dir, '.autodeck.lock'))).toBe(false);
    expect(eventsOf(ws.db, loop.dir)).toEqual([]);
  });

  it("a project's copy of the hook stands aside for the copy autodeck injected; the injected one answers", async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n' });
    const env = { ...loop.env, AUTODECK_HOOKS: 'injected' };
    const project = await runHook(ws, 'stop', env, stopJson(ws));
    expect(project).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(eventsOf(ws.db, loop.dir)).toEqual([]);
    const injected = await runHook(ws, 'stop', env, stopJson(ws), ['--injected']);
    expect(JSON.parse(injected.stdout).decision).toBe('block');
    expect(eventsOf(ws.db, loop.dir).map((e) => e.kind)).toEqual(['hook_block']);
  });

  it('allows silently when no loop is active for it', async () => {
    ws = makeWorkspace();
    const dir = ws.module('idle');
    const r = await runHook(ws, 'stop', { AUTODECK_SESSION: 'auto-idle-000000', AUTODECK_TASK_DIR: dir, AUTODECK_DB: ws.db }, stopJson(ws));
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(join(dir, '.auto-signal'))).toBe(false);
    expect(eventsOf(ws.db, dir)).toEqual([]);
  });

  it.each([
    ['garbage', 'this is not json {', /not JSON/],
    ['empty input', '', /no event on stdin/],
    ['a JSON array', '[1,2,3]', /not a JSON object/],
    ['a huge input', Buffer.alloc(5 * 1024 * 1024, 'x'), /larger than/],
    ['no input at all (stdin left open)', null, /no event on stdin \(timed out\)/],
  ] as const)('%s: allows (exit 0, nothing printed) and records an error', async (_, input, message) => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n' });
    const r = await runHook(ws, 'stop', loop.env, input);
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.ms).toBeLessThan(5000);
    expect(existsSync(join(loop.dir, '.auto-signal'))).toBe(false);
    const errors = eventsOf(ws.db, loop.dir, 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.detail).toMatchObject({ where: 'hook stop', message: expect.stringMatching(message) });
  });

  it('allows when its database cannot be opened, and says why on stderr only', async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n' });
    writeFileSync(join(ws.dir, 'a-file'), '');
    const r = await runHook(ws, 'stop', { ...loop.env, AUTODECK_DB: join(ws.dir, 'a-file', 'state.db') }, stopJson(ws));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^autodeck hook stop: /);
  });

  it('answers well within a second', async () => {
    ws = makeWorkspace();
    const loop = loopIn(ws, 'm', { plan: '- [ ] a\n' });
    const times: number[] = [];
    for (let i = 0; i < 3; i++) times.push((await runHook(ws, 'stop', loop.env, stopJson(ws))).ms);
    // process start included; the figure on an idle machine is ~150-250 ms
    expect(Math.min(...times)).toBeLessThan(1000);
  });
});

describe('autodeck hook state', () => {
  const stateOf = (w: Workspace, session: string) =>
    readDb(w.db, (db) => db.prepare('SELECT state, event, detail FROM agent_state WHERE session_name = ?').get(session) as
      { state: string; event: string; detail: string } | undefined);

  it.each([
    [{ hook_event_name: 'UserPromptSubmit', prompt: 'go' }, 'busy'],
    [{ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }, 'busy'],
    [{ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }, 'busy'],
    [{ hook_event_name: 'Stop', stop_hook_active: false }, 'idle'],
    [{ hook_event_name: 'Notification', notification_type: 'permission_prompt', message: 'Claude needs your permission to use Bash' }, 'waiting'],
    [{ hook_event_name: 'Notification', notification_type: 'elicitation_dialog', message: 'Claude Code needs your input' }, 'waiting'],
    [{ hook_event_name: 'Notification', notification_type: 'idle_prompt', message: 'Claude is waiting for your input' }, 'idle'],
    [{ hook_event_name: 'PreCompact', trigger: 'auto' }, 'compacting'],
    [{ hook_event_name: 'SessionStart', source: 'compact' }, 'compacted'],
    [{ hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' }, 'exited'],
  ])('%j records %s', async (event, state) => {
    ws = makeWorkspace();
    const env = { AUTODECK_SESSION: 'auto-m-123456', AUTODECK_DB: ws.db };
    const r = await runHook(ws, 'state', env, JSON.stringify({ session_id: 's', cwd: ws.dir, ...event }));
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(stateOf(ws, 'auto-m-123456')).toMatchObject({ state, event: event.hook_event_name });
  });

  it('ignores events that say nothing about the state, and anything without AUTODECK_SESSION', async () => {
    ws = makeWorkspace();
    const env = { AUTODECK_SESSION: 'auto-m-123456', AUTODECK_DB: ws.db };
    await runHook(ws, 'state', env, JSON.stringify({ hook_event_name: 'SessionStart', source: 'startup' }));
    expect(stateOf(ws, 'auto-m-123456')).toBeUndefined();
    const inert = await runHook(ws, 'state', { AUTODECK_DB: ws.db }, JSON.stringify({ hook_event_name: 'PreToolUse' }));
    expect(inert).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(stateOf(ws, 'auto-m-123456')).toBeUndefined();
  });

  it('the newest event wins', async () => {
    ws = makeWorkspace();
    const env = { AUTODECK_SESSION: 'auto-m-123456', AUTODECK_DB: ws.db };
    await runHook(ws, 'state', env, JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash' }));
    await runHook(ws, 'state', env, JSON.stringify({ hook_event_name: 'Notification', notification_type: 'idle_prompt' }));
    expect(stateOf(ws, 'auto-m-123456')).toMatchObject({ state: 'idle', event: 'Notification' });
    expect(JSON.parse(stateOf(ws, 'auto-m-123456')!.detail)).toEqual({ notification_type: 'idle_prompt' });
  });

  it('garbage on stdin: exit 0, nothing printed, an error event', async () => {
    ws = makeWorkspace();
    const r = await runHook(ws, 'state', { AUTODECK_SESSION: 'auto-m-123456', AUTODECK_DB: ws.db }, '}{');
    expect(r).toMatchObject({ code: 0, stdout: '' });
    const errors = readDb(ws.db, (db) => db.prepare("SELECT detail FROM events WHERE kind = 'error'").all() as { detail: string }[]);
    expect(errors?.map((e) => JSON.parse(e.detail) as unknown)).toEqual([expect.objectContaining({ where: 'hook state' })]);
  });
});
