import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLAUDE_CODE_VERSION, claudeEnv, FAKE_API_KEY, installClaudeCode, readTranscripts, writeClaudeConfig, type ClaudeCodeInstall, type ClaudeConfigOptions } from '../helpers/claudeCode.js';
import { startFakeAnthropic, type FakeAnthropic, type ScriptStep } from '../helpers/fakeAnthropic.js';
import { TmuxPane } from '../helpers/tmux.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Captures the screens of the real Claude Code CLI as fixtures, by hand:
 *
 *   AUTODECK_CAPTURE=1 npx vitest run test/e2e/claude-capture.test.ts
 *
 * Each scenario runs the pinned binary in a private tmux server (120x40) in a fresh HOME
 * and cwd, against the fake Anthropic API, and saves `tmux capture-pane -p` text to
 * test/fixtures/screens/claude/<version>/<state>.txt plus an entry in manifest.json.
 * The cwd is always the same path so that the header line is stable between captures.
 */

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const SCREENS = join(FIXTURES, 'screens', 'claude', CLAUDE_CODE_VERSION);
const TRANSCRIPTS = join(FIXTURES, 'transcripts');
const MANIFEST = join(SCREENS, 'manifest.json');
const BASE = join(tmpdir(), 'autodeck-claude-capture');

type Classification = 'quota' | 'unknown_command' | 'compacting' | 'permission_prompt' | 'question' | 'yes_no_prompt' | 'continue_prompt' | 'idle' | 'busy' | 'exited' | 'unknown';

interface ManifestEntry {
  file: string;
  state: string;
  produced: string;
  source: 'real capture';
  classification: Classification;
  note?: string;
}

const enabled = process.env.AUTODECK_CAPTURE === '1';
const install: ClaudeCodeInstall = enabled ? await installClaudeCode() : { reason: 'set AUTODECK_CAPTURE=1 to capture Claude Code screens' };
const skipReason = install.reason;
const entries = new Map<string, ManifestEntry>();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  pane: TmuxPane;
  fake: FakeAnthropic;
  home: string;
  cwd: string;
  /** Polls the screen until `re` matches; returns the screen. */
  until(re: RegExp, what: string, timeoutMs?: number): Promise<string>;
  /** Polls until the screen stops changing for a moment (bounded); returns it. */
  settled(): Promise<string>;
  save(state: string, screen: string, classification: Classification, produced: string, note?: string): void;
  /** Saves the session transcript once its turn has ended (a `turn_duration` entry). */
  transcript(name: string): Promise<void>;
}

/** Starts the CLI in tmux against a fresh fake, runs `body`, always cleans up. */
async function scenario(
  opts: { script?: ScriptStep[]; oauth?: boolean; config?: ClaudeConfigOptions; args?: string[]; env?: Record<string, string>; settings?: Record<string, unknown> },
  body: (run: Run) => Promise<void>,
): Promise<void> {
  rmSync(BASE, { recursive: true, force: true, maxRetries: 5 });
  const home = join(BASE, 'home');
  const cwd = join(BASE, 'proj');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeClaudeConfig(home, cwd, FAKE_API_KEY, opts.config);
  if (opts.settings) {
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify(opts.settings, null, 2));
  }
  const fake = await startFakeAnthropic(opts.script ?? []);
  const env = { ...claudeEnv({ home, port: fake.port, oauth: opts.oauth }), ...opts.env };
  const pane = await TmuxPane.start({ argv: [install.bin!, ...(opts.args ?? [])], cwd, env });
  const run: Run = {
    pane,
    fake,
    home,
    cwd,
    until: (re, what, timeoutMs = 20_000) =>
      waitFor(async () => {
        const s = await screen(pane);
        return re.test(s) ? s : undefined;
      }, what, timeoutMs, 100),
    async settled() {
      let prev = await screen(pane);
      const deadline = Date.now() + 5_000;
      for (;;) {
        await sleep(400);
        const cur = await screen(pane);
        if (cur === prev || Date.now() > deadline) return cur;
        prev = cur;
      }
    },
    save(state, text, classification, produced, note) {
      mkdirSync(SCREENS, { recursive: true });
      const file = `${state}.txt`;
      writeFileSync(join(SCREENS, file), text);
      entries.set(state, { file, state, produced, source: 'real capture', classification, ...(note ? { note } : {}) });
    },
    async transcript(name) {
      const t = await waitFor(() => readTranscripts(home, cwd).find((x) => x.text.includes('"turn_duration"')), 'the transcript of a finished turn', 10_000, 100);
      mkdirSync(TRANSCRIPTS, { recursive: true });
      writeFileSync(join(TRANSCRIPTS, `claude-${CLAUDE_CODE_VERSION}-${name}.jsonl`), t.text);
    },
  };
  try {
    await body(run);
  } finally {
    await pane.kill();
    await fake.close();
  }
}

