import { describe, expect, it } from 'vitest';
import {
  decideHung, DEFAULT_HUNG_LIMITS, errorBanner, initialHungState, repeatedToolCalls, toolPending, transcriptSessionId,
  type HungAction, type HungLimits, type HungObservation, type HungState,
} from '../../src/supervisor/hung.js';

const MIN = 60_000;
const T0 = Date.parse('2026-11-23T08:00:00Z');

/** Runs observations one heartbeat (`everyMs`) apart on a fake clock; returns every rung climbed, with its time in minutes since the first observation. */
function run(obs: (t: number, i: number) => Omit<HungObservation, 'now'>, minutes: number, limits: HungLimits = DEFAULT_HUNG_LIMITS, everyMs = 5000) {
  let state: HungState = initialHungState(T0);
  const rungs: { at: number; action: HungAction }[] = [];
  for (let t = T0 + everyMs, i = 0; t <= T0 + minutes * MIN; t += everyMs, i++) {
    const out = decideHung(state, { now: t, ...obs(t, i) }, limits);
    state = out.state;
    if (out.action.type !== 'none') rungs.push({ at: (t - T0 - everyMs) / MIN, action: out.action });
  }
  return { rungs, state };
}

describe('a healthy long step never fires the defaults', () => {
  it('a 2-hour test run: a tool call pending, the transcript still, the process tree busy', () => {
    const { rungs } = run(() => ({ busy: true, transcriptBytes: 5000, toolPending: true, cpuPercent: 95 }), 120);
    expect(rungs).toEqual([]);
  });
  it('a long answer: the transcript grows now and then, the CPU idles between tokens', () => {
    const { rungs } = run((_, i) => ({ busy: true, transcriptBytes: 1000 + Math.floor(i / 240) * 500, cpuPercent: i % 240 === 0 ? 20 : 0 }), 120);
    expect(rungs).toEqual([]);
  });
  it('an agent idle at its prompt for hours (the stall detector handles that)', () => {
    const { rungs } = run(() => ({ busy: false, transcriptBytes: 5000, cpuPercent: 0 }), 240);
    expect(rungs).toEqual([]);
  });
  it('no transcript and no CPU samples: nothing to go on, nothing fires', () => {
    const { rungs } = run(() => ({ busy: true }), 240);
    expect(rungs).toEqual([]);
  });
});

describe('the ladder', () => {
  it('a spinner ticking over a still transcript: Esc at 30 min, then every 3 min the next rung, ending failed', () => {
    const { rungs } = run(() => ({ busy: true, transcriptBytes: 5000, toolPending: false, cpuPercent: 30 }), 60);
    expect(rungs.map((r) => [r.at, r.action.type === 'rung' && r.action.rung, r.action.type === 'rung' && r.action.sign])).toEqual([
      [30, 'interrupt', 'transcript'], [33, 'continue', 'transcript'], [36, 'restart', 'transcript'], [39, 'fail', 'transcript'],
    ]);
  });
  it('progress in between puts the ladder back at the bottom', () => {
    // the transcript grows once, at minute 32 (after the first rung)
    const { rungs } = run((t) => ({ busy: true, transcriptBytes: t >= T0 + 32 * MIN + 5000 ? 6000 : 5000, cpuPercent: 30 }), 70);
    expect(rungs.map((r) => [r.at, r.action.type === 'rung' && r.action.rung])).toEqual([
      [30, 'interrupt'], [62, 'interrupt'], [65, 'continue'], [68, 'restart'],
    ]);
  });
  it('an idle process tree while the spinner ticks', () => {
    const { rungs } = run(() => ({ busy: true, cpuPercent: 0.2 }), 31);
    // the process clock runs from the start of the watch, one heartbeat before the first observation
    expect(rungs[0]).toMatchObject({ at: 30 - 5 / 60, action: { rung: 'interrupt', sign: 'process' } });
  });
  it('a CPU burst resets the process clock', () => {
    const { rungs } = run((t) => ({ busy: true, cpuPercent: t === T0 + 20 * MIN ? 50 : 0 }), 51);
    expect(rungs.map((r) => r.at)).toEqual([50 - 5 / 60]);
  });
  it('an API error banner that stays 10 minutes', () => {
    const banner = '⎿  API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
    const { rungs } = run(() => ({ busy: false, errorBanner: banner }), 11);
    expect(rungs).toEqual([{ at: 10, action: { type: 'rung', rung: 'interrupt', sign: 'api-error', detail: banner } }]);
  });
  it('a banner that comes and goes restarts its clock', () => {
    const { rungs } = run((_, i) => ({ busy: true, errorBanner: i % 100 === 99 ? undefined : 'API Error: 500 Internal server error' }), 30);
    expect(rungs).toEqual([]);
  });
  it('identical tool calls in a row', () => {
    const { rungs } = run(() => ({ busy: true, repeatedToolCalls: 6 }), 1);
    expect(rungs[0]).toMatchObject({ action: { rung: 'interrupt', sign: 'repeated-tool-calls' } });
    expect(run(() => ({ busy: true, repeatedToolCalls: 5 }), 60).rungs).toEqual([]);
  });
  it('a sign set to 0 is off', () => {
    const off = { ...DEFAULT_HUNG_LIMITS, transcriptMs: 0, cpuIdleMs: 0, errorBannerMs: 0, repeatedToolCalls: 0 };
    expect(run(() => ({ busy: true, transcriptBytes: 1, cpuPercent: 0, errorBanner: 'API Error: 500', repeatedToolCalls: 99 }), 120, off).rungs).toEqual([]);
  });
});

describe('reading the signs', () => {
  it('finds API error banners, never a 429', () => {
    expect(errorBanner(['● Working', '  ⎿  API Error: 500 {"type":"error","error":{"type":"api_error"}}', '❯ '])).toMatch(/API Error: 500/);
    expect(errorBanner(['  ⎿  API Error: 529 Overloaded'])).toBeDefined();
    expect(errorBanner(['  ⎿  API Error: Request rejected (429) · rate limit'])).toBeUndefined();
    expect(errorBanner(['all fine', '❯ '])).toBeUndefined();
  });
  const call = (input: unknown, id: string) => ({ type: 'assistant', sessionId: 'ce2def90-2b99-4750-8303-7255eafb71b7', message: { content: [{ type: 'tool_use', id, name: 'Bash', input }] } });
  const result = (id: string) => ({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: id }] } });
  it('counts identical trailing tool calls', () => {
    expect(repeatedToolCalls([call({ c: 'ls' }, 'a'), result('a'), call({ c: 'ls' }, 'b'), result('b'), call({ c: 'ls' }, 'c')])).toBe(3);
    expect(repeatedToolCalls([call({ c: 'ls' }, 'a'), call({ c: 'pwd' }, 'b')])).toBe(1);
    expect(repeatedToolCalls([])).toBe(0);
  });
  it('tells a pending tool call', () => {
    expect(toolPending([call({}, 'a')])).toBe(true);
    expect(toolPending([call({}, 'a'), result('a')])).toBe(false);
  });
  it('takes the session id for --resume', () => {
    expect(transcriptSessionId([call({}, 'a')])).toBe('ce2def90-2b99-4750-8303-7255eafb71b7');
    expect(transcriptSessionId([{ sessionId: '; rm -rf /' }])).toBeUndefined();
  });
});
