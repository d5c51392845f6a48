import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeEnv, claudeTitle, installClaudeCodes, writeClaudeConfig } from '../helpers/claudeCode.js';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fakeAnthropic.js';
import { waitFor } from '../helpers/wait.js';
import { PtySession } from '../../src/sessions/pty.js';

// The real Claude Code CLI (pinned, installed from the npm registry into
// node_modules/.cache) in a real PTY, against the fake Anthropic API on 127.0.0.1.
// Waits are for screen states, with generous bounds; the short pauses between writes
// are how a person types (a composer swallows an Enter inside the same paste).

const installs = await installClaudeCodes();

/**
 * The input line: `❯` + NO-BREAK SPACE (history lines use a normal space). Empty, it
 * reads `❯\u00a0 ` here: the drawn cursor is a written space that the emulator's
 * trimRight keeps (tmux capture-pane drops it).
 */
const PROMPT = /^❯\u00a0/m;
const EMPTY_PROMPT = /^❯\u00a0 ?$/m;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dir: string | undefined;
let session: PtySession | undefined;
let fake: FakeAnthropic | undefined;

afterEach(async () => {
  session?.dispose();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  session = fake = dir = undefined;
});

for (const install of installs) {
  describe.skipIf(!install.bin)(claudeTitle('real Claude Code in a PTY', install), () => {
    it('idle, permission prompt, Enter proceeds, idle again, /exit exits 0', async () => {
      fake = await startFakeAnthropic([
        { toolUse: { name: 'Bash', input: { command: 'echo hi > x.txt', description: 'Write hi to x.txt' } } },
        { text: 'Wrote x.txt.' },
      ]);
      dir = realpathSync(mkdtempSync(join(tmpdir(), 'autodeck-claude-')));
      const home = join(dir, 'home');
      const cwd = join(dir, 'proj');
      mkdirSync(home);
      mkdirSync(cwd);
      writeClaudeConfig(home, cwd);
      // the manual mode (2.1.332 starts in auto mode, which draws no prompt for this command): `default` names it at both ends
      const s = (session = new PtySession({ name: 'claude', argv: [install.bin!, '--permission-mode', 'default'], cwd, env: claudeEnv({ home, port: fake.port }), cols: 120, rows: 40 }));
      let exit: { exitCode: number } | undefined;
      s.onExit((e) => (exit = e));
      const screen = () => s.screen().join('\n');
      const until = (re: RegExp, what: string, ms = 20_000) =>
        waitFor(() => re.test(screen()), what, ms, 50).catch((err: unknown) => {
          throw new Error(`${String(err)}\n--- screen ---\n${screen()}`);
        });

      /** The screen unchanged for `quietMs`. */
      const settled = async (quietMs = 500) => {
        let last = screen();
        let since = Date.now();
        await waitFor(() => {
          const now = screen();
          if (now !== last) [last, since] = [now, Date.now()];
          return Date.now() - since >= quietMs;
        }, 'the screen to hold still', 20_000, 50);
      };

      await until(new RegExp(`${EMPTY_PROMPT.source}[\\s\\S]*\\? for shortcuts`, 'm'), 'the idle prompt');

      s.write('write x.txt');
      await pause(150);
      s.write('\r');
      await until(/Do you want to proceed\?[\s\S]*^ ❯ 1\. Yes/m, 'the permission prompt');
      expect(screen()).toMatch(/^ Bash command$/m);
      // 2.1.197 indents the command three spaces; 2.1.332 draws it between `╌` rules with one
      expect(screen()).toMatch(/^ +echo hi > x\.txt *$/m);
      expect(screen()).not.toMatch(PROMPT); // no input box while the prompt is up

      // a key that comes while the prompt is still being drawn is dropped (2.1.332 on a loaded
      // machine): Enter once the screen has held still, as a person would press it
      await settled();
      s.write('\r');
      // `✻ Churned for 5s` (2.1.197), `✻ Cogitated for 0s · done 7:43 PM` (2.1.332)
      await until(new RegExp(`● Wrote x\\.txt\\.[\\s\\S]*^✻ \\S+ for \\d+s\\b[\\s\\S]*${EMPTY_PROMPT.source}`, 'm'), 'the end of the turn');
      await until(/\? for shortcuts/, 'the idle footer');
      expect(readFileSync(join(cwd, 'x.txt'), 'utf8')).toBe('hi\n');
      expect(fake.mainTurns()).toBe(2);

      s.write('/exit');
      await pause(100);
      s.write('\r');
      await waitFor(() => exit, 'claude to exit', 15_000, 50);
      expect(exit!.exitCode).toBe(0);
      // 2.1.332 repeats the session's flags: `claude --permission-mode default --resume <uuid>`
      expect(screen()).toMatch(/Resume this session with:\n.*claude (?:--\S+ \S+ )*--resume [0-9a-f-]{36}/);
      // nothing outside loopback was reached: the two start-up probes hit the fake as a proxy
      expect(fake.requests.filter((r) => r.kind === 'unknown')).toEqual([]);
    });
  });
}
