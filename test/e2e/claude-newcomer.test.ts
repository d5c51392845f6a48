import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { CLAUDE_CODE_VERSION, claudeEnv, installClaudeCode, writeClaudeConfig } from '../helpers/claudeCode.js';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fakeAnthropic.js';
import { loopScript, walk } from '../helpers/claudeLoop.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { BIN, runCli } from '../helpers/cli.js';
import { readDb, runsOf } from '../helpers/db.js';
import { hookCommands } from '../../src/hooks/commands.js';
import { DashboardPane } from '../helpers/dashboardPane.js';

// A newcomer's first loop: a newcomer with Claude Code and the README runs `autodeck init`,
// `autodeck new demo-task`, fills the target, starts it from the dashboard (s, Enter), and
// Claude Code receives a loop it knows how to run. The real binary, the dashboard in real
// tmux, the fake model playing the loop the installed skill describes.

const install = await installClaudeCode();
const title = `a newcomer's first loop, from the dashboard, with the real Claude Code ${CLAUDE_CODE_VERSION}${install.reason ? ` (skipped: ${install.reason})` : ''}`;

let ws: Workspace | undefined;
let fake: FakeAnthropic | undefined;
let pane: DashboardPane | undefined;
afterEach(async () => {
  await pane?.kill();
  await fake?.close();
  ws?.cleanup();
  ws = fake = pane = undefined;
});

describe.skipIf(!install.bin)(title, () => {
  it('init, new, fill the target, s and Enter in the dashboard: the loop runs to complete', async () => {
    ws = makeWorkspace('autodeck-newcomer-');
    const bin = join(ws.dir, 'bin');
    mkdirSync(bin);
    symlinkSync(install.bin!, join(bin, 'claude'));
    // autodeck on PATH as npm links it: Claude Code's hooks then run the bare `autodeck hook
    // ...`, through the bin's shell line (which sets glibc's tunable and execs node)
    symlinkSync(BIN, join(bin, 'autodeck'));
    const home = ws.env.HOME!;
    writeClaudeConfig(home, ws.dir);
    const dir = join(ws.root, 'demo-task');
    fake = await startFakeAnthropic(loopScript(dir, walk('draft')));
    const claude = claudeEnv({ home, port: fake.port });
    const env = { ...claude, PATH: `${bin}${delimiter}${claude.PATH}`, XDG_STATE_HOME: ws.env.XDG_STATE_HOME!, XDG_CONFIG_HOME: ws.env.XDG_CONFIG_HOME! };

    expect(hookCommands(env).stop).toBe('test -z "$AUTODECK_SESSION" || autodeck hook stop');
    expect((await runCli(ws, ['init'], { env })).code).toBe(0);
    const made = await runCli(ws, ['new', 'demo-task'], { env });
    expect(made.code, made.stderr).toBe(0);
    // the untouched template is refused
    const early = await runCli(ws, ['run', dir, '--db', ws.db], { env });
    expect(early.code).toBe(2);
    expect(early.stderr).toContain('fill .target.md first');
    appendFileSync(join(dir, '.target.md'), '\nGreet the user by name on the start page.\n');

    pane = await DashboardPane.start({
      ws, name: 'newcomer', env: DashboardPane.envFor(ws, env as Record<string, string>),
      args: ['--db', ws.db, '--heartbeat', '0.5', '--stall-threshold', '2', '--grace', '60', '--recovery-per-iteration', '10', '--recovery-total', '20'],
    });
    await pane.waitScreen((s) => s.includes('demo-task'), 'the dashboard listing demo-task');
    await pane.keys('s');
    await pane.waitScreen((s) => s.includes('Start a loop on demo-task'), 'the start dialog');
    await pane.keys('Enter');
    const screen = await pane.waitScreen((s) => /demo-task.*complete/.test(s), 'demo-task complete', 120_000);
    expect(screen).toMatch(/demo-task.*6\/20/);

    const first = JSON.stringify(fake.requests.find((q) => q.kind === 'main')?.body);
    expect(first).toContain('<command-name>/autodeck-auto</command-name>');
    expect(first).toContain('TASK/.auto-stop');
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', iterations: 6 });
    // its state hooks ran, through the linked command, to the session's end
    const state = readDb(ws.db, (db) => db.prepare(
      "SELECT a.state, a.event FROM agent_state a JOIN events e ON e.session_name = a.session_name WHERE e.task_dir = ? AND e.kind = 'started'").get(dir));
    expect(state).toEqual({ state: 'exited', event: 'SessionEnd' });
  }, 180_000);
});
