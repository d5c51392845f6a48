import { mkdirSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { codexEnv, writeCodexConfig } from './codexCli.js';
import { geminiEnv, writeGeminiConfig } from './geminiCli.js';
import type { Workspace } from './workspace.js';
import type { GeminiStep } from './fakeGemini.js';
import type { OpenAIStep } from './fakeOpenAI.js';
import type { SignalFields } from './claudeLoop.js';

/**
 * A scripted model that plays the autodeck loop through a shell tool, the way any agent
 * CLI can: at each step it reads the stop file, does the step's work, then publishes its
 * signal (the temp file written, then renamed). The same script, as the answers of the
 * OpenAI Responses API (Codex's `exec_command`) or of the Gemini API (`run_shell_command`).
 */

export type LoopItem =
  /** A shell command, with the model's words before it in the same answer (`say`), which may pause mid-way. */
  | { shell: string; description: string; escalate?: boolean; say?: string; pause?: { afterChars: number; ms: number } }
  | { text: string; pause?: { afterChars: number; ms: number } };

export interface AgentLoopOptions {
  /** Extra items inside iteration n, after the stop-file read. */
  during?: (iteration: number) => LoopItem[];
  /** Ends the turn with this text after iteration n (an agent that stops mid-loop). */
  pauseAfter?: { iteration: number; text: string; pause?: { afterChars: number; ms: number } };
  final?: string;
}

export function loopItems(taskDir: string, signals: readonly SignalFields[], opts: AgentLoopOptions = {}): LoopItem[] {
  const tmp = join(taskDir, '.auto-signal.tmp');
  const items: LoopItem[] = [];
  signals.forEach((s, i) => {
    const n = i + 1;
    items.push({ shell: `cat ${join(taskDir, '.auto-stop')} 2>/dev/null || echo no-stop-file`, description: 'Read the stop file' });
    items.push(...(opts.during?.(n) ?? []));
    const signal = JSON.stringify({ ...s, iteration: n, timestamp: new Date().toISOString() });
    items.push({ shell: `printf '%s\\n' '${signal}' > ${tmp} && mv ${tmp} ${join(taskDir, '.auto-signal')}`, description: 'Publish the signal' });
    if (opts.pauseAfter?.iteration === n) items.push({ text: opts.pauseAfter.text, pause: opts.pauseAfter.pause });
  });
  items.push({ text: opts.final ?? `Loop finished after ${signals.length} iterations.` });
  return items;
}

export function openAISteps(items: readonly LoopItem[]): OpenAIStep[] {
  return items.map((it) => ('shell' in it
    ? { exec: { cmd: it.shell, ...(it.escalate ? { escalate: true, justification: it.description } : {}) }, ...(it.say ? { text: it.say } : {}), ...(it.pause ? { pause: it.pause } : {}) }
    : { text: it.text, ...(it.pause ? { pause: it.pause } : {}) }));
}

export function geminiSteps(items: readonly LoopItem[]): GeminiStep[] {
  return items.map((it) => ('shell' in it
    ? { call: { name: 'run_shell_command', args: { command: it.shell, description: it.description } }, ...(it.say ? { text: it.say } : {}), ...(it.pause ? { pause: it.pause } : {}) }
    : { text: it.text, ...(it.pause ? { pause: it.pause } : {}) }));
}

/**
 * `run` flags for a real agent CLI on a shared, loaded machine: quick, but 3 s of an
 * unchanged screen before a stall (a real CLI under load may take a second to draw its
 * confirmation or take an answer); a paused model is still told apart by its own files.
 */
export const AGENT_STALLS = ['--heartbeat', '1', '--stall-threshold', '3', '--grace', '60', '--recovery-per-iteration', '10', '--recovery-total', '20'];

/** The model reads the stop file: once it says stop, it answers this and stops. */
export const STOP_ANSWER = 'The stop file asks me to stop: stopping here.';

/** Whether the newest tool result in a request body shows a stop file (its `"reason"`). */
export function sawStopFile(body: Record<string, unknown>): boolean {
  const text = JSON.stringify(body);
  const last = Math.max(text.lastIndexOf('function_call_output'), text.lastIndexOf('functionResponse'));
  return last >= 0 && /\\"reason\\":\\"(?:max_iterations|user_stop|timeout)\\"/.test(text.slice(last));
}

// ---------------------------------------------------------------------------------------------
// Projects where `codex` or `gemini` on PATH is the pinned CLI, against a fake of its API.


function onPath(w: Workspace, name: string, bin: string, env: Record<string, string>, home: string): NodeJS.ProcessEnv {
  const dir = join(w.dir, 'bin');
  mkdirSync(dir, { recursive: true });
  symlinkSync(bin, join(dir, name));
  return { ...env, HOME: home, PATH: `${dir}${delimiter}${env.PATH}`, XDG_STATE_HOME: join(w.dir, 'state'), XDG_CONFIG_HOME: join(w.dir, 'config') };
}

/** A workspace where `codex` is the pinned Codex CLI with the fake as its model provider, the project trusted. */
export function codexProject(w: Workspace, bin: string, fake: { port: number; baseUrl: string }): NodeJS.ProcessEnv {
  const home = join(w.dir, 'agent-home');
  mkdirSync(home, { recursive: true });
  writeCodexConfig(home, w.dir, { baseUrl: fake.baseUrl });
  return onPath(w, 'codex', bin, codexEnv({ home, port: fake.port }), home);
}

/** A workspace where `gemini` is the pinned Gemini CLI against the fake, API-key auth chosen, the folder trusted. */
export function geminiProject(w: Workspace, bin: string, fake: { port: number }): NodeJS.ProcessEnv {
  const home = join(w.dir, 'agent-home');
  mkdirSync(home, { recursive: true });
  writeGeminiConfig(home, w.dir);
  return onPath(w, 'gemini', bin, geminiEnv({ home, port: fake.port }), home);
}

/** `ps` lines of any process still running a program from `prefix` (the CLI's install, or its own copies under `home`). */
export async function processesOf(...prefixes: string[]): Promise<string[]> {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((l) => prefixes.some((p) => l.includes(p)) && !/\bps -eo\b/.test(l));
}

/**
 * `ps` lines of the processes of one workspace still running a program from `prefix`: those
 * whose command line or environment (its HOME) names `dir`, so that tests side by side do not
 * see each other's agents, while a daemon that names no folder is still found by its HOME.
 */
export async function processesIn(prefix: string, dir: string): Promise<string[]> {
  const { readFileSync } = await import('node:fs');
  return (await processesOf(prefix, dir)).filter((l) => {
    if (l.includes(dir)) return true;
    try {
      return readFileSync(`/proc/${l.trim().split(/\s+/)[0]}/environ`, 'latin1').includes(dir);
    } catch {
      return false;
    }
  });
}
