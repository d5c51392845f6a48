import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeTitle, installClaudeCodes, transcriptDir } from '../helpers/claudeCode.js';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fakeAnthropic.js';
import { processesUnderHome, startClaudeBg, type ClaudeBg } from '../helpers/claudeBackground.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli, startCli, type CliRun } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { RESUMES_IN_PLACE_SINCE } from '../../src/claudeSessions/actions.js';
import { compareVersions, parseVersion } from '../../src/agents/claudeVersion.js';

// `autodeck adopt` with the real Claude Code against the fake API: a background session
// that hit a subscriber's usage limit (Claude Code leaves it blocked, and does not resume
// it) is adopted; autodeck waits, sends it on once after the reset — not before — under
// its own id, counts the turn it then finishes, and stops it at its iteration limit.

const installs = await installClaudeCodes();

let ws: Workspace | undefined;
let fake: FakeAnthropic | undefined;
let claude: ClaudeBg | undefined;
let run: CliRun | undefined;

afterEach(async () => {
  if (run && run.child.exitCode === null) {
    run.child.kill('SIGKILL');
    await run.exited;
  }
  if (claude) {
    await claude.cleanup();
    expect(processesUnderHome(claude.home)).toEqual([]);
  }
  await fake?.close();
  ws?.cleanup();
  ws = fake = claude = run = undefined;
});

interface Ev { kind: string; at: string; detail: Record<string, unknown> }

for (const install of installs) {
  const inPlace = compareVersions(parseVersion(install.version)!, parseVersion(RESUMES_IN_PLACE_SINCE)!) >= 0;
  // Only a release that continues a stopped session under its own id can be resumed after its limit;
  // on one that would copy (2.1.197) the resume is refused, which test/unit/claude-actions.test.ts and
  // claude-governor.test.ts cover without waiting two minutes for a reset (AUTODECK_CLAUDE_ADOPT_ALL=1 runs it here too).
  const runHere = inPlace || process.env.AUTODECK_CLAUDE_ADOPT_ALL === '1';
  const title = runHere ? claudeTitle('autodeck adopt on a real Claude Code background session', install)
    : `autodeck adopt on a real Claude Code background session (Claude Code ${install.version}) (skipped: it continues a session only as a copy, so the resume after a limit is refused; unit-tested)`;
  describe.skipIf(!install.bin || !runHere)(title, () => {
    it(inPlace
      ? 'waits out a usage limit, resumes once after the reset (never before), counts the turn, stops at max iterations'
      : 'waits out a usage limit, and at the reset says it cannot resume this release\'s session under its own id', async () => {
      ws = makeWorkspace('autodeck-claude-adopt-');
      fake = await startFakeAnthropic([]);
      claude = startClaudeBg({ ws, bin: install.bin!, version: install.version, port: fake.port, oauth: true, cwd: ws.dir });
      const c = claude;
      // the limit lifts in a minute and a half; Claude Code shows the reset to the minute
      const resetEpoch = Math.floor(Date.now() / 1000) + 90;
      fake.push({ rateLimit: { unified: { reset: resetEpoch, claim: 'five_hour' }, message: 'limit' } }, { text: 'Resumed, and the task is finished.' });
      const id = await c.bg('a long task');
      const blocked = await c.waitAgent(id, (a) => a.state === 'blocked', 'blocked at the limit');

      run = startCli(ws, ['adopt', id, '--max-iterations', '1', '--timeout', '30', '--json'], { env: { ...ws.env, ...c.env } });
      const events = (): Ev[] => run!.stdout().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Ev);
      const wait = await waitFor(() => events().find((e) => e.kind === 'quota_wait'), `the quota wait (stderr: ${run!.stderr()})`, 60_000, 250);
      const resetAt = Date.parse(String(wait.detail.resetAt));
      // the reset Claude Code named, plus autodeck's minute of margin: never before the real reset
      expect(resetAt).toBeGreaterThanOrEqual(resetEpoch * 1000);
      expect(resetAt).toBeLessThanOrEqual(resetEpoch * 1000 + 2 * 60_000);

      if (!inPlace) {
        const err = await waitFor(() => events().find((e) => e.kind === 'error'), 'the refusal to resume by a copy', 240_000, 500);
        expect(String(err.detail.message)).toMatch(/only as a copy/);
        expect(Date.parse(err.at)).toBeGreaterThanOrEqual(resetAt);
        run.child.kill('SIGINT');
        expect(await run.exited).toBe(130);
        return;
      }

      const code = await run.exited;
      const all = events();
      expect(code, `${run.stderr()}\n${JSON.stringify(all.map((e) => [e.kind, e.detail]))}`).toBe(1);
      const resumes = all.filter((e) => e.kind === 'quota_resume');
      expect(resumes).toHaveLength(1);
      expect(resumes[0]!.detail).toMatchObject({ resumed: true });
      expect(Date.parse(resumes[0]!.at)).toBeGreaterThanOrEqual(resetAt);
      // the continuation reached the model once, after the reset
      const continued = fake.requests.filter((r) => r.kind === 'main' && JSON.stringify(r.body).includes('Please continue with the task'));
      // (on failure: what the fake saw, and autodeck's events)
      const seen = JSON.stringify({ requests: fake.requests.map((r) => [r.kind, r.answer, JSON.stringify(r.body ?? '').slice(-300)]), events: all.map((e) => [e.kind, e.detail]) });
      expect(continued, seen).toHaveLength(1);
      // under the session's own id: its transcript has it, and no other background session appeared
      const transcript = readFileSync(join(transcriptDir(c.home, ws.dir), `${blocked.sessionId}.jsonl`), 'utf8');
      expect(transcript).toContain('Please continue with the task');
      expect(transcript).toContain('Resumed, and the task is finished.');
      expect((await c.agents(true)).filter((a) => a.kind === 'background').map((a) => a.id)).toEqual([id]);
      // one turn finished after the adoption: the limit of 1 stopped it
      expect(all.find((e) => e.kind === 'stop_requested')?.detail).toMatchObject({ reason: 'max_iterations' });
      expect(all.at(-1)).toMatchObject({ kind: 'ended', detail: { outcome: 'max_iterations', iterations: 1 } });
      await c.waitAgent(id, (a) => a.state === 'stopped', 'stopped by autodeck');
      // and it is in history, as a loop's run
      const history = JSON.parse((await runCli(ws, ['history', '--json'], { env: { ...ws.env, ...c.env } })).stdout) as { runs: { taskDir: string; outcome: string; iterations: number }[] };
      expect(history.runs[0]).toMatchObject({ taskDir: `claude:${blocked.sessionId}`, outcome: 'max_iterations', iterations: 1 });
    }, 420_000);
  });
}
