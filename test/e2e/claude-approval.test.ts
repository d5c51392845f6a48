import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLAUDE_CODE_VERSION, installClaudeCode } from '../helpers/claudeCode.js';
import { startFakeAnthropic } from '../helpers/fakeAnthropic.js';
import { loopScript, walk } from '../helpers/claudeLoop.js';
import { makeWorkspace } from '../helpers/workspace.js';
import { runCli, startCli } from '../helpers/cli.js';
import { eventsOf, readDb, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';
import { claudeProject, e2eScope, mainBodies, QUICK_STALLS } from '../helpers/claudeRun.js';

// The approval policy with the real Claude Code: the fake model asks to
// run Bash commands autodeck's --settings do not pre-allow, so Claude Code shows its
// permission prompt, and autodeck decides it by the policy.

const install = await installClaudeCode();
const title = `the approval policy under the real Claude Code ${CLAUDE_CODE_VERSION}${install.reason ? ` (skipped: ${install.reason})` : ''}`;

const t = e2eScope();

describe.skipIf(!install.bin)(title, () => {
  it('a denied command: autodeck answers No, tells the agent why, and the loop goes on to its end', async () => {
    const ws = (t.ws = makeWorkspace('autodeck-claude-deny-'));
    const dir = ws.module('deny-task', { status: 'planning' });
    const signals = walk('planning');
    const fake = t.fake = await startFakeAnthropic(loopScript(dir, signals, {
      // in the first iteration the agent wants to force-push: a built-in deny
      during: (n) => (n === 1 ? [{ toolUse: { name: 'Bash', input: { command: 'git push --force origin main', description: 'Publish the work' } } }] : []),
    }));
    const env = claudeProject(ws, install.bin!, fake.port);
    expect((await runCli(ws, ['init'], { env })).code).toBe(0);

    const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, ...QUICK_STALLS], { env });
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
    const ws = (t.ws = makeWorkspace('autodeck-claude-ask-'));
    const dir = ws.module('ask-task', { status: 'planning' });
    writeFileSync(join(ws.dir, '.autodeck.json'), JSON.stringify({ approval: { rules: [{ ask: 'Bash(npm publish*)' }] } }));
    const fake = t.fake = await startFakeAnthropic(loopScript(dir, walk('planning'), {
      during: (n) => (n === 1 ? [{ toolUse: { name: 'Bash', input: { command: 'npm publish --access public', description: 'Release' } } }] : []),
    }));
    const env = claudeProject(ws, install.bin!, fake.port);
    expect((await runCli(ws, ['init'], { env })).code).toBe(0);
    const run = t.run = startCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, ...QUICK_STALLS], { env });

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
