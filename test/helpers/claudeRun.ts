import { mkdirSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach } from 'vitest';
import { claudeEnv, writeClaudeConfig } from './claudeCode.js';
import type { FakeAnthropic } from './fakeAnthropic.js';
import type { CliRun } from './cli.js';
import type { Workspace } from './workspace.js';

// What the e2e tests that run `autodeck run` over the real Claude Code share: the
// project's environment, quick stall handling, and clean-up after each test.

/**
 * A workspace where `claude` on PATH is the pinned binary (`claudeBin`), Claude Code's
 * first-run dialogs skipped and every state folder inside the workspace.
 */
export function claudeProject(w: Workspace, claudeBin: string, port: number): NodeJS.ProcessEnv {
  const bin = join(w.dir, 'bin');
  mkdirSync(bin);
  symlinkSync(claudeBin, join(bin, 'claude'));
  const home = join(w.dir, 'claude-home');
  mkdirSync(home);
  writeClaudeConfig(home, w.dir);
  const env = claudeEnv({ home, port });
  return { ...env, PATH: `${bin}${delimiter}${env.PATH}`, XDG_STATE_HOME: join(w.dir, 'state'), XDG_CONFIG_HOME: join(w.dir, 'config') };
}

/**
 * Quick stall handling for tests; a loaded machine draws Claude Code's first screen slowly,
 * and its start (an unrecognised screen) must not spend the recovery budget.
 */
export const QUICK_STALLS = ['--heartbeat', '0.5', '--stall-threshold', '2', '--grace', '60', '--recovery-per-iteration', '10', '--recovery-total', '20'];

/** The bodies of the main-turn requests the fake model received, as JSON text. */
export const mainBodies = (f: FakeAnthropic): string[] => f.requests.filter((r) => r.kind === 'main').map((r) => JSON.stringify(r.body));

export interface E2eScope {
  ws?: Workspace;
  fake?: FakeAnthropic;
  run?: CliRun;
}

/** What a test sets up, torn down after each: a run that outlived a failed test killed, the fake API closed, the workspace removed. */
export function e2eScope(): E2eScope {
  const scope: E2eScope = {};
  afterEach(async () => {
    if (scope.run && scope.run.child.exitCode === null) scope.run.child.kill('SIGKILL');
    await scope.fake?.close();
    scope.ws?.cleanup();
    scope.ws = scope.fake = scope.run = undefined;
  });
  return scope;
}
