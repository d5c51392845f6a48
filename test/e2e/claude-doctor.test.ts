import { describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { claudeTitle, installClaudeCodes } from '../helpers/claudeCode.js';
import { makeWorkspace } from '../helpers/workspace.js';
import { runCli } from '../helpers/cli.js';
import { e2eScope } from '../helpers/claudeRun.js';
import { CLAUDE_CODE_OLDEST } from '../../src/agents/claudeVersion.js';

// `autodeck doctor` with the real `claude` of each end of the range on PATH.

const installs = await installClaudeCodes();
const t = e2eScope();

for (const install of installs) {
  describe.skipIf(!install.bin)(claudeTitle('autodeck doctor with the real Claude Code', install), () => {
    it('names the installed version, inside the tested range, and what this version lacks', async () => {
      const ws = (t.ws = makeWorkspace('autodeck-claude-doctor-'));
      const bin = join(ws.dir, 'bin');
      mkdirSync(bin);
      symlinkSync(install.bin!, join(bin, 'claude'));
      const r = await runCli(ws, ['doctor', '--json', '--db', ws.db], { env: { PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` } });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const claude = (JSON.parse(r.stdout) as { checks: { name: string; version?: string; verdict?: string; notes: string[] }[] }).checks.find((c) => c.name === 'claude')!;
      expect(claude).toMatchObject({ version: install.version, verdict: 'inside' });
      const lacksStatus = claude.notes.some((n) => n.startsWith('OSC 7501 status sequences'));
      expect(lacksStatus).toBe(install.version === CLAUDE_CODE_OLDEST);
    }, 60_000);
  });
}
