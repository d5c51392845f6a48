import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODEX_VERSION, codexEnv, codexRollouts, installCodex, writeCodexConfig } from '../helpers/codexCli.js';
import { startFakeOpenAI, type FakeOpenAI, type OpenAIStep, type UsageWindow } from '../helpers/fakeOpenAI.js';
import type { NpmAgentInstall } from '../helpers/npmAgent.js';
import { FixtureSet, settled, startTerminal, typeLine, until, type Expected, type Terminal } from '../helpers/screenCapture.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Captures the screens of the real Codex CLI as fixtures, by hand:
 *
 *   AUTODECK_CAPTURE=1 npx vitest run test/e2e/codex-capture.test.ts
 *
 * Each scenario runs the pinned CLI (`codex --no-daemon`, as autodeck starts it) in a
 * private tmux server (120x40) or through autodeck's own PTY backend, in a fresh HOME and
 * cwd (always the same path, so the header is stable), against the fake Responses API of
 * test/helpers/fakeOpenAI.ts, and saves the screen to
 * test/fixtures/screens/codex/<version>/<state>.txt with an entry in manifest.json.
 */

const SCREENS = fileURLToPath(new URL(`../fixtures/screens/codex/${CODEX_VERSION}/`, import.meta.url));
const ROLLOUTS = fileURLToPath(new URL('../fixtures/transcripts/', import.meta.url));
const BASE = join(tmpdir(), 'autodeck-codex-capture');
const enabled = process.env.AUTODECK_CAPTURE === '1';
const install: NpmAgentInstall = enabled ? await installCodex() : { reason: 'set AUTODECK_CAPTURE=1 to capture Codex CLI screens' };
const fixtures = new FixtureSet(SCREENS, 'codex', CODEX_VERSION);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  term: Terminal;
  fake: FakeOpenAI;
  home: string;
  cwd: string;
  until(re: RegExp, what: string, timeoutMs?: number): Promise<string>;
  settled(): Promise<string>;
  save(state: string, screen: string, classification: Expected, produced: string, extra?: { note?: string; structured?: string }): void;
}

interface ScenarioOptions {
  script?: OpenAIStep[];
  window?: UsageWindow;
  trusted?: boolean;
  /** No provider config at all: Codex's own first-run sign-in. */
  noConfig?: boolean;
  args?: string[];
  terminal?: 'tmux' | 'pty';
  /** The cwd is a git repository (Codex asks about trust only there). */
  git?: boolean;
}

async function scenario(opts: ScenarioOptions, body: (run: Run) => Promise<void>): Promise<void> {
  rmSync(BASE, { recursive: true, force: true, maxRetries: 5 });
  const home = join(BASE, 'home');
  const cwd = join(BASE, 'proj');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  if (opts.git) execFileSync('git', ['init', '-q', cwd]);
  const fake = await startFakeOpenAI(opts.script ?? [], { window: opts.window });
  if (!opts.noConfig) writeCodexConfig(home, cwd, { baseUrl: fake.baseUrl, trusted: opts.trusted });
  const env = codexEnv({ home, port: fake.port });
  const term = await startTerminal(opts.terminal ?? 'tmux', { argv: [install.bin!, '--no-daemon', ...(opts.args ?? [])], cwd, env });
  const run: Run = {
    term, fake, home, cwd,
    until: (re, what, timeoutMs) => until(term, re, what, timeoutMs),
    settled: () => settled(term),
    save: (state, screen, classification, produced, extra) => fixtures.save(state, screen, { terminal: term.kind, classification, produced, ...extra }),
  };
  try {
    await body(run);
  } finally {
    await term.kill();
    await fake.close();
  }
}

/** The composer, empty: Codex waits for the user. */
const COMPOSER = /^› (?:Ask Codex to do anything|Find and fix a bug|Explain this codebase|Write tests for|Improve documentation|Summarize recent commits|Implement|Run \/review|Use \/skills)/m;
const IDLE_AFTER_TURN = /Worked for [^\n]*\n[\s\S]*^› /m;

async function quit(run: Run): Promise<number | undefined> {
  await run.term.type('/quit');
  await sleep(150);
  await run.term.keys('Enter');
  const e = await waitFor(() => run.term.exited(), 'codex to exit', 15_000, 100);
  return e.status;
}

