import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { SIM_AGENT } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { LiveModel } from '../../src/deck/model.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { Store } from '../../src/store/index.js';
import { resolveSettings } from '../../src/config/settings.js';

// The dashboard's model over a real supervisor, store and simulated agent: what the keys
// of the dashboard do, without the screen.

let ws: Workspace | undefined;
let store: Store | undefined;
let supervisor: Supervisor | undefined;
let model: LiveModel | undefined;
afterEach(async () => {
  model?.close();
  supervisor?.stopAll({ force: true });
  await supervisor?.whenIdle();
  supervisor?.close();
  store?.close();
  ws?.cleanup();
  model = supervisor = store = ws = undefined;
});

function setup(extra: Record<string, unknown> = {}): LiveModel {
  ws = makeWorkspace();
  const { value: settings, errors } = resolveSettings({
    flags: { db: ws.db, root: [ws.root], agent: SIM_AGENT, heartbeat: '0.5', ...extra }, env: ws.env, cwd: ws.dir,
  });
  expect(errors).toEqual([]);
  store = Store.open(ws.db);
  supervisor = new Supervisor({ store, settings, env: ws.env });
  model = new LiveModel(supervisor, store, settings.roots);
  return model;
}

describe('the live model', () => {
  it('starts a loop with the dialog\'s limits, streams its screen as text and its events, and it ends at the limit', async () => {
    const m = setup();
    const dir = ws!.module('fast', { scenario: { stepSeconds: 0.2 } });
    writeFileSync(join(dir, '.summary.md'), '\n# Fast module\n\nAll \x1b[31mgood\x1b[0m.\n');
    const before = m.getEventsVersion();
    expect(m.start(dir, { maxIterations: 2, timeoutMinutes: 5 })).toEqual({ ok: true });
    expect(m.start(dir, { maxIterations: 2, timeoutMinutes: 5 })).toMatchObject({ ok: false, message: expect.stringMatching(/already/) });
    expect(m.runningHere()).toEqual({ pty: 1, tmux: 0 });
    const row = m.getSnapshot().rows.find((r) => r.key === dir)!;
    expect(row.loop).toMatchObject({ maxIterations: 2, timeoutMinutes: 5, status: expect.stringMatching(/starting|running/) });

    const screen = m.screen(dir)!;
    expect(screen).toBeDefined();
    screen.subscribe(() => {}); // as the detail pane does: a feed follows the agent while watched
    expect(m.screen(dir)).toBe(screen); // one feed per session
    await waitFor(() => screen.getSnapshot().some((l) => /plan|check|exec/i.test(l)), 'the agent screen as text');
    expect(screen.getSnapshot().join('')).not.toMatch(/\x1b/);
    await waitFor(() => m.getEventsVersion() > before, 'events');
    expect(m.events(50, dir).map((e) => e.kind)).toContain('started');
    expect(m.summary(dir, 5)).toEqual(['# Fast module', 'All \\x1b[31mgood\\x1b[0m.']);

    await supervisor!.whenIdle();
    expect(m.events(50, dir).find((e) => e.kind === 'ended')?.detail).toMatchObject({ outcome: 'max_iterations' });
    expect(m.runningHere()).toEqual({ pty: 0, tmux: 0 });
    expect(m.screen(dir)).toBeUndefined();
  });

  it('stops a loop, refuses to restart one that did not fail, and restarts a failed one with its limits', async () => {
    const m = setup({});
    const slow = ws!.module('slow', { scenario: { stepSeconds: 5 } });
    const crashing = ws!.module('crashing', { scenario: { crash: { atIteration: 1, exitCode: 3, times: -1 } } });
    expect(m.start(slow, {})).toEqual({ ok: true });
    expect(m.restart(slow)).toEqual({ ok: false, message: 'only a failed loop restarts' });
    expect(m.stop(slow, true)).toEqual({ ok: true });
    await waitFor(() => m.runningHere().pty === 0, 'the stopped loop gone');
    expect(m.stop(slow, false)).toMatchObject({ ok: false });

    // restartLimit 3 with backoff 1+2+4 s: the loop fails and its row stays.
    expect(m.start(crashing, { maxIterations: 9, timeoutMinutes: 7 })).toEqual({ ok: true });
    await waitFor(() => m.getSnapshot().rows.find((r) => r.key === crashing)?.loop?.status === 'failed', 'a failed loop', 40_000);
    expect(m.restart(crashing)).toEqual({ ok: true });
    const again = m.getSnapshot().rows.find((r) => r.key === crashing)!.loop!;
    expect(again).toMatchObject({ maxIterations: 9, timeoutMinutes: 7 });
    expect(again.status).not.toBe('failed');
  });

  it('rests the heartbeat while a person is attached: no recovery under their fingers, and it resumes after', async () => {
    // threshold 6 at 0.5 s: the test takes the session well before a recovery could come
    const m = setup({ stallThreshold: '6' });
    const dir = ws!.module('asks', { scenario: { stepSeconds: 0.05, prompt: { atIteration: 1, text: 'Overwrite the config? (y/n)' } } });
    expect(m.start(dir, {})).toEqual({ ok: true });
    const screen = m.screen(dir)!;
    screen.subscribe(() => {});
    await waitFor(() => screen.getSnapshot().some((l) => l.includes('Overwrite the config?')), 'the prompt');
    const taken = m.takeSession(dir)!;
    expect(taken.session).toBe(m.session(dir));
    // Many beats at 0.5 s: unattended, the threshold of 6 would have answered by now.
    await new Promise((r) => setTimeout(r, 4500));
    expect(m.events(100, dir).map((e) => e.kind)).not.toContain('recovery');
    expect(m.getSnapshot().rows.find((r) => r.key === dir)!.loop!.stallCount).toBe(0);
    taken.release();
    await waitFor(() => m.events(100, dir).some((e) => e.kind === 'recovery'), 'the recovery after detach', 20_000);
  });

  it('shows the events another process writes, within about a second', async () => {
    const m = setup();
    const before = m.getEventsVersion();
    const other = Store.open(ws!.db);
    try {
      other.events.insert({ at: new Date().toISOString(), session: 'auto-elsewhere-abcdef', taskDir: '/elsewhere/mod', kind: 'started', detail: { by: 'another autodeck' } });
    } finally {
      other.close();
    }
    await waitFor(() => (m.getEventsVersion() > before ? true : undefined), 'the other process\'s event', 3000);
    expect(m.events(5).map((e) => e.session)).toContain('auto-elsewhere-abcdef');
  });
});
