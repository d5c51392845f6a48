import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { FAST_STEP, PACED_STEP, demoModules, writeDemoWorkspace } from '../demo/workspace.js';
import { CliError } from './context.js';
import { line, type CommandContext } from './context.js';
import { supervise } from './run.js';
import { ownBin } from '../hooks/commands.js';

/**
 * `autodeck demo`: builds a throwaway workspace of task modules with different
 * scenarios and runs real loops on it, the simulated agent standing in for Claude Code:
 * in the dashboard when there is a terminal, else headless like `run`.
 */
export async function demo(ctx: CommandContext): Promise<number> {
  const step = demoStep(ctx.flags, ctx.dashboard !== undefined);
  // this very autodeck's simulator (found from here: the code may be a bundle in dist/cli/)
  const BIN = ownBin();
  const modules = demoModules(step);
  const workspace = mkdtempSync(join(tmpdir(), 'autodeck-demo-'));
  const root = join(workspace, 'AiTasks');
  writeDemoWorkspace(root, modules);
  const settings = {
    ...ctx.settings,
    roots: [root],
    db: join(workspace, 'state.db'),
    agent: [process.execPath, BIN, 'sim', '{taskDir}'],
    // the simulated agent writes a transcript as Claude Code does (tokens, cost, context), read as Claude Code's
    agentProfile: 'claude' as const,
    agentCwd: workspace,
    heartbeatSeconds: 1,
    // Paced, a prompt waits five heartbeats (STALL 1/5 .. 5/5 on screen) before it is
    // answered, and the timeout is short enough for its bar to move.
    stallThreshold: step > FAST_STEP ? 5 : 2,
    timeoutMinutes: step > FAST_STEP ? 3 : ctx.settings.timeoutMinutes,
    graceSeconds: 10,
  };
  // a home of the agents' own, in the workspace: their transcripts go there, not into the person's ~/.claude
  const home = join(workspace, 'home');
  mkdirSync(home);
  const demoCtx = { ...ctx, settings, agentEnv: { ...(ctx.agentEnv ?? process.env), HOME: home } };
  const requests = modules.map((m) => ({
    dir: join(root, m.name),
    options: m.maxIterations ? { maxIterations: m.maxIterations } : {},
  }));
  if (ctx.dashboard) {
    const code = await ctx.dashboard(demoCtx, { title: 'autodeck demo', start: requests, follow: true, throwaway: true });
    line(ctx.stderr, `autodeck demo: its workspace was ${workspace} (each demo makes a new one; delete it when you like)`);
    return code;
  }
  line(ctx.stderr, `autodeck demo: workspace ${workspace}`);
  for (const m of modules) line(ctx.stderr, `  ${m.name.padEnd(20)} ${m.shows}`);
  line(ctx.stderr, '');
  await supervise(demoCtx, requests);
  line(ctx.stderr, '');
  // Copy-pastable from where the demo was started, whether or not autodeck is on PATH.
  const self = `node ${JSON.stringify(relative(ctx.cwd, BIN))}`;
  line(ctx.stderr, `See it again: ${self} status --db ${JSON.stringify(settings.db)}`);
  line(ctx.stderr, `          and ${self} log --db ${JSON.stringify(settings.db)}`);
  return 0;
}

/**
 * Seconds per step: `--speed S` as given, `--fast` the tests' pace; else paced for a
 * person in the dashboard and fast headless (a log to read afterwards needs no pacing).
 */
export function demoStep(flags: Record<string, unknown>, dashboard: boolean): number {
  if (flags.speed !== undefined) {
    const s = Number(flags.speed);
    if (!(s > 0 && s <= 60)) throw new CliError(`autodeck demo: --speed: ${JSON.stringify(String(flags.speed))} is not a number of seconds per step, more than 0 and at most 60 (0.6 is --fast)`);
    return s;
  }
  if (flags.fast) return FAST_STEP;
  return dashboard ? PACED_STEP : FAST_STEP;
}
