import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { claudeEnv, claudeTitle, installClaudeCodes, writeClaudeConfig } from '../helpers/claudeCode.js';
import { startFakeAnthropic } from '../helpers/fakeAnthropic.js';
import { makeWorkspace } from '../helpers/workspace.js';
import { runCli } from '../helpers/cli.js';
import { eventsOf, runsOf } from '../helpers/db.js';
import { killTmuxServer, tmuxAvailable } from '../../src/sessions/tmuxServer.js';
import { e2eScope } from '../helpers/claudeRun.js';

// The real Claude Code under `autodeck run`, against the fake Anthropic API on 127.0.0.1.
// Claude Code starts idle at its prompt: autodeck's silent continue starts its turn; the
// fake answers with a Bash tool use that writes the loop's final signal, which brings up
// a permission prompt that autodeck answers; once the signal has ended the loop and
// Claude Code is idle again, autodeck ends it with /exit.

const installs = await installClaudeCodes();

const t = e2eScope();

const tmux = tmuxAvailable();
const backends = tmux.ok ? ['pty', 'tmux'] : ['pty'];
let socket = '';

for (const install of installs) {
  describe.skipIf(!install.bin)(claudeTitle('autodeck run supervising the real Claude Code', install), () => {
    afterEach(() => {
      if (socket) killTmuxServer({ socket });
      socket = '';
    });

    it.each(backends)('answers a permission prompt, continues an idle agent, and ends it with /exit (%s)', async (backend) => {
      const ws = (t.ws = makeWorkspace());
      socket = `autodeck-e2e-${process.pid}-${Date.now()}`;
      const dir = ws.module('real-claude', { status: 'executing' });
      const signal = JSON.stringify({ step: 'report', result: '(done)', next: '(stop)', checkpoint: '', iteration: 1, timestamp: '2026-11-22T05:00:00Z' });
      const fake = t.fake = await startFakeAnthropic([
        { toolUse: { name: 'Bash', input: { command: `printf '%s' '${signal}' > ${join(dir, '.auto-signal')}`, description: 'Write the final signal' } } },
        { text: 'The task is complete.' },
      ]);
      const home = join(ws.dir, 'claude-home');
      mkdirSync(home);
      writeClaudeConfig(home, ws.dir);

      const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, '--agent', JSON.stringify(install.bin!),
        '--agent-profile', 'claude', '--heartbeat', '0.5', '--stall-threshold', '2', '--grace', '60', '--backend', backend,
      // the manual mode, chosen by autodeck's setting (2.1.332 would start in auto mode and ask nothing for this command)
      '--claude-permission-mode', 'manual',
        // a loaded machine draws Claude Code's first screen slowly: its start must not spend the recovery budget
        '--recovery-per-iteration', '10', '--recovery-total', '20'],
      { env: { ...claudeEnv({ home, port: fake.port }), AUTODECK_TMUX_SOCKET: socket } });

      expect(r.code, r.stderr).toBe(0);
      const recoveries = eventsOf(ws.db, dir, 'recovery').map((e) => e.detail);
      // the idle turn: the continuation message started the work
      expect(recoveries[0]).toMatchObject({ kind: 'idle', keys: 'continuation message + Enter' });
      // the permission prompt for the file-writing command: the approval policy's default, Enter on the highlighted Yes at once
      expect(eventsOf(ws.db, dir, 'approval').map((e) => e.detail)).toContainEqual(expect.objectContaining({ decision: 'allow', rule: 'default', tool: 'Bash', keys: '\\r' }));
      expect(recoveries.filter((d) => d.kind === 'permission_prompt')).toEqual([]);
      expect(eventsOf(ws.db, dir, 'agent_exit').map((e) => e.detail)).toContainEqual(expect.objectContaining({ action: 'exit command', keys: '/exit' }));
      expect(eventsOf(ws.db, dir, 'agent_exit').at(-1)!.detail).toMatchObject({ exitCode: 0 });
      expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete', forced: 0 });
      expect(fake.mainTurns()).toBeGreaterThanOrEqual(2);
      // the continuation message reached the model as the user's words
      expect(JSON.stringify(fake.requests.find((q) => q.kind === 'main')?.body)).toContain('Please continue with the task');
    }, 120_000);
  });
}
