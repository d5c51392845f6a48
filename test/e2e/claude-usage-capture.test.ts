import { describe, expect, it } from 'vitest';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeEnv, claudeVersionsUnderTest, FAKE_API_KEY, installClaudeCode, readTranscripts, writeClaudeConfig, type ClaudeCodeInstall } from '../helpers/claudeCode.js';
import { startFakeAnthropic, type FakeOptions, type ScriptStep } from '../helpers/fakeAnthropic.js';
import { TmuxPane } from '../helpers/tmux.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Captures real Claude Code transcripts whose responses carry usage that grows the way a
 * real session's does (spend, ctx %, compaction fixtures of test/unit/spend-*.test.ts), by hand:
 *
 *   AUTODECK_CAPTURE=1 npx vitest run test/e2e/claude-usage-capture.test.ts
 *
 * The pinned binary runs in a private tmux server against the fake API of
 * test/helpers/fakeAnthropic.ts, whose `usage` option scripts each response's usage; the
 * transcript (`$HOME/.claude/projects/.../<uuid>.jsonl`) is saved unedited.
 */

const TRANSCRIPTS = fileURLToPath(new URL('../fixtures/transcripts/', import.meta.url));
const BASE = join(tmpdir(), 'autodeck-claude-usage-capture');
const enabled = process.env.AUTODECK_CAPTURE === '1';
// one version per run: AUTODECK_CLAUDE_VERSION=oldest|newest|<x.y.z> (the first of both by default)
const CLAUDE_CODE_VERSION = claudeVersionsUnderTest()[0]!;
const install: ClaudeCodeInstall = enabled ? await installClaudeCode(CLAUDE_CODE_VERSION) : { version: CLAUDE_CODE_VERSION, reason: 'set AUTODECK_CAPTURE=1 to capture transcripts' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const count = (text: string, needle: string) => text.split(needle).length - 1;

/** Runs the CLI in tmux; `inputs` are typed one by one, each waited for (a turn's end, or a compaction). */
async function capture(name: string, script: ScriptStep[], fakeOpts: FakeOptions, inputs: string[]): Promise<string> {
  rmSync(BASE, { recursive: true, force: true, maxRetries: 5 });
  const home = join(BASE, 'home');
  const cwd = join(BASE, 'proj');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeClaudeConfig(home, cwd, FAKE_API_KEY);
  const fake = await startFakeAnthropic(script, fakeOpts);
  const pane = await TmuxPane.start({ argv: [install.bin!], cwd, env: claudeEnv({ home, port: fake.port }) });
  const text = () => readTranscripts(home, cwd).map((t) => t.text).join('');
  try {
    await waitFor(async () => /^❯\u00a0/m.test(await pane.capture()), 'the idle prompt', 30_000, 100);
    let turns = 0;
    let compactions = 0;
    for (const input of inputs) {
      await pane.type(input);
      await sleep(300);
      await pane.keys('Enter');
      if (input === '/compact') {
        compactions++;
        await waitFor(() => count(text(), '"compact_boundary"') >= compactions, `compaction ${compactions}`, 30_000, 100);
      } else {
        turns++;
        await waitFor(() => count(text(), '"turn_duration"') >= turns, `turn ${turns}`, 30_000, 100);
      }
      await sleep(500);
    }
    const files = readTranscripts(home, cwd);
    expect(files).toHaveLength(1);
    mkdirSync(TRANSCRIPTS, { recursive: true });
    writeFileSync(join(TRANSCRIPTS, `claude-${CLAUDE_CODE_VERSION}-${name}.jsonl`), files[0]!.text);
    return files[0]!.text;
  } finally {
    await pane.kill();
    await fake.close();
    rmSync(BASE, { recursive: true, force: true, maxRetries: 5 });
  }
}

describe.skipIf(!enabled || !install.bin)(`capture Claude Code ${CLAUDE_CODE_VERSION} transcripts with usage${install.reason ? ` (skipped: ${install.reason})` : ''}`, () => {
  it('usage: a tool turn and text turns, the context growing, a priced model', async () => {
    // request n: input 10n, cache writes 2000 then 500n, cache reads 3000n, output 15n (every request, title ones too)
    const usage = (n: number) => ({ input_tokens: 10 * n, cache_creation_input_tokens: n === 1 ? 2000 : 500 * n, cache_read_input_tokens: 3000 * (n - 1), output_tokens: 15 * n });
    const text = await capture('usage', [
      { toolUse: { name: 'Bash', input: { command: 'echo hi', description: 'Say hi' } }, text: 'Let me run it.' },
      { text: 'It printed hi.' },
      { text: 'Second answer.' },
      { text: 'Third answer, from another model.', model: 'claude-haiku-4-5-20251001' },
    ], { usage, model: 'claude-sonnet-4-5-20250929' }, ['run echo hi', 'and now?', 'once more']);
    expect(text).toContain('"cache_read_input_tokens":9000');
    expect(text).toContain('claude-haiku-4-5-20251001');
  }, 120_000);

  it('compact: three /compact in one session, the context near the window before the first', async () => {
    // the default model (claude-opus-4-8, "1M context" on its header): near its window, then small after each compaction
    const at = (cacheRead: number, n: number) => ({ usage: { input_tokens: 5 * n, cache_creation_input_tokens: 300, cache_read_input_tokens: cacheRead, output_tokens: 10 * n } });
    const summary = (n: number) => ({ text: '<analysis>Short.</analysis>\n<summary>The user asked for answers; they were given.</summary>', ...at(0, n) });
    const text = await capture('compact', [
      { text: 'Answer one.', ...at(150_000, 1) }, { text: 'Answer two.', ...at(850_000, 2) }, summary(3),
      { text: 'Answer three.', ...at(40_000, 4) }, summary(5),
      { text: 'Answer four.', ...at(45_000, 6) }, summary(7),
      { text: 'Answer five.', ...at(50_000, 8) },
    ], {}, ['one', 'two', '/compact', 'three', '/compact', 'four', '/compact', 'five']);
    expect(count(text, '"compact_boundary"')).toBe(3);
    expect(text).toContain('"isCompactSummary":true');
  }, 180_000);
});
