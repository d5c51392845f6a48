import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEMO_MODULES, writeDemoWorkspace } from '../demo/workspace.js';
import { line, type CommandContext } from './context.js';
import { supervise } from './run.js';

/** The CLI's own entry, so the demo's agent is this very autodeck's simulator. */
const BIN = fileURLToPath(new URL('../../../bin/autodeck.js', import.meta.url));

/**
 * `autodeck demo`: builds a throwaway workspace of task modules with different
 * scenarios and runs real loops on it, the simulated agent standing in for Claude Code:
 * in the dashboard when there is a terminal, else headless like `run`.
 */
export async function demo(ctx: CommandContext): Promise<number> {
  const workspace = mkdtempSync(join(tmpdir(), 'autodeck-demo-'));
  const root = join(workspace, 'AiTasks');
  writeDemoWorkspace(root);
  const settings = {
    ...ctx.settings,
    roots: [root],
    db: join(workspace, 'state.db'),
    agent: [process.execPath, BIN, 'sim', '{taskDir}'],
    agentCwd: workspace,
    heartbeatSeconds: 1,
    stallThreshold: 2,
    graceSeconds: 10,
  };
  const requests = DEMO_MODULES.map((m) => ({
    dir: join(root, m.name),
    options: m.maxIterations ? { maxIterations: m.maxIterations } : {},
  }));
  if (ctx.dashboard) {
    const code = await ctx.dashboard({ ...ctx, settings }, { title: 'autodeck demo', start: requests });
    line(ctx.stderr, `autodeck demo: the workspace was ${workspace}`);
    return code;
  }
  line(ctx.stderr, `autodeck demo: workspace ${workspace}`);
  for (const m of DEMO_MODULES) line(ctx.stderr, `  ${m.name.padEnd(20)} ${m.shows}`);
  line(ctx.stderr, '');
  await supervise({ ...ctx, settings }, requests);
  line(ctx.stderr, '');
  // Copy-pastable from where the demo was started, whether or not autodeck is on PATH.
  const self = `node ${JSON.stringify(relative(ctx.cwd, BIN))}`;
  line(ctx.stderr, `See it again: ${self} status --db ${JSON.stringify(settings.db)}`);
  line(ctx.stderr, `          and ${self} log --db ${JSON.stringify(settings.db)}`);
  return 0;
}
