import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GEMINI_VERSION, geminiEnv, geminiSessions, installGemini, writeGeminiConfig, type GeminiConfigOptions } from '../helpers/geminiCli.js';
import { startFakeGemini, type FakeGemini, type GeminiStep } from '../helpers/fakeGemini.js';
import type { NpmAgentInstall } from '../helpers/npmAgent.js';
import { FixtureSet, settled, startTerminal, typeLine, until, type Expected, type Terminal } from '../helpers/screenCapture.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Captures the screens of the real Gemini CLI as fixtures, by hand:
 *
 *   AUTODECK_CAPTURE=1 npx vitest run test/e2e/gemini-capture.test.ts
 *
 * Each scenario runs the pinned CLI in a private tmux server (120x40) or through autodeck's
 * own PTY backend, in a fresh HOME and cwd (always the same path), against the fake Gemini
 * API of test/helpers/fakeGemini.ts (GEMINI_API_KEY + GOOGLE_GEMINI_BASE_URL), and saves
 * the screen to test/fixtures/screens/gemini/<version>/<state>.txt with an entry in
 * manifest.json.
 */

const SCREENS = fileURLToPath(new URL(`../fixtures/screens/gemini/${GEMINI_VERSION}/`, import.meta.url));
const SESSIONS = fileURLToPath(new URL('../fixtures/transcripts/', import.meta.url));
const BASE = join(tmpdir(), 'autodeck-gemini-capture');
const enabled = process.env.AUTODECK_CAPTURE === '1';
const install: NpmAgentInstall = enabled ? await installGemini() : { reason: 'set AUTODECK_CAPTURE=1 to capture Gemini CLI screens' };
const fixtures = new FixtureSet(SCREENS, 'gemini', GEMINI_VERSION);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  term: Terminal;
  fake: FakeGemini;
  home: string;
  cwd: string;
  until(re: RegExp, what: string, timeoutMs?: number): Promise<string>;
  settled(): Promise<string>;
  save(state: string, screen: string, classification: Expected, produced: string, extra?: { note?: string; structured?: string }): void;
}

interface ScenarioOptions {
  script?: GeminiStep[];
  config?: GeminiConfigOptions;
  /** No GEMINI_API_KEY in the environment. */
  noKey?: boolean;
  args?: string[];
  terminal?: 'tmux' | 'pty';
}

async function scenario(opts: ScenarioOptions, body: (run: Run) => Promise<void>): Promise<void> {
  rmSync(BASE, { recursive: true, force: true, maxRetries: 5 });
  const home = join(BASE, 'home');
  const cwd = join(BASE, 'proj');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const fake = await startFakeGemini(opts.script ?? []);
  writeGeminiConfig(home, cwd, opts.config);
  const env = geminiEnv({ home, port: fake.port, apiKey: !opts.noKey });
  const term = await startTerminal(opts.terminal ?? 'tmux', { argv: [install.bin!, ...(opts.args ?? [])], cwd, env });
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

/** The input box, empty. */
const INPUT = /^ > {3}Type your message/m;

/**
 * Types a line and Enter, then makes sure it went: right after its start the CLI may take
 * the text but not yet the Enter (seen here: the text stayed in the box), so Enter again.
 */
async function submit(run: Run, text: string): Promise<void> {
  const before = run.fake.mainTurns();
  await typeLine(run.term, text);
  for (let i = 0; i < 20; i++) {
    // sent: a request reached the fake, or the turn (a spinner, a dialog) has begun
    const sent = await waitFor(async () => run.fake.mainTurns() > before || /esc to cancel|Allow execution|Keep trying|Apply this change/.test(await run.term.screen()), 'the line to be sent', 2_000, 100).then(() => true, () => false);
    if (sent) return;
    await run.term.keys('Enter');
  }
}

/** Presses `keys` until `gone` no longer matches the screen (a key may be lost while the CLI is busy starting). */
async function press(run: Run, keys: string[], gone: RegExp): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await run.term.keys(...keys);
    const ok = await waitFor(async () => !gone.test(await run.term.screen()), 'the key to be taken', 2_000, 100).then(() => true, () => false);
    if (ok) return;
  }
  throw new Error(`${keys.join(' ')} was not taken:\n${await run.term.screen()}`);
}

