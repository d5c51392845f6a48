import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { CLAUDE_CODE_VERSION, claudeEnv, installClaudeCode, writeClaudeConfig } from '../helpers/claudeCode.js';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fakeAnthropic.js';
import { loopScript, walk } from '../helpers/claudeLoop.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, startCli, type CliRun } from '../helpers/cli.js';
import { eventsOf, readDb, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';

// The approval policy with the real Claude Code (issue 15 item 3): the fake model asks to
// run Bash commands autodeck's --settings do not pre-allow, so Claude Code shows its
// permission prompt, and autodeck decides it by the policy.

const install = await installClaudeCode();
const title = `the approval policy under the real Claude Code ${CLAUDE_CODE_VERSION}${install.reason ? ` (skipped: ${install.reason})` : ''}`;

let ws: Workspace | undefined;
let fake: FakeAnthropic | undefined;
let run: CliRun | undefined;
afterEach(async () => {
  // a test that failed half way: no run outlives it
  if (run && run.child.exitCode === null) run.child.kill('SIGKILL');
  await fake?.close();
  ws?.cleanup();
  ws = fake = run = undefined;
});

/** A workspace where `claude` on PATH is the pinned binary, Claude Code's first-run dialogs skipped. */
function project(w: Workspace, port: number): NodeJS.ProcessEnv {
  const bin = join(w.dir, 'bin');
  mkdirSync(bin);
  symlinkSync(install.bin!, join(bin, 'claude'));
  const home = join(w.dir, 'claude-home');
  mkdirSync(home);
  writeClaudeConfig(home, w.dir);
  const env = claudeEnv({ home, port });
  return { ...env, PATH: `${bin}${delimiter}${env.PATH}`, XDG_STATE_HOME: join(w.dir, 'state'), XDG_CONFIG_HOME: join(w.dir, 'config') };
}

const QUICK = ['--heartbeat', '0.5', '--stall-threshold', '2', '--grace', '60', '--recovery-per-iteration', '10', '--recovery-total', '20'];
const mainBodies = (f: FakeAnthropic) => f.requests.filter((r) => r.kind === 'main').map((r) => JSON.stringify(r.body));

describe.skipIf(!install.bin)(title, () => {
  it('a denied command: autodeck answers No, tells the agent why, and the loop goes on to its end', async () => {
    ws = makeWorkspace('autodeck-claude-deny-');
    const dir = ws.module('deny-task', { status: 'planning' });
    const signals = walk('planning');
    fake = await startFakeAnthropic(loopScript(dir, signals, {
      // in the first iteration the agent wants to force-push: a built-in deny
      during: (n) => (n === 1 ? [{ toolUse: { name: 'Bash', input: { command: 'git push --force origin main', description: 'Publish the work' } } }] : []),
    }));
    const env = project(ws, fake.port);
    expect((await runCli(ws, ['init'], { env })).code).toBe(0);

    const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, ...QUICK], { env });
    const events = eventsOf(ws.db, dir);
    expect(r.code, `${r.stderr}\n${JSON.stringify(events.map((e) => [e.kind, e.detail]))}`).toBe(0);

    // the prompt was refused by the built-in rule, with Esc, read from Claude Code's own PermissionRequest payload
    const approvals = events.filter((e) => e.kind === 'approval').map((e) => e.detail);
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ decision: 'deny', rule: 'built-in git-push-force', tool: 'Bash', command: 'git push --force origin main', keys: '\\u001b', source: 'hook' });
    expect(String(approvals[0]!.prompt)).toContain('git push --force origin main');
    // the model heard why, as the next user message
    expect(mainBodies(fake).some((b) => b.includes("autodeck's approval policy refused Bash git push --force origin main"))).toBe(true);
    // the next steps happened: every signal came, the loop ended complete, and no recovery was spent on the prompt
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', iterations: signals.length });
    expect(events.filter((e) => e.kind === 'recovery' && e.detail.kind === 'permission_prompt')).toEqual([]);
  }, 180_000);

  it('an `ask` rule leaves the prompt to a person: the row needs you, in status --json and the tmux segment', async () => {
    ws = makeWorkspace('autodeck-claude-ask-');
    const dir = ws.module('ask-task', { status: 'planning' });
    writeFileSync(join(ws.dir, '.autodeck.json'), JSON.stringify({ approval: { rules: [{ ask: 'Bash(npm publish*)' }] } }));
    fake = await startFakeAnthropic(loopScript(dir, walk('planning'), {
      during: (n) => (n === 1 ? [{ toolUse: { name: 'Bash', input: { command: 'npm publish --access public', description: 'Release' } } }] : []),
    }));
    const env = project(ws, fake.port);
    expect((await runCli(ws, ['init'], { env })).code).toBe(0);
    run = startCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, ...QUICK], { env });

    const waiting = await waitFor(() => readDb(ws!.db, (db) => {
      const row = db.prepare('SELECT waiting_for FROM task_auto WHERE task_dir = ?').get(dir) as { waiting_for: string } | undefined;
      return row?.waiting_for ? (JSON.parse(row.waiting_for) as Record<string, unknown>) : undefined;
    }), 'the loop to need a person', 90_000, 250);
    expect(waiting).toMatchObject({ reason: 'permission' });
    expect(String(waiting.text)).toContain('npm publish --access public');

    const json = await runCli(ws, ['status', '--json', '--db', ws.db], { env });
    const loop = (JSON.parse(json.stdout) as { loops: { taskDir: string; needsYou: unknown }[] }).loops.find((l) => l.taskDir === dir);
    expect(loop?.needsYou).toMatchObject({ reason: 'permission' });
    expect((await runCli(ws, ['status', '--format', 'tmux', '--db', ws.db], { env })).stdout).toBe('?1\n');

    // a few more heartbeats: nothing typed into the prompt, no stall counted
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const events = eventsOf(ws.db, dir);
    expect(events.filter((e) => e.kind === 'approval')).toEqual([]);
    expect(events.filter((e) => e.kind === 'needs_you').map((e) => e.detail)).toEqual([
      expect.objectContaining({ reason: 'permission', rule: 'ask Bash(npm publish*)', command: 'npm publish --access public' }),
    ]);
    expect(events.filter((e) => e.kind === 'recovery' || e.kind === 'stall')).toEqual([]);
    expect(fake.requests.filter((q) => q.kind === 'main').some((q) => JSON.stringify(q.body).includes('npm publish') && JSON.stringify(q.body).includes('tool_result'))).toBe(false);

    // the person decides to stop it
    expect((await runCli(ws, ['stop', dir, '--db', ws.db, '--force'], { env })).code).toBe(0);
    await run.exited; // (a forced stop is no success: exit 1)
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'killed', forced: 1 });
  }, 180_000);
});
