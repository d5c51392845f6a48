import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { claudeEnv, claudeTitle, installClaudeCodes, writeClaudeConfig } from '../helpers/claudeCode.js';
import { startFakeAnthropic } from '../helpers/fakeAnthropic.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { eventsOf, readDb } from '../helpers/db.js';
import { mergeHooks } from '../../src/commands/init.js';
import { hookCommands, shellQuote } from '../../src/hooks/commands.js';
import { SENTINEL } from '../../src/hooks/sentinel.js';
import { parseSignal } from '../../src/protocol/signal.js';
import { Store } from '../../src/store/index.js';
import { sessionName } from '../../src/paths.js';
import { e2eScope } from '../helpers/claudeRun.js';

// The real Claude Code (pinned) in print mode against the fake API, with the hooks that
// `autodeck init` registers: its Stop hook blocks with the progress prompt, Claude Code
// starts a new turn with it, the model says the sentinel, the hook allows and ends the
// loop complete; the state hooks record what the agent did. Until `hook` is wired into
// the CLI the commands run the built command module through a tiny wrapper.

const installs = await installClaudeCodes();

const DIST_CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));
const DIST_HOOK = fileURLToPath(new URL('../../dist/src/commands/hook.js', import.meta.url));

const t = e2eScope();

function commands(w: Workspace) {
  if (readFileSync(DIST_CLI, 'utf8').includes('commands/hook.js')) return hookCommands({ PATH: '' });
  const wrapper = join(w.dir, 'hook-wrapper.mjs');
  writeFileSync(wrapper, `import { hookMain } from ${JSON.stringify(pathToFileURL(DIST_HOOK).href)};\nprocess.exitCode = await hookMain(process.argv.slice(2));\n`);
  const program = `${shellQuote(process.execPath)} ${shellQuote(wrapper)}`;
  return { stop: `test -z "$AUTODECK_SESSION" || ${program} stop`, state: `test -z "$AUTODECK_SESSION" || ${program} state` };
}

for (const install of installs) {
  describe.skipIf(!install.bin)(claudeTitle('the hooks under real Claude Code', install), () => {
    it('a block starts a new turn with the prompt; the sentinel ends the loop complete', async () => {
      const ws = (t.ws = makeWorkspace('autodeck-claude-hook-'));
      const fake = t.fake = await startFakeAnthropic([{ text: 'I looked at the plan.' }, { text: `Everything is done.\n${SENTINEL}` }]);
      const dir = ws.module('m');
      writeFileSync(join(dir, '.plan.md'), '- [ ] first\n- [ ] second\n');
      const session = sessionName('m', dir);
      const store = Store.open(ws.db);
      store.loops.insert({
        session, taskDir: dir, taskName: 'm', root: ws.root, maxIterations: 20, timeoutMinutes: 30,
        startedAt: new Date(Date.now() - 1000).toISOString(), backend: 'pty', ownerPid: process.pid, ownerHost: hostname(),
        ownerHeartbeatAt: new Date().toISOString(), agentArgv: ['claude'], settings: { cwd: ws.dir, mode: 'hook' }, status: 'running',
      });
      store.close();
      mkdirSync(join(ws.dir, '.claude'));
      writeFileSync(join(ws.dir, '.claude', 'settings.json'), JSON.stringify(mergeHooks({}, commands(ws)).settings, null, 2));
      const home = join(ws.dir, 'home');
      writeClaudeConfig(home, ws.dir);

      const env = { ...claudeEnv({ home, port: fake.port }), AUTODECK_SESSION: session, AUTODECK_TASK_DIR: dir, AUTODECK_DB: ws.db };
      const child = spawn(install.bin!, ['-p', 'work on the plan'], { cwd: ws.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, out).toBe(0);

      expect(fake.mainTurns()).toBe(2);
      const second = JSON.stringify(fake.requests.filter((r) => r.kind === 'main')[1]!.body);
      expect(second).toContain('Stop hook feedback');
      expect(second).toContain('autodeck: 0/2 tasks complete (0%), iteration 1 of 20.');

      const signal = parseSignal(readFileSync(join(dir, '.auto-signal'), 'utf8'));
      expect(signal.ok && signal.signal).toMatchObject({ step: 'report', result: '(done)', next: '(stop)', iteration: 2 });
      expect(eventsOf(ws.db, dir).map((e) => e.kind)).toEqual(['hook_block', 'hook_allow']);
      expect(eventsOf(ws.db, dir, 'hook_allow')[0]!.detail).toMatchObject({ rule: 'sentinel', outcome: 'complete' });
      expect(existsSync(join(dir, '.autodeck.lock'))).toBe(false);
      // the state hooks ran too; the last word is the session's end
      const state = readDb(ws.db, (db) => db.prepare('SELECT state, event FROM agent_state WHERE session_name = ?').get(session));
      expect(state).toEqual({ state: 'exited', event: 'SessionEnd' });
    });
  });
}