async function quit(run: Run): Promise<number | undefined> {
  await run.term.type('/quit');
  await sleep(300);
  await run.term.keys('Enter');
  const e = await waitFor(() => run.term.exited(), 'gemini to exit', 20_000, 100);
  return e.status;
}

describe.skipIf(!enabled || !install.bin)(`capture Gemini CLI ${GEMINI_VERSION} screens${install.reason ? ` (skipped: ${install.reason})` : ''}`, { timeout: 240_000 }, () => {
  afterAll(() => {
    rmSync(BASE, { recursive: true, force: true, maxRetries: 5 });
    fixtures.writeManifest();
  });

  for (const terminal of ['tmux', 'pty'] as const) {
    const sfx = terminal === 'pty' ? '-pty' : '';
    it(`start, busy before the answer, idle after it, exit (${terminal})`, async () => {
      await scenario({ terminal, script: [{ text: 'Hello from the fake API.', delayMs: 10_000 }] }, async (run) => {
        await run.until(INPUT, 'the input box');
        run.save(`idle-start${sfx}`, await run.settled(), 'idle', 'a fresh start with API-key auth chosen and the folder trusted: the logo above the empty input box');
        await submit(run, 'say hello');
        run.save(`busy-thinking${sfx}`, await run.until(/esc to cancel, \d+s\)/, 'the spinner'), 'busy', 'a text turn while the fake API delays its answer 10 s: the spinner line above the input box');
        await run.until(/Hello from the fake API\.[\s\S]*Type your message/, 'the answer', 30_000);
        run.save(`idle-after-turn${sfx}`, await run.settled(), 'idle', 'the turn ended');
        const status = await quit(run);
        expect([0, undefined]).toContain(status);
        run.save(`exited${sfx}`, await run.term.screen(), 'exited', `\`/quit\`, 300 ms, Enter (separate writes) (status ${status ?? 'not reported'})`);
      });
    });
  }

  it('an answer that pauses 8 s mid-stream', async () => {
    const text = 'Let me think about this carefully before I answer, and then I will tell you what I found.';
    await scenario({ script: [{ text, pause: { afterChars: 30, ms: 8_000 } }] }, async (run) => {
      await run.until(INPUT, 'the input box');
      await run.settled();
      await submit(run, 'think');
      await run.until(/Let me think about this carefu/, 'the first part of the answer');
      await sleep(2_000);
      run.save('busy-streaming-pause', await run.term.screen(), 'busy', 'the model streamed 30 characters, then paused 8 s', {
        structured: 'session file: the last message is the user\'s (busy)',
      });
      await run.until(/what I found\./, 'the end of the answer', 20_000);
      await run.settled();
      writeSession(run, 'turn');
    });
  });

  it('shell approval: Enter (allow once), `2` (this session) and Esc, each checked on disk', async () => {
    const shell = (name: string): GeminiStep => ({ call: { name: 'run_shell_command', args: { command: `echo hi > ${name}.txt`, description: `Write ${name}.txt` } } });
    const long = 'printf \'%s\\n\' "first line of a rather long report" "second line of the same report" "third line" > report-of-a-long-name.txt && git status --short && echo all done';
    const script: GeminiStep[] = [
      shell('once'), { text: 'Wrote once.txt.' },
      { call: { name: 'run_shell_command', args: { command: 'touch session.txt', description: 'Touch session.txt' } } }, { text: 'Touched.' },
      // Esc cancels the turn: no request follows a refusal
      shell('refused'),
      { call: { name: 'run_shell_command', args: { command: long, description: 'Write the report' } } },
      { call: { name: 'write_file', args: { file_path: join(BASE, 'proj', 'notes.md'), content: 'hello\n' } } },
    ];
    await scenario({ script }, async (run) => {
      await run.until(INPUT, 'the input box');
      await run.settled();
      await submit(run, 'write once.txt');
      await run.until(/Allow execution of[\s\S]*1\. Allow once/, 'the approval prompt');
      run.save('approval-shell', await run.settled(), 'permission_prompt', 'run_shell_command `echo hi > once.txt`: the command in a box inside the dialog');
      await run.term.keys('Enter');
      await run.until(/Wrote once\.txt\./, 'the turn to end');
      run.save('approval-approved', await run.settled(), 'idle', 'Enter (1. Allow once): the command ran, the turn ended');
      expect(readFileSync(join(run.cwd, 'once.txt'), 'utf8')).toBe('hi\n');

      await submit(run, 'touch session.txt');
      await run.until(/Allow execution of[\s\S]*1\. Allow once/, 'the second approval prompt');
      await run.term.type('2');
      await run.until(/Touched\./, 'the second turn to end');
      expect(existsSync(join(run.cwd, 'session.txt'))).toBe(true);

      await submit(run, 'write refused.txt');
      await run.until(/refused\.txt[\s\S]*Allow execution of[\s\S]*1\. Allow once/, 'the third approval prompt');
      await run.term.keys('Escape');
      await sleep(1_500);
      run.save('approval-refused', await run.settled(), 'idle', 'Esc (3. No, suggest changes): the command did not run');
      expect(existsSync(join(run.cwd, 'refused.txt'))).toBe(false);

      await submit(run, 'write the report');
      await run.until(/Allow execution of[\s\S]*1\. Allow once/, 'the long approval prompt');
      run.save('approval-shell-long', await run.settled(), 'permission_prompt', `run_shell_command with a command that wraps in the dialog's box: \`${long}\``);
      await run.term.keys('Escape');
      await sleep(1_500);

      await submit(run, 'write notes.md');
      await run.until(/Apply this change\?|Allow|notes\.md[\s\S]*1\. /, 'the write prompt');
      run.save('approval-write', await run.settled(), 'permission_prompt', 'write_file of notes.md in the project');
      await run.term.keys('Escape');
      await sleep(1_000);
      expect(existsSync(join(run.cwd, 'notes.md'))).toBe(false);
      writeSession(run, 'approvals');
    });
  });

  it('approval prompt through autodeck\'s PTY', async () => {
    await scenario({ terminal: 'pty', script: [{ call: { name: 'run_shell_command', args: { command: 'echo hi > pty.txt', description: 'Write pty.txt' } } }, { text: 'Done.' }] }, async (run) => {
      await run.until(INPUT, 'the input box');
      await run.settled();
      await submit(run, 'write pty.txt');
      await run.until(/Allow execution of[\s\S]*1\. Allow once/, 'the approval prompt');
      run.save('approval-shell-pty', await run.settled(), 'permission_prompt', 'run_shell_command `echo hi > pty.txt`, read through autodeck\'s PTY emulator');
      await run.term.keys('Enter');
      await run.until(/Done\./, 'the turn to end');
      expect(existsSync(join(run.cwd, 'pty.txt'))).toBe(true);
    });
  });

  it('usage limit: the quota dialog, Keep trying while limited, then after the limit lifts', async () => {
    const lifts = Date.now() + 25_000;
    const script: GeminiStep[] = [
      { quota: { quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier', message: 'You exceeded your current quota, please check your plan and billing details.' }, untilMs: lifts },
      { text: 'Back to work after the limit.' },
    ];
    await scenario({ script }, async (run) => {
      await run.until(INPUT, 'the input box');
      await run.settled();
      await submit(run, 'work');
      await run.until(/Usage limit reached[\s\S]*Keep trying/, 'the quota dialog');
      run.save('quota-dialog', await run.settled(), 'quota', 'HTTP 429 RESOURCE_EXHAUSTED with a per-day QuotaFailure (API key): the dialog, no reset time', {
        note: 'answered `Keep trying` when autodeck probes; text typed now dismisses it without a retry',
      });
      await run.term.keys('Enter');
      await run.until(/Usage limit reached[\s\S]*Keep trying/, 'the dialog again (still limited)');
      await waitFor(() => Date.now() > lifts, 'the limit to lift', 40_000, 200);
      await run.term.keys('Enter');
      await run.until(/Back to work after the limit\./, 'the answer after the limit');
      run.save('quota-lifted', await run.settled(), 'idle', '`Keep trying` after the limit lifted: the answer, the dialog gone');
    });
  });

  it('usage limit: Stop leaves the message in the history', async () => {
    await scenario({ script: [{ quota: { quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier', message: 'You exceeded your current quota.' } }, { text: 'Working again.' }] }, async (run) => {
      await run.until(INPUT, 'the input box');
      await run.settled();
      await submit(run, 'work');
      await run.until(/Keep trying/, 'the quota dialog');
      await run.term.keys('Down');
      await run.until(/● 2\. Stop/, 'the cursor on Stop');
      await press(run, ['Enter'], /● 2\. Stop/);
      await run.until(INPUT, 'the input box after Stop');
      run.save('quota-stopped', await run.settled(), 'quota', '`2. Stop` on the quota dialog: the error the history keeps');
      await submit(run, 'Please continue with the task from where you left off.');
      await run.until(/Working again\./, 'the next answer');
      run.save('quota-history', await run.settled(), 'idle', 'the next turn answered: the old limit lines are history');
    });
  });

  it('usage limit with a reset time (retry delay over five minutes)', async () => {
    await scenario({ script: [{ quota: { retryDelay: '600s', message: 'Quota exceeded for quota metric \'Generate Content API requests per day\'.' } }] }, async (run) => {
      await run.until(INPUT, 'the input box');
      await run.settled();
      await submit(run, 'work');
      const s = await run.until(/Usage limit reached|resets at|Keep trying|Stop/i, 'the quota dialog');
      run.save('quota-dialog-reset', await run.settled() || s, 'quota', 'HTTP 429 with RetryInfo 600s: a terminal quota with its reset time');
    });
  });

  it('rate-limit retries (a retryable 429): the CLI waits by itself', async () => {
    await scenario({ script: [{ quota: { retryDelay: '8s', reason: 'RATE_LIMIT_EXCEEDED', message: 'Please retry in 8s.' } }, { text: 'Answered after the retry.' }] }, async (run) => {
      await run.until(INPUT, 'the input box');
      await run.settled();
      await submit(run, 'retry');
      await sleep(4_000);
      run.save('retry-waiting', await run.term.screen(), 'busy', 'HTTP 429 with RetryInfo 8s: the spinner runs while the CLI waits to retry');
      await run.until(/Answered after the retry\./, 'the answer after the retry', 40_000);
    });
  });

  it('an unknown slash command', async () => {
    await scenario({ script: [{ text: 'There is no such command here.' }] }, async (run) => {
      await run.until(INPUT, 'the input box');
      await run.settled();
      await submit(run, '/nonexistent-command');
      await run.until(/There is no such command here\./, 'the answer');
      run.save('unknown-command', await run.settled(), 'idle', 'typed `/nonexistent-command` and Enter', {
        note: 'this version sends a slash command it does not know to the model as a prompt: no notice of its own',
      });
    });
  });

  it('first-run dialogs: trust, sign-in, API key', async () => {
    await scenario({ config: { trusted: false } }, async (run) => {
      await run.until(/Do you trust the files in this folder\?/, 'the trust dialog');
      run.save('trust-dialog', await run.settled(), 'question', 'the folder not in trustedFolders.json', { note: 'trusting writes trustedFolders.json: a person decides' });
    });
    await scenario({ config: { authChosen: false } }, async (run) => {
      await run.until(/How would you like to authenticate[\s\S]*Existing API key detected/, 'the sign-in dialog');
      run.save('auth-dialog', await run.settled(), 'continue_prompt', 'no auth type in settings.json, GEMINI_API_KEY set: the cursor is on `Use Gemini API Key`', {
        note: 'the key in the environment is the user\'s choice: Enter takes it',
      });
      await press(run, ['Enter'], /How would you like to authenticate/);
      const s = await run.until(/Enter Gemini API Key|Type your message/, 'the API-key dialog or the input box');
      if (/Enter Gemini API Key/.test(s)) {
        run.save('api-key-prefilled', await run.settled(), 'continue_prompt', 'the next dialog: the key from GEMINI_API_KEY already in its box', { note: 'Enter submits the user\'s own key' });
        await press(run, ['Enter'], /Enter Gemini API Key/);
      }
      await run.until(INPUT, 'the input box after signing in');
    });
    await scenario({ config: { authChosen: true }, noKey: true }, async (run) => {
      const s = await run.until(/API Key|api key/i, 'the API-key dialog');
      run.save('api-key-dialog', await run.settled() || s, 'question', 'API-key auth chosen in settings.json, no GEMINI_API_KEY');
    });
  });
});

function writeSession(run: Run, name: string): void {
  const s = geminiSessions(run.home).at(-1);
  if (!s) return;
  mkdirSync(SESSIONS, { recursive: true });
  writeFileSync(join(SESSIONS, `gemini-${GEMINI_VERSION}-${name}.jsonl`), s.text);
}
