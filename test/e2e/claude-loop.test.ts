import { describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SENTINEL } from '../../src/hooks/sentinel.js';
import { join } from 'node:path';
import { claudeEnv, claudeTitle, installClaudeCodes } from '../helpers/claudeCode.js';
import { startFakeAnthropic } from '../helpers/fakeAnthropic.js';
import { loopScript, walk } from '../helpers/claudeLoop.js';
import { makeWorkspace } from '../helpers/workspace.js';
import { runCli } from '../helpers/cli.js';
import { eventsOf, readDb, runsOf } from '../helpers/db.js';
import { claudeProject, e2eScope, mainBodies, QUICK_STALLS } from '../helpers/claudeRun.js';

// A new user's path with the real Claude Code: `autodeck init` in a fresh project, then
// `autodeck run` with the DEFAULT agent (`claude "/autodeck-auto {taskDir}"`, `claude`
// found on PATH). The fake model plays the loop the installed skill describes, with real
// Read / Write / Bash tool calls; autodeck's --settings give the session its state hooks and
// let the protocol's own file operations through without a prompt.

const installs = await installClaudeCodes();

const t = e2eScope();

for (const install of installs) {
  describe.skipIf(!install.bin)(claudeTitle('the /autodeck-auto loop under the real Claude Code', install), () => {
    it('init, then run with the default agent: the skill reaches the model, the loop ends complete, no prompt for the protocol, hooks report state', async () => {
      const ws = (t.ws = makeWorkspace('autodeck-claude-loop-'));
      const dir = ws.module('first-task', { status: 'planning' });
      const work = join(dir, 'notes.md');
      const signals = walk('planning');
      const fake = t.fake = await startFakeAnthropic(loopScript(dir, signals, {
        // the work itself: a Write in the module, not one of the protocol's files (asks, and autodeck answers)
        during: (n) => (signals[n - 1]!.step === 'exec' ? [{ toolUse: { name: 'Write', input: { file_path: work, content: 'the work\n' } } }] : []),
        // an agent that ends its turn mid-loop: idle, by its Stop hook's word
        pauseAfter: { iteration: 2, text: 'The plan passed its check.' },
      }));
      const env = claudeProject(ws, install.bin!, fake.port);

      const init = await runCli(ws, ['init'], { env });
      expect(init.code, init.stderr).toBe(0);
      expect(init.stdout).toContain('.claude/skills/autodeck-auto/SKILL.md: added the /autodeck-auto skill');

      const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, ...QUICK_STALLS], { env });
      expect(r.code, `${r.stderr}\n${JSON.stringify(eventsOf(ws.db, dir).map((e) => [e.kind, e.detail]))}`).toBe(0);

      // the skill's words were the first user message: the stop-file check and the signal's form
      const first = mainBodies(fake)[0]!;
      expect(first).toContain('<command-name>/autodeck-auto</command-name>');
      expect(first).toContain(dir);
      expect(first).toContain('TASK/.auto-stop');
      expect(first).toContain('mv TASK/.auto-signal.tmp TASK/.auto-signal');

      expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', forced: 0, iterations: signals.length });
      expect(readFileSync(work, 'utf8')).toBe('the work\n');
      expect(eventsOf(ws.db, dir, 'hook_block')).toEqual([]);
      expect(eventsOf(ws.db, dir, 'started')[0]!.detail).toMatchObject({ mode: 'signal', hooksInjected: true });

      // The turn that ended mid-loop was continued, and the work's Write was answered by the
      // approval policy (no rule names it: Yes, at once, no recovery spent): the one prompt of
      // the run. The protocol's own reads, writes and the rename never asked. (On a loaded
      // machine Claude Code may take longer than two quick beats to take the continuation in,
      // so the idle turn may be continued twice.)
      const recoveries = eventsOf(ws.db, dir, 'recovery').map((e) => e.detail);
      const approvals = eventsOf(ws.db, dir, 'approval').map((e) => e.detail);
      // in a mode that asks (2.1.197 starts in manual mode) the work's Write came as a prompt the policy allowed;
      // in auto mode (2.1.332) the mode let it through: either way it ran, and nothing else asked
      expect(approvals.length, JSON.stringify(approvals)).toBeLessThanOrEqual(1);
      for (const a of approvals) {
        expect(a).toMatchObject({ decision: 'allow', rule: 'default', tool: 'Write' });
        // the path as Claude Code's hook gave it (absolute) or as its dialog shows it (relative to the cwd)
        expect(join(ws.dir, String(a.path)).endsWith(join('AiTasks', 'first-task', 'notes.md'))).toBe(true);
      }
      expect(recoveries.filter((d) => d.kind === 'permission_prompt')).toHaveLength(0);
      expect(recoveries.filter((d) => d.kind === 'idle').length).toBeGreaterThanOrEqual(1);
      expect(recoveries.filter((d) => d.kind !== 'idle' && d.kind !== 'permission_prompt')).toEqual([]);
      // the agent's own word decided (its state hooks, injected through --settings)
      for (const d of recoveries) expect(d.source, JSON.stringify(d)).toBe('hook');
      const state = readDb(ws.db, (db) => db.prepare(
        "SELECT a.state, a.event FROM agent_state a JOIN events e ON e.session_name = a.session_name WHERE e.task_dir = ? AND e.kind = 'started'").get(dir));
      expect(state).toEqual({ state: 'exited', event: 'SessionEnd' });
      for (const f of ['.auto-signal', '.auto-signal.tmp', '.auto-stop']) expect(existsSync(join(dir, f)), f).toBe(false);
    }, 180_000);

    it('a 20-iteration loop with the default limits ends by its own (stop) or its limit, never stall_limit', async () => {
      const ws = (t.ws = makeWorkspace('autodeck-claude-loop20-'));
      const dir = ws.module('long-task', { status: 'planning' });
      // plan, check, 14 progress steps, exec done, check, merge, report: 20 iterations
      const signals = walk('planning', (pos, n) => (pos.step === 'exec' && n <= 16 ? `(step-${n - 2})` : undefined));
      expect(signals).toHaveLength(20);
      const fake = t.fake = await startFakeAnthropic(loopScript(dir, signals));
      const env = claudeProject(ws, install.bin!, fake.port);
      expect((await runCli(ws, ['init'], { env })).code).toBe(0);

      // default limits (20 iterations, 3 stalls, 3/10 recoveries); only the heartbeat is quicker
      const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, '--heartbeat', '2'], { env });
      const run = runsOf(ws.db, dir)[0]!;
      expect(['complete', 'max_iterations'], r.stderr).toContain(run.outcome);
      expect(run.iterations).toBe(20);
      expect(eventsOf(ws.db, dir, 'recovery')).toEqual([]);
      expect(eventsOf(ws.db, dir, 'hook_block')).toEqual([]);
    }, 300_000);

    it('Write and Edit work in a session Claude Code counts as a background job (its worktree guard is off for autodeck sessions)', async () => {
      const ws = (t.ws = makeWorkspace('autodeck-claude-bg-'));
      rmSync(join(ws.dir, '.git'), { recursive: true });
      execFileSync('git', ['init', '-q', ws.dir]);
      const dir = ws.module('edit-task', { status: 'complete' }); // one step: report
      const file = join(dir, 'report.md');
      const editWrite = [
        { toolUse: { name: 'Write', input: { file_path: file, content: 'draft\n' } } },
        { toolUse: { name: 'Edit', input: { file_path: file, old_string: 'draft', new_string: 'final' } } },
      ];
      const fake = t.fake = await startFakeAnthropic(loopScript(dir, walk('complete'), { during: () => editWrite }));
      // inherited from a parent that runs as a Claude Code background session
      const env: NodeJS.ProcessEnv = { ...claudeProject(ws, install.bin!, fake.port), CLAUDE_CODE_SESSION_KIND: 'bg' };

      // without autodeck's settings, this Claude Code refuses the edit in such a session
      const control = await startFakeAnthropic([editWrite[0]!, { text: 'done' }]);
      try {
        const child = spawn(install.bin!, ['-p', 'write it', '--settings', JSON.stringify({ permissions: { allow: [`Write(/${dir}/**)`] } })],
          { cwd: ws.dir, env: { ...env, ...claudeEnv({ home: String(env.HOME), port: control.port }) }, stdio: 'ignore' });
        await new Promise((resolve) => child.on('close', resolve));
        expect(JSON.stringify(control.requests.filter((q) => q.kind === 'main').at(-1)?.body)).toContain("hasn't isolated its changes");
        expect(existsSync(file)).toBe(false);
      } finally {
        await control.close();
      }

      expect((await runCli(ws, ['init'], { env })).code).toBe(0);
      const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, ...QUICK_STALLS], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe('final\n');
      expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
    }, 180_000);

    it('hook mode without init: the Stop hook comes with --settings, blocks with the progress, and the sentinel ends the loop complete', async () => {
      const ws = (t.ws = makeWorkspace('autodeck-claude-hookmode-'));
      const dir = ws.module('hooked', { status: 'executing' });
      writeFileSync(join(dir, '.plan.md'), '- [ ] first\n- [ ] second\n');
      const fake = t.fake = await startFakeAnthropic([{ text: 'I looked at the plan.' }, { text: `Everything is done.\n${SENTINEL}` }]);
      const env = claudeProject(ws, install.bin!, fake.port);
      const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, '--mode', 'hook', '--agent', 'claude "Work on {taskName}"',
        ...QUICK_STALLS], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(ws.dir, '.claude', 'settings.json'))).toBe(false); // nothing of the user's was touched
      expect(JSON.stringify(fake.requests.filter((q) => q.kind === 'main')[1]?.body)).toContain('autodeck: 0/2 tasks complete (0%)');
      // one block, then the sentinel's allow (a Stop after the loop's end is allowed too)
      const decisions = eventsOf(ws.db, dir).filter((e) => e.kind.startsWith('hook_'));
      expect(decisions.map((e) => e.kind).slice(0, 2)).toEqual(['hook_block', 'hook_allow']);
      expect(decisions.filter((e) => e.kind === 'hook_block')).toHaveLength(1);
      expect(decisions[1]!.detail).toMatchObject({ rule: 'sentinel', outcome: 'complete' });
      expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
    }, 180_000);
  });
}
