import { describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeTitle, installClaudeCodes } from '../helpers/claudeCode.js';
import { startFakeAnthropic } from '../helpers/fakeAnthropic.js';
import { loopScript, walk } from '../helpers/claudeLoop.js';
import { makeWorkspace } from '../helpers/workspace.js';
import { runCli } from '../helpers/cli.js';
import { eventsOf, runsOf } from '../helpers/db.js';
import { claudeProject, e2eScope, QUICK_STALLS } from '../helpers/claudeRun.js';
import { CLAUDE_CODE_OLDEST } from '../../src/agents/claudeVersion.js';

// A user whose own default permission mode is manual (`~/.claude/settings.json`). 2.1.332
// asks such a user at start "Make auto mode your default permission mode?" with the Yes
// highlighted (when it starts without a prompt: with one it skips the offer); autodeck
// chooses "No, keep manual mode" by its label, and the user's settings file is
// byte-for-byte what it was. 2.1.197 has no such offer: the file stays the same too.

const installs = await installClaudeCodes();
const t = e2eScope();

for (const install of installs) {
  describe.skipIf(!install.bin)(claudeTitle("a manual-mode user's own settings under a supervised loop", install), () => {
    it('the loop runs to its end and ~/.claude/settings.json is unchanged, byte for byte', async () => {
      const ws = (t.ws = makeWorkspace('autodeck-claude-usersettings-'));
      const dir = ws.module('user-task', { status: 'complete' }); // one step: report
      const fake = t.fake = await startFakeAnthropic(loopScript(dir, walk('complete')));
      const env = claudeProject(ws, install.bin!, fake.port);
      const settingsPath = join(String(env.HOME), '.claude', 'settings.json');
      mkdirSync(join(String(env.HOME), '.claude'), { recursive: true });
      // a person's file: their mode, an unrelated key, their own spacing
      const mine = '{\n    "permissions": { "defaultMode": "default", "allow": ["Bash(ls:*)"] },\n    "theme": "light"\n}\n';
      writeFileSync(settingsPath, mine);
      expect((await runCli(ws, ['init'], { env })).code).toBe(0);

      // `claude` alone: it starts at its prompt (the offer first), and autodeck's silent continue starts the work
      const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, '--agent', 'claude', ...QUICK_STALLS], { env });
      const events = eventsOf(ws.db, dir);
      expect(r.code, `${r.stderr}\n${JSON.stringify(events.map((e) => [e.kind, e.detail]))}`).toBe(0);
      expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
      expect(readFileSync(settingsPath, 'utf8')).toBe(mine);

      const dialogs = events.filter((e) => e.kind === 'dialog').map((e) => e.detail);
      if (install.version === CLAUDE_CODE_OLDEST) expect(dialogs).toEqual([]);
      else {
        // the offer answered with its No, by the label (Down then Enter from the highlighted Yes,
        // unit-tested on the capture); when a loaded machine drops the Enter, the next beat sees
        // the cursor on No and presses Enter alone: every answer is the No, never a Yes
        const all = JSON.stringify(events.map((e) => [e.kind, e.detail]));
        expect(dialogs.length, all).toBeGreaterThanOrEqual(1);
        expect(dialogs.length, all).toBeLessThanOrEqual(3);
        for (const d of dialogs) expect(d, all).toMatchObject({ dialog: 'auto-default-offer', choice: 'No, keep manual mode' });
        expect(dialogs.every((d) => /^(?:\\u001b\[B )?\\r$/.test(String(d.keys))), all).toBe(true);
      }
      expect(events.filter((e) => e.kind === 'needs_you')).toEqual([]);
    }, 180_000);
  });
}
