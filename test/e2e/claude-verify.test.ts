import { describe, expect, it } from 'vitest';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CLAUDE_CODE_NEWEST, claudeTitle, installClaudeCode } from '../helpers/claudeCode.js';
import { startFakeAnthropic, type ScriptStep } from '../helpers/fakeAnthropic.js';
import { loopScript, walk } from '../helpers/claudeLoop.js';
import { makeWorkspace } from '../helpers/workspace.js';
import { runCli } from '../helpers/cli.js';
import { eventsOf, readDb, runsOf } from '../helpers/db.js';
import { claudeProject, e2eScope, mainBodies, QUICK_STALLS } from '../helpers/claudeRun.js';
import { commitAll, sh, writeFiles } from '../helpers/gitRepo.js';

// The real Claude Code, the default agent and the installed /autodeck-auto skill, against
// the fake API, in a git worktree of its own: its first verify fails, and the model's next
// turn carries the failure's text; the loop goes on, the second verify passes.

// the verify is autodeck's, not the agent's: one end of the range is enough
const install = await installClaudeCode(CLAUDE_CODE_NEWEST);
const title = claudeTitle('a failing verify under the real Claude Code', install);

const t = e2eScope();

/** Fails its first run (a test name and an assertion on stderr), passes after. */
const VERIFY = 'n=$(cat "$VERIFY_COUNTER" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$VERIFY_COUNTER"; '
  + 'if [ "$n" -lt 2 ]; then echo "FAIL src/app.test.ts > adds numbers"; echo "AssertionError: expected 3 to be 4" >&2; exit 1; fi; echo "1 passed"';

/** A second pass of the loop, as the model plays it after being told: iteration 2, report, (stop). */
function secondPass(taskDir: string): ScriptStep[] {
  const tmp = join(taskDir, '.auto-signal.tmp');
  const signal = { step: 'report', result: '(done)', next: '(stop)', checkpoint: '', iteration: 2, timestamp: new Date().toISOString() };
  return [
    { toolUse: { name: 'Read', input: { file_path: join(taskDir, '.auto-stop') } } },
    { toolUse: { name: 'Write', input: { file_path: tmp, content: `${JSON.stringify(signal)}\n` } } },
    { toolUse: { name: 'Bash', input: { command: `mv ${tmp} ${join(taskDir, '.auto-signal')}`, description: 'Publish the signal' } } },
    { text: 'Fixed the failing test; the loop is finished again.' },
  ];
}

describe.skipIf(!install.bin)(title, () => {
  it("the model's next turn carries the failed verify's text; the agent works in its worktree; the second verify completes the loop", async () => {
    const ws = (t.ws = makeWorkspace('autodeck-claude-verify-'));
    rmSync(join(ws.dir, '.git'), { recursive: true });
    sh(ws.dir, 'init', '-q', '-b', 'main');
    writeFiles(ws.dir, { 'src/app.txt': 'v1\n', '.gitignore': '/home/\n/state/\n/config/\n/claude-home/\n/bin/\nstate.db*\n.auto-*\n' });
    const dir = ws.module('checked', { status: 'complete' }); // one step: report
    commitAll(ws.dir, 'a project');
    const fake = t.fake = await startFakeAnthropic([...loopScript(dir, walk('complete')), ...secondPass(dir)]);
    const env = { ...claudeProject(ws, install.bin!, fake.port), VERIFY_COUNTER: join(ws.dir, 'counter') };
    expect((await runCli(ws, ['init'], { env })).code).toBe(0);

    const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, '--worktree', '--verify', VERIFY, ...QUICK_STALLS], { env });
    const log = JSON.stringify(eventsOf(ws.db, dir).map((e) => [e.kind, e.detail]));
    expect(r.code, `${r.stderr}\n${log}`).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', iterations: 2 });

    const verifies = readDb(ws.db, (db) => db.prepare('SELECT attempt, passed, tail FROM verifies WHERE task_dir = ? ORDER BY id').all(dir)) as
      { attempt: number; passed: number; tail: string }[];
    expect(verifies.map((v) => [v.attempt, v.passed])).toEqual([[1, 0], [2, 1]]);

    // the user turn after the failure: which command failed, and the end of its output
    const bodies = mainBodies(fake);
    const told = bodies.findIndex((b) => b.includes('its verify command failed'));
    expect(told, 'a main turn that carries the failure').toBeGreaterThan(0);
    expect(bodies[told]).toContain('FAIL src/app.test.ts > adds numbers ⏎ AssertionError: expected 3 to be 4');
    expect(bodies[told]).toContain('(1 of 3 allowed failures; 2 left)');
    expect(eventsOf(ws.db, dir, 'verify_feedback')).toHaveLength(1);

    // Claude Code ran in the loop's worktree, with the checkout's skill (--add-dir)
    const made = eventsOf(ws.db, dir, 'worktree')[0]!.detail as { path: string; branch: string };
    expect(made.path).toBe(join(ws.dir, '.autodeck', 'worktrees', made.branch.replace('autodeck/', '')));
    expect(bodies[0]).toContain('<command-name>/autodeck-auto</command-name>');
    expect(bodies[0]).toContain(made.path);
    expect(eventsOf(ws.db, dir, 'verify_started').map((e) => e.detail.cwd)).toEqual([made.path, made.path]);
    // it holds nothing of its own (the model only wrote the module's files): removed at the end
    expect(eventsOf(ws.db, dir, 'worktree').map((e) => e.detail.action)).toEqual(['created', 'removed']);
    expect(readFileSync(join(ws.dir, 'counter'), 'utf8').trim()).toBe('2');
  }, 240_000);
});