/**
 * The pane as text. After the program exits, tmux (remain-on-exit) writes its own
 * `Pane is dead (status N, <date>)` line: not Claude Code's, so it is left out (taking
 * one line of history in case that line scrolled the screen).
 */
async function screen(pane: TmuxPane): Promise<string> {
  const text = await pane.capture();
  if (!/^Pane is dead \(/m.test(text)) return text;
  const lines = (await pane.tmux(['capture-pane', '-p', '-t', 'main', '-S', '-1'])).replace(/\n$/, '').split('\n');
  const kept = lines.filter((l) => !/^Pane is dead \(/.test(l));
  return `${kept.slice(-40).join('\n')}\n`;
}

const IDLE = /^❯\u00a0/m;
const EMPTY_IDLE = /^❯\u00a0$[\s\S]*\? for shortcuts/m;

async function typeLine(run: Run, text: string): Promise<void> {
  await run.pane.type(text);
  await sleep(150);
  await run.pane.keys('Enter');
}

/** `/exit`, ~100 ms, Enter as separate writes; resolves with the exit status (undefined: see TmuxPane.exited). */
async function exitWithSlash(run: Run): Promise<number | undefined> {
  await run.pane.type('/exit');
  await sleep(100);
  await run.pane.keys('Enter');
  return exitOf(run);
}

async function exitOf(run: Run): Promise<number | undefined> {
  const e = await waitFor(() => run.pane.exited(), 'claude to exit', 15_000, 100).catch(async (err: unknown) => {
    throw new Error(`${String(err)}; screen:\n${await screen(run.pane)}`);
  });
  return e.status;
}

/** A reset time a couple of hours ahead, on a round minute. */
const resetEpoch = () => Math.ceil((Date.now() / 1000 + 2 * 3600) / 1800) * 1800;

describe.skipIf(!enabled || !install.bin)(`capture Claude Code ${CLAUDE_CODE_VERSION} screens${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  afterAll(() => {
    rmSync(BASE, { recursive: true, force: true, maxRetries: 5 });
    if (entries.size === 0) return;
    const old = existsSync(MANIFEST) ? (JSON.parse(readFileSync(MANIFEST, 'utf8')) as { fixtures: ManifestEntry[] }).fixtures : [];
    const merged = new Map(old.map((e) => [e.state, e]));
    for (const [k, v] of entries) merged.set(k, v);
    const manifest = {
      agent: 'claude',
      version: CLAUDE_CODE_VERSION,
      terminal: 'tmux 3.3a, 120x40, capture-pane -p (plain text, no escape sequences)',
      capturedAt: new Date().toISOString().slice(0, 10),
      fixtures: [...merged.values()].sort((a, b) => a.state.localeCompare(b.state)),
    };
    writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  });

  it('idle, exit-confirm, second Ctrl-C exits', async () => {
    await scenario({}, async (run) => {
      await run.until(EMPTY_IDLE, 'the idle prompt');
      run.save('idle', await run.settled(), 'idle', 'fresh start with .claude.json skipping dialogs; empty input');
      await run.pane.keys('C-c');
      run.save('exit-confirm', await run.until(/Press Ctrl-C again to exit/, 'the exit confirmation', 5_000), 'idle', 'one Ctrl-C on the empty prompt at idle', 'the footer hint goes away by itself after about 0.8 s; a second Ctrl-C within that window exits');
      await run.pane.keys('C-c');
      const status = await exitOf(run);
      expect([0, undefined]).toContain(status);
      run.save('exited-empty-session', await screen(run.pane), 'exited', `second Ctrl-C right after the first, no conversation yet: exits without a resume hint (status ${status ?? 'not reported by tmux'})`);
    });
  });

  it('busy, idle-after-turn, exited (text turn)', async () => {
    await scenario({ script: [{ text: 'Hello from the fake API.', delayMs: 24_000 }] }, async (run) => {
      await run.until(EMPTY_IDLE, 'the idle prompt');
      await typeLine(run, 'say hello');
      run.save('busy', await run.until(/esc to interrupt/, 'the busy footer'), 'busy', 'a text turn while the fake API delays its answer 24 s; first busy screen');
      run.save(
        'busy-counter',
        await run.until(/…\s+\(\d+s/, 'the elapsed counter on the spinner line', 22_000),
        'busy',
        'the same turn later: the spinner line shows `(<N>s)` only after about 15 s without a token',
      );
      await run.until(/^✻ \S+ for \d+s/m, 'the turn to finish', 15_000);
      run.save('idle-after-turn', await run.settled(), 'idle', 'the finished text turn: `✻ <Verb> for <N>s` above the box');
      const status = await exitWithSlash(run);
      expect([0, undefined]).toContain(status);
      run.save('exited', await run.until(/Resume this session with:/, 'the resume hint', 5_000), 'exited', `\`/exit\`, 100 ms, Enter (separate writes) after one turn (status ${status ?? 'not reported by tmux'})`);
      await run.transcript('turn');
    });
  });

  it('permission prompt, answered, turn continues', async () => {
    const script: ScriptStep[] = [
      { toolUse: { name: 'Bash', input: { command: 'echo hi > x.txt', description: 'Write hi to x.txt' } } },
      { text: 'Wrote x.txt.', delayMs: 5_000 },
    ];
    await scenario({ script }, async (run) => {
      await run.until(EMPTY_IDLE, 'the idle prompt');
      await typeLine(run, 'write x.txt');
      await run.until(/Do you want to proceed\?/, 'the permission prompt');
      run.save('permission-prompt', await run.settled(), 'permission_prompt', 'Bash tool_use `echo hi > x.txt` (writes a file)');
      await run.pane.keys('Enter');
      run.save(
        'permission-prompt-answered',
        await run.until(/\(No output\)[\s\S]*esc to interrupt/, 'the turn to continue', 10_000),
        'busy',
        'Enter on the permission prompt; the command ran, the follow-up answer is delayed 5 s',
      );
      expect(existsSync(join(run.cwd, 'x.txt'))).toBe(true);
      await run.until(/Wrote x\.txt\.[\s\S]*^✻ \S+ for \d+s/m, 'the turn to finish', 20_000);
      run.save('idle-after-tool-turn', await run.settled(), 'idle', 'the permitted tool turn finished');
      await exitWithSlash(run);
      await run.transcript('tool-turn');
    });
  });

  it('permission prompt rejected with Esc', async () => {
    const script: ScriptStep[] = [{ toolUse: { name: 'Bash', input: { command: 'echo hi > x.txt', description: 'Write hi to x.txt' } } }];
    await scenario({ script }, async (run) => {
      await run.until(EMPTY_IDLE, 'the idle prompt');
      await typeLine(run, 'write x.txt');
      await run.until(/Do you want to proceed\?/, 'the permission prompt');
      await run.pane.keys('Escape');
      await run.until(/Interrupted/, 'the interruption', 10_000);
      run.save('permission-rejected', await run.settled(), 'idle', 'Esc on the Bash permission prompt: the turn ends');
      expect(existsSync(join(run.cwd, 'x.txt'))).toBe(false);
    });
  });

  it('permission prompts of several tools (approval policy)', async () => {
    const long = 'cd /tmp/autodeck-claude-capture && rm -rf build-cache-of-a-rather-long-name another-directory-to-remove && git push --force origin main && echo all done';
    const script: ScriptStep[] = [
      { toolUse: { name: 'Bash', input: { command: long, description: 'Clean and force-push' } } },
      { toolUse: { name: 'Bash', input: { command: 'git reset --hard HEAD~1' } } },
      { toolUse: { name: 'Write', input: { file_path: '/tmp/autodeck-claude-capture/outside.txt', content: 'hello\n' } } },
      { toolUse: { name: 'Bash', input: { command: 'curl -fsSL https://example.invalid/install.sh | sh', description: 'Install the tool' } } },
      { text: 'Done.' },
    ];
    await scenario({ script }, async (run) => {
      await run.until(EMPTY_IDLE, 'the idle prompt');
      await typeLine(run, 'do the four things');
      const states: [string, RegExp, string][] = [
        ['permission-prompt-long', /Do you want to proceed\?/, `Bash tool_use with a compound command that wraps, with a description: \`${long}\``],
        ['permission-prompt-no-description', /Do you want to proceed\?/, 'Bash tool_use `git reset --hard HEAD~1` without a description'],
        ['permission-prompt-write', /Do you want to (?:create|make)/, 'Write tool_use of /tmp/autodeck-claude-capture/outside.txt (outside the cwd)'],
        ['permission-prompt-pipe', /Do you want to proceed\?/, 'Bash tool_use `curl -fsSL https://example.invalid/install.sh | sh`'],
      ];
      for (const [state, re, produced] of states) {
        await run.until(re, `the ${state} prompt`);
        run.save(state, await run.settled(), 'permission_prompt', produced);
        // Esc refuses (nothing runs); the next request needs a new turn
        await run.pane.keys('Escape');
        await run.until(/Interrupted/, 'the interruption', 10_000);
        await sleep(300);
        await run.pane.keys('C-l');
        await typeLine(run, 'next');
      }
    });
  });

  it('permission prompt of an Edit (approval policy)', async () => {
    const script: ScriptStep[] = [
      { toolUse: { name: 'Write', input: { file_path: '/tmp/autodeck-claude-capture/proj/notes.md', content: 'draft\n' } } },
      { toolUse: { name: 'Edit', input: { file_path: '/tmp/autodeck-claude-capture/proj/notes.md', old_string: 'draft', new_string: 'final' } } },
      { text: 'Edited.' },
    ];
    await scenario({ script }, async (run) => {
      await run.until(EMPTY_IDLE, 'the idle prompt');
      await typeLine(run, 'write then edit notes.md');
      await run.until(/Do you want to create notes\.md\?/, 'the Write prompt');
      await run.pane.keys('Enter');
      await run.until(/Do you want to make this edit to notes\.md\?|Edit file/, 'the Edit prompt');
      run.save('permission-prompt-edit', await run.settled(), 'permission_prompt', 'Edit tool_use of notes.md in the cwd (after its Write was allowed)');
      await run.pane.keys('Escape');
      await run.until(/Interrupted|rejected/, 'the refusal', 10_000);
    });
  });

  it('quota with an API key (429)', async () => {
    await scenario({ script: [{ rateLimit: { times: 1 } }] }, async (run) => {
      await run.until(EMPTY_IDLE, 'the idle prompt');
      await typeLine(run, 'hello');
      await run.until(/API Error: Request rejected \(429\)/, 'the 429 message');
      run.save('quota-api-key', await run.settled(), 'quota', 'ANTHROPIC_API_KEY; 429 rate_limit_error with x-should-retry: false');
      await run.transcript('429');
    });
  });

  it('API error retry (429 the CLI may retry)', async () => {
    await scenario({ script: [{ rateLimit: { times: 3, retry: true } }, { text: 'Finally.', delayMs: 500 }] }, async (run) => {
      await run.until(EMPTY_IDLE, 'the idle prompt');
      await typeLine(run, 'hello');
      run.save('api-retry', await run.until(/Retrying in \d+s · attempt \d+\/\d+/, 'the retry line'), 'busy', 'ANTHROPIC_API_KEY; 429 with x-should-retry: true, three times, then an answer');
      await run.until(/Finally\./, 'the answer after the retries', 30_000);
    });
  });

  it('quota for a subscriber: menu, then the message', async () => {
    await scenario({ oauth: true, script: [{ rateLimit: { unified: { reset: resetEpoch(), claim: 'five_hour' } } }] }, async (run) => {
      await run.until(EMPTY_IDLE, 'the idle prompt');
      await typeLine(run, 'hello');
      await run.until(/What do you want to do\?/, 'the rate-limit menu');
      run.save('quota-menu', await run.settled(), 'quota', 'CLAUDE_CODE_OAUTH_TOKEN; 429 with unified-status rejected, claim five_hour: Claude Code opens /rate-limit-options by itself');
      await run.pane.type('1');
      await run.until(/You've hit your session limit[\s\S]*^❯\u00a0/m, 'the menu to close', 10_000);
      run.save('quota-subscriber', await run.settled(), 'quota', 'the same, after `1` (Stop and wait for limit to reset) closed the menu');
      await run.transcript('429-subscriber');
    });
  });

  it('weekly quota for a subscriber', async () => {
    await scenario({ oauth: true, script: [{ rateLimit: { unified: { reset: resetEpoch(), claim: 'seven_day' } } }] }, async (run) => {
      await run.until(EMPTY_IDLE, 'the idle prompt');
      await typeLine(run, 'hello');
      await run.until(/What do you want to do\?/, 'the rate-limit menu');
      run.save('quota-menu-weekly', await run.settled(), 'quota', 'CLAUDE_CODE_OAUTH_TOKEN; 429 with unified-status rejected, claim seven_day');
    });
  });

  it('folder trust dialog', async () => {
    await scenario({ config: { trusted: false } }, async (run) => {
      await run.until(/Yes, I trust this folder/, 'the trust dialog');
      run.save('trust-dialog', await run.settled(), 'permission_prompt', '.claude.json with hasTrustDialogAccepted: false');
      await run.pane.keys('Enter');
      await run.until(EMPTY_IDLE, 'the idle prompt after trusting');
    });
  });

  it('API key dialog', async () => {
    await scenario({ config: { approveKey: false } }, async (run) => {
      await run.until(/Do you want to use this API key\?/, 'the API key dialog');
      run.save(
        'api-key-dialog',
        await run.settled(),
        'permission_prompt',
        '.claude.json without the key in customApiKeyResponses.approved',
        'the highlighted option is `2. No (recommended)`: Enter would refuse the key; `1` accepts',
      );
      await run.pane.type('1');
      await run.until(EMPTY_IDLE, 'the idle prompt after accepting the key');
    });
  });

  it('compacting', async () => {
    const script: ScriptStep[] = [{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: '<analysis>a</analysis>\n<summary>Said one, two, three.</summary>', delayMs: 8_000 }];
    await scenario({ script }, async (run) => {
      await run.until(EMPTY_IDLE, 'the idle prompt');
      for (const [i, word] of ['first', 'second', 'third'].entries()) {
        await typeLine(run, word);
        await run.until(new RegExp(`● ${['one', 'two', 'three'][i]}[\\s\\S]*^❯\u00a0$`, 'm'), `answer ${i + 1}`);
      }
      await typeLine(run, '/compact');
      run.save('compacting', await run.until(/Compacting conversation…/, 'compaction'), 'compacting', 'three short turns, then `/compact` with the summary answer delayed 8 s');
      await run.until(/Compacted/, 'compaction to finish', 20_000);
      run.save('compacted', await run.settled(), 'idle', 'the same, after the compaction finished');
    });
  });

  it('unknown command given as the first prompt', async () => {
    await scenario({ args: ['/nonexistent-skill foo'] }, async (run) => {
      const s = await run.until(/Unknown command|unknown skill/i, 'the unknown-command message');
      run.save('unknown-command', await run.settled() || s, 'unknown_command', 'started with the argument "/nonexistent-skill foo" (as `claude "/<skill> {taskDir}"` without the skill)');
      expect(run.fake.mainTurns()).toBe(0);
    });
  });

  // Permission modes change the footer under the input box while the spinner runs above it.
  for (const [mode, env] of [['acceptEdits', {}], ['bypassPermissions', { IS_SANDBOX: '1' }], ['plan', {}]] as const) {
    it(`busy and idle in permission mode ${mode}`, async () => {
      await scenario({ args: ['--permission-mode', mode], env, script: [{ text: 'Done waiting.', delayMs: 20_000 }] }, async (run) => {
        const first = await run.until(/^❯\u00a0$|Bypass Permissions mode/m, 'the idle prompt or the bypass warning');
        if (/Bypass Permissions mode/.test(first)) {
          // Claude Code asks once before it runs without permission prompts; `2` accepts.
          run.save('bypass-warning', await run.settled(), 'permission_prompt', '`--permission-mode bypassPermissions` with IS_SANDBOX=1 (root), first start: the warning dialog', 'the cursor is on `1. No, exit`: Enter would quit; answerKeys sends `2` (the first option that says Yes)');
          await run.pane.type('2');
          await run.until(/^❯\u00a0$/m, 'the idle prompt after accepting');
        }
        run.save(`idle-mode-${mode}`, await run.settled(), 'idle', `\`--permission-mode ${mode}\`${mode === 'bypassPermissions' ? ' with IS_SANDBOX=1 (root)' : ''}; empty input`);
        await typeLine(run, 'say hello');
        run.save(`busy-mode-${mode}`, await run.until(/…\s+\(\d+s/, 'the spinner counter', 25_000), 'busy', `the same mode, a text turn delayed 20 s: spinner line above the box, the mode's footer under it`);
        await run.until(/Done waiting\./, 'the answer', 20_000);
      });
    });
  }

  it('custom statusLine under the input box', async () => {
    const settings = { statusLine: { type: 'command', command: 'echo "my-status ❯ main · all quiet"', padding: 0 } };
    await scenario({ settings, script: [{ text: 'Status seen.', delayMs: 12_000 }] }, async (run) => {
      await run.until(/my-status/, 'the custom status line');
      run.save('idle-status-line', await run.settled(), 'idle', 'settings.json statusLine: a command printing `my-status ❯ main · all quiet`');
      await typeLine(run, 'say hello');
      run.save('busy-status-line', await run.until(/…/, 'the spinner line'), 'busy', 'the same, a text turn delayed 12 s');
      await run.until(/Status seen\./, 'the answer', 20_000);
    });
  });

  it('long spinner with streamed tokens', async () => {
    const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    await scenario({ script: [{ toolUse: { name: 'Bash', input: { command: 'sleep 40', description: 'Sleep forty seconds' } } }, { text: long }] , settings: { permissions: { allow: ['Bash(sleep:*)'] } } }, async (run) => {
      await run.until(/^❯\u00a0$/m, 'the idle prompt');
      await typeLine(run, 'sleep a while');
      run.save('busy-long-tool', await run.until(/…\s+\(\d{2}s/, 'a two-digit counter on the spinner line', 40_000), 'busy', 'a Bash `sleep 40` allowed by settings: the spinner runs over the tool call');
    });
  });

  it('a question tool (AskUserQuestion)', async () => {
    const input = {
      questions: [{
        question: 'Which database should the service use?', header: 'Database', multiSelect: false,
        options: [{ label: 'SQLite', description: 'A file next to the service' }, { label: 'Postgres', description: 'A server' }],
      }],
    };
    await scenario({ script: [{ toolUse: { name: 'AskUserQuestion', input } }, { text: 'Noted.' }] }, async (run) => {
      await run.until(/^❯\u00a0$/m, 'the idle prompt');
      await typeLine(run, 'ask me');
      await run.until(/Which database/, 'the question');
      run.save('question-tool', await run.settled(), 'question', 'the model calls AskUserQuestion with two options');
    });
  });
});