describe.skipIf(!enabled || !install.bin)(`capture Codex CLI ${CODEX_VERSION} screens${install.reason ? ` (skipped: ${install.reason})` : ''}`, { timeout: 240_000 }, () => {
  afterAll(() => {
    rmSync(BASE, { recursive: true, force: true, maxRetries: 5 });
    fixtures.writeManifest();
  });

  for (const terminal of ['tmux', 'pty'] as const) {
    const sfx = terminal === 'pty' ? '-pty' : '';
    it(`start, busy before the answer, idle after it, exit (${terminal})`, async () => {
      await scenario({ terminal, script: [{ text: 'Hello from the fake API.', delayMs: 12_000 }] }, async (run) => {
        await run.until(COMPOSER, 'the composer');
        run.save(`idle-start${sfx}`, await run.settled(), 'idle', 'a fresh start: the logo (braille art) above the empty composer');
        await typeLine(run.term, 'say hello');
        run.save(`busy-working${sfx}`, await run.until(/Working \(\d+s • esc to interrupt\)/, 'the status line'), 'busy', 'a text turn while the fake API delays its answer 12 s: the status line above the composer');
        await run.until(IDLE_AFTER_TURN, 'the turn to end', 30_000);
        run.save(`idle-after-turn${sfx}`, await run.settled(), 'idle', 'the turn ended: `Worked for <N>s • <time>` under the answer');
        const status = await quit(run);
        expect([0, undefined]).toContain(status);
        run.save(`exited${sfx}`, await run.term.screen(), 'exited', `\`/quit\`, 150 ms, Enter (separate writes) (status ${status ?? 'not reported'})`);
      });
    });
  }

  it('an answer that pauses 8 s mid-stream: the status line is hidden', async () => {
    const text = 'Let me think about this carefully before I answer, and then I will tell you what I found.';
    await scenario({ script: [{ text, pause: { afterChars: 30, ms: 8_000 } }] }, async (run) => {
      await run.until(COMPOSER, 'the composer');
      await typeLine(run.term, 'think');
      await run.until(/Let me think about this carefu/, 'the first part of the answer');
      await sleep(2_000);
      const mid = await run.term.screen();
      const rollout = codexRollouts(run.home).map((r) => r.text).join('');
      expect(rollout).toContain('"task_started"');
      expect(rollout).not.toContain('"task_complete"');
      run.save('busy-streaming-pause', mid, 'busy', 'the model streamed 30 characters, then paused 8 s: no status line while the answer streams', {
        structured: 'rollout: task_started without task_complete (busy)',
        note: 'the screen alone differs from idle only by the missing `Worked for` line under the answer',
      });
      await run.until(/what I found\.[\s\S]*Worked for/, 'the end of the answer', 20_000);
      run.save('idle-after-pause', await run.settled(), 'idle', 'the same answer, ended');
      writeRollout(run, 'turn');
    });
  });

  it('approval prompt: y, Enter, p and Esc, each checked on disk', async () => {
    const write = (name: string): OpenAIStep => ({ exec: { cmd: `echo hi > ${name}.txt`, escalate: true, justification: `Write ${name}.txt outside the sandbox?` } });
    const long = 'printf \'%s\\n\' "first line of a rather long report" "second line of the same report" "third line" > report-of-a-long-name.txt && git status --short && echo all done';
    const script: OpenAIStep[] = [
      write('yes'), { text: 'Wrote yes.txt.' },
      write('enter'), { text: 'Wrote enter.txt.' },
      write('prefix'), { text: 'Wrote prefix.txt.' },
      write('refused'),
      { exec: { cmd: long, escalate: true, justification: 'Write the report?' } },
    ];
    await scenario({ script }, async (run) => {
      await run.until(COMPOSER, 'the composer');
      await typeLine(run.term, 'write yes.txt');
      await run.until(/Would you like to run the following command\?[\s\S]*Press enter to confirm/, 'the approval prompt');
      run.save('approval-exec', await run.settled(), 'permission_prompt', 'exec_command `echo hi > yes.txt` with sandbox_permissions require_escalated and a justification');
      await run.term.type('y');
      await run.until(/Wrote yes\.txt\.[\s\S]*Worked for/, 'the turn to end');
      run.save('approval-approved', await run.settled(), 'idle', '`y` on the approval prompt: the command ran, the turn ended');
      expect(readFileSync(join(run.cwd, 'yes.txt'), 'utf8')).toBe('hi\n');

      await typeLine(run.term, 'write enter.txt');
      await run.until(/Would you like to run the following command\?[\s\S]*enter\.txt[\s\S]*Press enter to confirm/, 'the second approval prompt');
      await run.term.keys('Enter');
      await run.until(/Wrote enter\.txt\./, 'the second turn to end');
      expect(readFileSync(join(run.cwd, 'enter.txt'), 'utf8')).toBe('hi\n');

      await typeLine(run.term, 'write prefix.txt');
      await run.until(/Would you like to run the following command\?[\s\S]*prefix\.txt[\s\S]*Press enter to confirm/, 'the third approval prompt');
      await run.term.type('p');
      await run.until(/Wrote prefix\.txt\./, 'the third turn to end');
      expect(readFileSync(join(run.cwd, 'prefix.txt'), 'utf8')).toBe('hi\n');
      // `p` keeps a rule in the user's own Codex files: autodeck never presses it
      const rules = join(run.home, '.codex', 'rules', 'default.rules');
      const kept = existsSync(rules) ? readFileSync(rules, 'utf8') : '';
      run.save('approval-prefix-kept', await run.settled(), 'idle', '`p` (don\'t ask again for commands that start with …) on the approval prompt', {
        note: kept ? `Codex wrote ${JSON.stringify(kept.trim())} to ~/.codex/rules/default.rules: a change to the user's own settings` : 'no rules file was written',
      });

      await typeLine(run.term, 'write refused.txt');
      await run.until(/Would you like to run the following command\?[\s\S]*refused\.txt[\s\S]*Press enter to confirm/, 'the fourth approval prompt');
      await run.term.keys('Escape');
      await run.until(/^› (?!write)/m, 'the composer after the refusal');
      run.save('approval-refused', await run.settled(), 'idle', 'Esc on the approval prompt: the command did not run, the turn ended');
      expect(existsSync(join(run.cwd, 'refused.txt'))).toBe(false);

      await typeLine(run.term, 'write the report');
      await run.until(/Would you like to run the following command\?[\s\S]*Press enter to confirm/, 'the long approval prompt');
      run.save('approval-exec-long', await run.settled(), 'permission_prompt', `exec_command with a command that wraps at 120 columns: \`${long}\``);
      await run.term.keys('Escape');
      await sleep(500);
      writeRollout(run, 'approvals');
    });
  });

  it('approval prompt through autodeck\'s PTY', async () => {
    await scenario({ terminal: 'pty', script: [{ exec: { cmd: 'echo hi > pty.txt', escalate: true, justification: 'Write pty.txt?' } }, { text: 'Done.' }] }, async (run) => {
      await run.until(COMPOSER, 'the composer');
      await typeLine(run.term, 'write pty.txt');
      await run.until(/Would you like to run the following command\?[\s\S]*Press enter to confirm/, 'the approval prompt');
      run.save('approval-exec-pty', await run.settled(), 'permission_prompt', 'exec_command `echo hi > pty.txt` (escalated), read through autodeck\'s PTY emulator');
      await run.term.type('y');
      await run.until(/Done\./, 'the turn to end');
      expect(existsSync(join(run.cwd, 'pty.txt'))).toBe(true);
    });
  });

  it('usage warning and the switch-model menu', async () => {
    const window: UsageWindow = { usedPercent: 92, windowMinutes: 300, resetAt: Math.floor(Date.now() / 1000) + 3 * 3600 };
    await scenario({ window, script: [{ text: 'Plenty done.', delayMs: 500 }] }, async (run) => {
      await run.until(COMPOSER, 'the composer');
      await typeLine(run.term, 'go on');
      const menu = await run.until(/Approaching rate limits[\s\S]*Keep current model/, 'the switch-model menu', 30_000);
      run.save('rate-limit-nudge', await run.settled() || menu, 'continue_prompt', 'rate-limit headers at 92 % used of a 5 h window: at the turn\'s end Codex offers another model', {
        note: 'Esc dismisses it and changes nothing; option 3 would change the user\'s settings',
      });
      await run.term.keys('Escape');
      await run.until(/5h limit: \d+% left/, 'the usage footer');
      run.save('usage-warning', await run.settled(), 'idle', 'the same after Esc: `⚠ Heads up …` in the history and `⚠ 5h limit: 8% left · resets at <time> · /status` above the composer');
    });
  });

  it('usage limit, and the loop after the reset', async () => {
    const resetsAt = Math.floor(Date.now() / 1000) + 100;
    const window: UsageWindow = { usedPercent: 60, windowMinutes: 300, resetAt: resetsAt };
    await scenario({ window, script: [{ usageLimit: { resetsAt } }, { text: 'Back to work after the limit.' }] }, async (run) => {
      await run.until(COMPOSER, 'the composer');
      await typeLine(run.term, 'work');
      await run.until(/hit your usage limit[\s\S]*try again at/, 'the usage-limit message');
      run.save('usage-limit', await run.settled(), 'quota', 'HTTP 429 `usage_limit_reached` with `resets_at` 100 s ahead: `■ You’ve hit your usage limit … try again at <h:mm> PM.`', {
        structured: 'rollout: task_complete with error.codex_error_info usage_limit_exceeded',
      });
      const later = await run.settled();
      if (/Keep current model|Switch to/.test(later)) {
        run.save('usage-limit-menu', later, 'quota', 'the switch-model menu under the limit message', { note: 'text typed now goes into the menu and is lost: Esc first' });
        await run.term.keys('Escape');
        await run.until(COMPOSER, 'the composer after Esc');
      }
      await typeLine(run.term, 'Please continue with the task from where you left off.');
      await run.until(/Back to work after the limit\.[\s\S]*Worked for/, 'the answer after the limit');
      run.save('usage-limit-history', await run.settled(), 'idle', 'the next turn answered: the old limit message stays above the new prompt and answer (history, not a new stop)');
      writeRollout(run, 'usage-limit');
    });
  });

  it('rate-limit retries (429 without a usage-limit body)', async () => {
    await scenario({ script: [{ tooManyRequests: true, times: 2 }, { text: 'Answered after two retries.' }, { tooManyRequests: true, times: 3 }] }, async (run) => {
      await run.until(COMPOSER, 'the composer');
      await typeLine(run.term, 'retry');
      run.save('retry-reconnecting', await run.until(/reconnecting \d+\/\d+[\s\S]*esc to interrupt/, 'the reconnecting status'), 'busy', 'HTTP 429 twice (request_max_retries = 2): the status line and the last error under it');
      await run.until(/Answered after two retries\.[\s\S]*Worked for/, 'the answer after the retries');
      await typeLine(run.term, 'retry again');
      await run.until(/Exceeded retry limit, last status: 429[\s\S]*^› /m, 'the final error', 30_000);
      run.save('retry-exhausted', await run.settled(), 'quota', 'HTTP 429 three times: the retries gave up (`■ exceeded retry limit, last status: 429 Too Many Requests`)');
    });
  });

  it('an interrupted turn', async () => {
    await scenario({ script: [{ text: 'Too slow.', delayMs: 20_000 }] }, async (run) => {
      await run.until(COMPOSER, 'the composer');
      await typeLine(run.term, 'slow');
      await run.until(/esc to interrupt/, 'the status line');
      await run.term.keys('Escape');
      await run.until(/interrupted/i, 'the interruption');
      run.save('interrupted', await run.settled(), 'idle', 'Esc while the status line ran');
    });
  });

  it('an unknown slash command', async () => {
    await scenario({}, async (run) => {
      await run.until(COMPOSER, 'the composer');
      await typeLine(run.term, '/nonexistent-command');
      run.save('unknown-command', await run.settled(), 'unknown_command', 'typed `/nonexistent-command` and Enter');
    });
  });

  it('first-run dialogs: an untrusted project, no provider', async () => {
    await scenario({ trusted: false, git: true }, async (run) => {
      const s = await run.until(/trust|Trust/, 'the trust screen');
      run.save('trust-dialog', await run.settled() || s, 'question', 'config.toml without the project\'s trust_level', { note: 'trusting writes trust_level to the user\'s config.toml: a person decides' });
    });
    await scenario({ noConfig: true, git: true }, async (run) => {
      const s = await run.until(/Sign in|API key|ChatGPT/i, 'the sign-in screen');
      run.save('sign-in', await run.settled() || s, 'question', 'no config.toml and no credentials: Codex\'s own first-run sign-in');
    });
  });
});

function writeRollout(run: Run, name: string): void {
  const r = codexRollouts(run.home).at(-1);
  if (!r) return;
  mkdirSync(ROLLOUTS, { recursive: true });
  writeFileSync(join(ROLLOUTS, `codex-${CODEX_VERSION}-${name}.jsonl`), r.text);
}
