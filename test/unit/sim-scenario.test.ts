import { describe, it, expect } from 'vitest';
import { parseSignal, type Signal } from '../../src/protocol/signal.js';
import { positionOf } from '../../src/sim/routing.js';
import { DEFAULT_SCENARIO, parseScenario } from '../../src/sim/scenario.js';
import { invalidSignalText } from '../../src/sim/signals.js';
import { freshState, parseState, takeResult } from '../../src/sim/state.js';

describe('parseScenario', () => {
  it('blank text is the default scenario', () => {
    expect(parseScenario('')).toEqual({ value: { ...DEFAULT_SCENARIO, results: {} }, errors: [] });
    expect(parseScenario('{}').value.stepSeconds).toBe(0.3);
    expect(parseScenario('{}').value.exitAtStop).toBe(true);
  });

  it('reads every field with defaults filled in', () => {
    const { value, errors } = parseScenario(JSON.stringify({
      stepSeconds: 0.05,
      results: { 'check@post-exec': ['NEEDS_FIX', 'ACCEPT'], merge: ['conflict'], exec: ['(step-4)', '(done)'] },
      steps: 3,
      crash: { atIteration: 2, exitCode: 7, times: -1 },
      ignoreStop: true,
      ignoreSigterm: true,
      hang: { atIteration: 3, seconds: 12.5 },
      prompt: { atIteration: 1 },
      quota: { atIteration: 4, message: "You've hit your limit · resets 2am (Europe/Paris)", seconds: 5 },
      repeat: { atIteration: 2, text: 'Same again.' },
      flood: { atIteration: 2, lines: 300 },
      invalidSignals: { atIteration: 2, kinds: ['symlink', 'not-json'] },
      burst: { atIteration: 3, count: 4, increment: true },
      exitAtStop: false,
      envFile: 'env.json',
      idle: { atIteration: 2 },
      transcript: true,
      resumeOnInput: true,
      heardFile: 'heard.txt',
    }));
    expect(errors).toEqual([]);
    expect(value).toEqual({
      stepSeconds: 0.05,
      results: { 'check@post-exec': ['NEEDS_FIX', 'ACCEPT'], merge: ['conflict'], exec: ['(step-4)', '(done)'] },
      steps: 3,
      crash: { atIteration: 2, exitCode: 7, times: -1 },
      ignoreStop: true,
      ignoreSigterm: true,
      hang: { atIteration: 3, seconds: 12.5 },
      prompt: { atIteration: 1, text: 'Continue? (y/n)' },
      quota: { atIteration: 4, message: "You've hit your limit · resets 2am (Europe/Paris)", seconds: 5 },
      repeat: { atIteration: 2, text: 'Same again.', times: 3 },
      flood: { atIteration: 2, lines: 300 },
      invalidSignals: { atIteration: 2, kinds: ['symlink', 'not-json'], pauseSeconds: 0.05 },
      burst: { atIteration: 3, count: 4, increment: true },
      exitAtStop: false,
      envFile: 'env.json',
      idle: { atIteration: 2, times: 1 },
      transcript: true,
      resumeOnInput: true,
      heardFile: 'heard.txt',
    });
  });

  it('defaults crash to exit code 1 once, and invalid kinds to all of them', () => {
    const { value } = parseScenario('{"crash": {"atIteration": 1}, "invalidSignals": {"atIteration": 2}}');
    expect(value.crash).toEqual({ atIteration: 1, exitCode: 1, times: 1 });
    expect(value.invalidSignals?.kinds).toEqual(['not-json', 'bad-step', 'oversized', 'missing-field', 'symlink']);
  });

  it.each([
    ['{"stepSeconds": "fast"}', /^stepSeconds: must be a number/],
    ['{"stepSeconds": -1}', /^stepSeconds: /],
    ['{"steps": 1.5}', /^steps: must be an integer/],
    ['{"stepSecs": 1}', /^stepSecs: is not a known field/],
    ['{"results": {"check": ["PASS"]}}', /^results\.check: is not a step key/],
    ['{"results": {"merge": "conflict"}}', /^results\.merge: must be a list/],
    ['{"results": {"merge": ["success", "PASS"]}}', /^results\.merge\[1\]: "PASS" is not a result of merge \(success, conflict\)/],
    ['{"results": {"check@post-plan": ["ACCEPT"]}}', /^results\.check@post-plan\[0\]: /],
    ['{"results": []}', /^results: must be an object/],
    ['{"crash": {"exitCode": 1}}', /^crash\.atIteration: is required/],
    ['{"crash": {"atIteration": 0}}', /^crash\.atIteration: must be an integer from 1/],
    ['{"crash": {"atIteration": 1, "exitCode": 300}}', /^crash\.exitCode: /],
    ['{"crash": {"atIteration": 1, "times": 0}}', /^crash\.times: /],
    ['{"crash": 3}', /^crash: must be an object/],
    ['{"hang": {"atIteration": 1, "secs": 3}}', /^hang\.secs: is not a known field/],
    ['{"prompt": {"atIteration": 1, "text": "a\\nb"}}', /^prompt\.text: must be one line/],
    ['{"heardFile": "../x"}', /^heardFile: must be a plain file name/],
    ['{"quota": {"atIteration": 1, "message": ""}}', /^quota\.message: /],
    ['{"flood": {"atIteration": 1, "lines": 0}}', /^flood\.lines: /],
    ['{"invalidSignals": {"atIteration": 1, "kinds": ["bogus"]}}', /^invalidSignals\.kinds\[0\]: "bogus" is not one of/],
    ['{"invalidSignals": {"atIteration": 1, "kinds": []}}', /^invalidSignals\.kinds: must be a non-empty list/],
    ['{"burst": {"atIteration": 1, "increment": "yes"}}', /^burst\.increment: must be true or false/],
    ['{"ignoreStop": 1}', /^ignoreStop: must be true or false/],
    ['{"envFile": "../escape.json"}', /^envFile: must be a plain file name/],
    ['{"envFile": "a/b.json"}', /^envFile: /],
    ['[1, 2]', /^must be a JSON object/],
    ['{"stepSeconds": ', /^not JSON/],
  ])('%s -> %s', (text, message) => {
    const { errors } = parseScenario(text);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
    expect(errors[0]).not.toMatch(/\n/);
  });

  it('reports each bad field', () => {
    const { errors } = parseScenario('{"stepSeconds": "x", "crash": {"atIteration": "2"}, "flood": {"lines": 5}}');
    expect(errors.map((e) => e.split(':')[0])).toEqual(['stepSeconds', 'crash.atIteration', 'flood.atIteration']);
  });
});

