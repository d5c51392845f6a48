import { join } from 'node:path';
import type { ScriptStep } from './fakeAnthropic.js';
import { defaultResult, entryStep, route, type Position } from '../../src/sim/routing.js';
import type { LifecycleStatus } from '../../src/protocol/modules.js';
import type { Signal } from '../../src/protocol/signal.js';

/**
 * A scripted model that plays the /autodeck-auto loop with real tool calls, the way the
 * skill tells Claude Code to: before each step it reads the stop file, after it writes the
 * signal's temp file and renames it. The signals follow the simulator's routing.
 */

export type SignalFields = Pick<Signal, 'step' | 'result' | 'next' | 'checkpoint'>;

/** The well-behaved walk from a lifecycle status to `(stop)`; `override(pos, n)` may pick another result. */
export function walk(status: LifecycleStatus, override: (pos: Position, iteration: number) => string | undefined = () => undefined): SignalFields[] {
  const out: SignalFields[] = [];
  let pos = entryStep(status);
  for (let n = 1; pos && n <= 1000; n++) {
    const result = override(pos, n) ?? defaultResult(pos);
    const routed = route(pos.step, pos.checkpoint, result);
    if (!routed) throw new Error(`no route for ${pos.step} ${result}`);
    out.push({ step: pos.step, result, next: routed.next, checkpoint: pos.checkpoint });
    pos = routed.next === '(stop)' ? undefined : { step: routed.next, checkpoint: routed.checkpoint };
  }
  return out;
}

export interface LoopScriptOptions {
  /** Extra answers inside iteration n, after the stop-file read (a Write of the work, say). */
  during?: (iteration: number) => ScriptStep[];
  /** Ends the turn with this text after iteration n (an agent that stops mid-loop). */
  pauseAfter?: { iteration: number; text: string };
  final?: string;
}

/** The model's answers, one per main-turn request, for a loop over `signals`. */
export function loopScript(taskDir: string, signals: readonly SignalFields[], opts: LoopScriptOptions = {}): ScriptStep[] {
  const tmp = join(taskDir, '.auto-signal.tmp');
  const steps: ScriptStep[] = [];
  signals.forEach((s, i) => {
    const n = i + 1;
    steps.push({ toolUse: { name: 'Read', input: { file_path: join(taskDir, '.auto-stop') } } });
    steps.push(...(opts.during?.(n) ?? []));
    const signal = { ...s, iteration: n, timestamp: new Date().toISOString() };
    steps.push({ toolUse: { name: 'Write', input: { file_path: tmp, content: `${JSON.stringify(signal)}\n` } } });
    steps.push({ toolUse: { name: 'Bash', input: { command: `mv ${tmp} ${join(taskDir, '.auto-signal')}`, description: 'Publish the signal' } } });
    if (opts.pauseAfter?.iteration === n) steps.push({ text: opts.pauseAfter.text });
  });
  steps.push({ text: opts.final ?? `Loop finished after ${signals.length} iterations.` });
  return steps;
}
