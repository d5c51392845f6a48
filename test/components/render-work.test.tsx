import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { ReactNode } from 'react';
import { renderApp, type Rendered } from '../helpers/renderApp.js';
import { FakeModel, FakeScreen, loopRow, moduleRow } from '../helpers/fakeModel.js';

// Work per tick. Every text Ink is asked to render is recorded (Ink's
// Text wrapped by a counting one), so a test sees which rows React rendered again.

const probe = vi.hoisted(() => ({ texts: [] as string[] }));

vi.mock('ink', async (importOriginal) => {
  const ink = await importOriginal<typeof import('ink')>();
  const { createElement, isValidElement } = await import('react');
  const flatten = (n: ReactNode): string => {
    if (n === null || n === undefined || typeof n === 'boolean') return '';
    if (typeof n === 'string' || typeof n === 'number') return String(n);
    if (Array.isArray(n)) return n.map(flatten).join('');
    if (isValidElement<{ children?: ReactNode }>(n)) return flatten(n.props.children);
    return '';
  };
  const Text = (props: Parameters<typeof ink.Text>[0]) => {
    probe.texts.push(flatten(props.children));
    return createElement(ink.Text, props);
  };
  return { ...ink, Text };
});

let app: Rendered | undefined;
beforeEach(() => {
  // The clock moves only when a test says so; React's scheduler (setImmediate) stays real.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  probe.texts.length = 0;
});
afterEach(() => {
  app?.unmount();
  app = undefined;
  vi.useRealTimers();
});

const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};
const key = (name: string): string => `/ws/AiTasks/${name}`;

function model(): FakeModel {
  return new FakeModel([
    moduleRow('runs-a', { loop: loopRow(key('runs-a')) }),
    moduleRow('runs-b', { loop: loopRow(key('runs-b'), { iteration: 5 }) }),
    moduleRow('done-c', { lifecycle: 'complete' }),
    moduleRow('broke-d', { loop: loopRow(key('broke-d'), { status: 'failed', stopReason: 'agent command not found' }) }),
  ]);
}

async function shown(m: FakeModel, rows = 30): Promise<Rendered> {
  const r = renderApp({ model: m, columns: 120, rows });
  await settle();
  expect(r.frame()).toContain('broke-d');
  probe.texts.length = 0;
  return r;
}

it('a heartbeat that changes no visible cell renders nothing; a visible change renders the table', async () => {
  const m = model();
  app = await shown(m);
  const before = app.stdout.frames.length;
  // What a heartbeat and a lease refresh write: a new row object, nothing a cell shows
  // (tokens neither: their column is off at 120 columns).
  const quiet = (k: string, extra = {}) => m.patchRow(key(k), { loop: { ...m.getSnapshot().rows.find((r) => r.key === key(k))!.loop!, lastCaptureHash: `h${Math.random()}`, ownerHeartbeatAt: new Date().toISOString(), agentPid: 4242, tokens: 1234, costUsd: 0.5, ...extra } });
  quiet('runs-a');
  quiet('runs-b');
  quiet('broke-d');
  await settle();
  expect(probe.texts).toEqual([]);
  expect(app.stdout.frames.length).toBe(before);

  // A stall counted is on screen (STALL column): the table renders again, and the frame shows it.
  quiet('runs-b', { stallCount: 1 });
  await settle();
  expect(app.frame()).toMatch(/runs-b.*1\/3/);
  expect(probe.texts.length).toBeGreaterThan(0);
});

// The table is drawn by column (a text per column): measured cheaper than a memoised row
// per module in the benchmark's workload (docs/performance.md), where every running row's clock
// moves each second anyway. What must hold: the clock re-renders the table, not the screen.
it('a clock tick re-renders the table only: not the header, the detail pane or the footer', async () => {
  app = await shown(model());
  const frame = app.frame();
  await vi.advanceTimersByTimeAsync(1000);
  await settle();
  expect(app.frame()).not.toBe(frame);
  expect(probe.texts.length).toBeGreaterThan(0);
  expect(probe.texts.some((t) => t.includes('runs-a'))).toBe(true); // the table's name column
  for (const outside of ['modules', 'q quit', 'events']) {
    expect(probe.texts.filter((t) => t.includes(outside)), outside).toEqual([]);
  }
});

it('the agent screen is watched only while the detail pane shows it', async () => {
  const m = model();
  const a = new FakeScreen();
  const b = new FakeScreen();
  m.screens.set(key('runs-a'), a);
  m.screens.set(key('runs-b'), b);
  a.set(['screen of runs-a']);
  b.set(['screen of runs-b']);
  vi.useRealTimers(); // keys are typed with real pauses
  app = await shown(m);
  expect(app.frame()).toContain('screen of runs-a');
  expect([a.watchers, b.watchers]).toEqual([1, 0]);

  await app.type('j');
  await app.waitForFrame((f) => f.includes('screen of runs-b'), 'the second row selected');
  await settle(); // subscriptions move in effects, just after the frame
  expect([a.watchers, b.watchers]).toEqual([0, 1]);

  await app.type('d');
  await app.waitForFrame((f) => !f.includes('screen of runs-b'), 'the pane hidden');
  await settle();
  expect([a.watchers, b.watchers]).toEqual([0, 0]);
  // Output while hidden costs the dashboard no render.
  probe.texts.length = 0;
  b.set(['more output']);
  await settle();
  expect(probe.texts).toEqual([]);

  await app.type('d');
  await app.waitForFrame((f) => f.includes('more output'), 'the pane shown again, caught up');
  await settle();
  expect([a.watchers, b.watchers]).toEqual([0, 1]);
});

it("another module's event renders nothing; the selected module's own event renders the detail pane", async () => {
  const m = model();
  app = await shown(m);
  const before = app.stdout.frames.length;
  const event = (name: string, step: string) => m.addEvent({ at: new Date().toISOString(), session: 's', taskDir: key(name), kind: 'signal', detail: { iteration: 3, step } });
  // runs-a is selected (the first row): runs-b's signal is in the log, not in its pane
  event('runs-b', 'plan');
  event('broke-d', 'exec');
  await settle();
  expect(probe.texts).toEqual([]);
  expect(app.stdout.frames.length).toBe(before);

  event('runs-a', 'merge');
  await settle();
  expect(probe.texts.length).toBeGreaterThan(0);
  expect(app.frame()).toMatch(/events[\s\S]*merge/);
});