describe('takeResult', () => {
  const scenario = parseScenario('{"steps": 2, "results": {"check@post-exec": ["NEEDS_FIX", "REPLAN"], "exec": ["(mid-exec)"]}}').value;

  it('uses overrides in order, then progress steps for exec, then the default', () => {
    let state = freshState();
    const take = (key: Parameters<typeof positionOf>[0]): string => {
      const got = takeResult(positionOf(key), scenario, state);
      state = got.state;
      return got.result;
    };
    expect([take('check@post-exec'), take('check@post-exec'), take('check@post-exec')]).toEqual(['NEEDS_FIX', 'REPLAN', 'ACCEPT']);
    expect([take('exec'), take('exec'), take('exec'), take('exec')]).toEqual(['(mid-exec)', '(step-1)', '(step-2)', '(done)']);
    expect(take('merge')).toBe('success');
  });
});

describe('parseState', () => {
  const saved = JSON.stringify({ lastIteration: 3, crashes: 1, used: { merge: 1 }, progress: 2 });
  it('keeps a state that matches the signal on disk', () => {
    expect(parseState(saved, 3)).toEqual({ lastIteration: 3, crashes: 1, used: { merge: 1 }, progress: 2 });
  });
  it('drops a leftover from another loop, or garbage', () => {
    expect(parseState(saved, undefined)).toEqual(freshState());
    expect(parseState(saved, 5)).toEqual(freshState());
    expect(parseState('{"lastIteration": "x"}', undefined)).toEqual(freshState());
    expect(parseState('nope', undefined)).toEqual(freshState());
  });
});

describe('invalidSignalText', () => {
  const valid: Signal = { step: 'plan', result: '(generated)', next: 'check', checkpoint: '', iteration: 2, timestamp: new Date(0).toISOString() };
  it.each([
    ['not-json', 'not JSON'],
    ['bad-step', 'step "deploy" is not one of'],
    ['oversized', 'larger than'],
    ['missing-field', 'field "next" is missing'],
  ] as const)('%s is refused by parseSignal (%s)', (kind, reason) => {
    const parsed = parseSignal(invalidSignalText(kind, valid));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain(reason);
  });
});
