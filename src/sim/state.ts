import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeIfPresent, writeFileAtomic } from '../protocol/atomic.js';
import { defaultResult, stepKey, type Position, type StepKey } from './routing.js';
import type { Scenario } from './scenario.js';

export const STATE_FILE = '.sim-state.json';

/** What a restarted sim must remember of the loop so far (`.working/.sim-state.json`). */
export interface SimState {
  /** Iteration of the last signal written (0: none yet); ties this state to the signal on disk. */
  lastIteration: number;
  /** Times the scenario's crash has fired. */
  crashes: number;
  /** Scenario result overrides used so far, per step key. */
  used: Partial<Record<StepKey, number>>;
  /** `(step-N)` progress results written so far. */
  progress: number;
  /** Times the scenario's spin has started. */
  spins?: number;
}

export function freshState(): SimState {
  return { lastIteration: 0, crashes: 0, used: {}, progress: 0 };
}

/**
 * The saved state if it belongs to the loop on disk: its last iteration must be the
 * iteration of the signal there (0 when there is none). Anything else is a leftover.
 */
export function parseState(text: string, signalIteration: number | undefined): SimState {
  try {
    const o = JSON.parse(text) as Partial<SimState>;
    const int = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
    if (!int(o.lastIteration) || !int(o.crashes) || !int(o.progress) || typeof o.used !== 'object' || o.used === null) return freshState();
    if (o.lastIteration !== (signalIteration ?? 0)) return freshState();
    return { lastIteration: o.lastIteration, crashes: o.crashes, used: { ...o.used }, progress: o.progress, ...(int(o.spins) ? { spins: o.spins } : {}) };
  } catch {
    return freshState();
  }
}

/** The result a step produces now: scenario overrides in order, then exec progress steps, then the default. */
export function takeResult(pos: Position, scenario: Scenario, state: SimState): { result: string; state: SimState } {
  const key = stepKey(pos);
  const used = state.used[key] ?? 0;
  const override = scenario.results[key]?.[used];
  if (override !== undefined) return { result: override, state: { ...state, used: { ...state.used, [key]: used + 1 } } };
  if (pos.step === 'exec' && state.progress < scenario.steps) {
    const progress = state.progress + 1;
    return { result: `(step-${progress})`, state: { ...state, progress } };
  }
  return { result: defaultResult(pos), state };
}

function statePath(taskDir: string): string {
  return join(taskDir, '.working', STATE_FILE);
}

export function loadState(taskDir: string, signalIteration: number | undefined): SimState {
  try {
    return parseState(readFileSync(statePath(taskDir), 'utf8'), signalIteration);
  } catch {
    return freshState();
  }
}

export function saveState(taskDir: string, state: SimState): void {
  mkdirSync(join(taskDir, '.working'), { recursive: true });
  writeFileAtomic(statePath(taskDir), `${JSON.stringify(state)}\n`);
}

export function clearState(taskDir: string): void {
  removeIfPresent(statePath(taskDir));
}
