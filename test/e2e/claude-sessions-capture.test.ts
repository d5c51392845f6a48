import { afterAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeVersionsUnderTest, installClaudeCode, type ClaudeCodeInstall } from '../helpers/claudeCode.js';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fakeAnthropic.js';
import { startClaudeBg, type ClaudeAgent, type ClaudeBg } from '../helpers/claudeBackground.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { TmuxPane } from '../helpers/tmux.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Captures what Claude Code says about its own sessions, by hand, as fixtures:
 *
 *   AUTODECK_CAPTURE=1 AUTODECK_CLAUDE_VERSION=newest npx vitest run test/e2e/claude-sessions-capture.test.ts
 *
 * In a throwaway HOME against the fake API: background sessions idle, waiting on a
 * permission, asking a question, at a usage limit (API key and subscriber), busy, stopped,
 * and an interactive one in tmux. Saved unedited under test/fixtures/claude-sessions/<version>/:
 * `claude agents --json --all` as each scenario left it, each job's state.json, each running
 * session's sessions/<pid>.json, and what `claude --bg` printed. The daemon and every process
 * of that HOME are gone at the end.
 */

const VERSION = claudeVersionsUnderTest()[0]!;
const OUT = fileURLToPath(new URL(`../fixtures/claude-sessions/${VERSION}/`, import.meta.url));
const enabled = process.env.AUTODECK_CAPTURE === '1';
const install: ClaudeCodeInstall = enabled ? await installClaudeCode(VERSION) : { version: VERSION, reason: 'set AUTODECK_CAPTURE=1 to capture' };
const manifest: { file: string; scenario: string; produced: string }[] = [];

function save(name: string, text: string, scenario: string, produced: string): void {
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, name), text);
  manifest.push({ file: name, scenario, produced });
}

/** The permission mode that makes a background session ask before writing a file. */
const manual = (version: string) => (version === '2.1.197' ? 'default' : 'manual');

describe.skipIf(!install.bin)(`Claude Code ${VERSION}'s own sessions, captured`, () => {
  let ws: Workspace | undefined;
  let fake: FakeAnthropic | undefined;
  let subFake: FakeAnthropic | undefined;
  const homes: ClaudeBg[] = [];
  let pane: TmuxPane | undefined;

  afterAll(async () => {
    await pane?.tmux(['kill-server']).catch(() => undefined);
    for (const h of homes) await h.cleanup();
    await fake?.close();
    await subFake?.close();
    ws?.cleanup();
    if (manifest.length > 0) {
      writeFileSync(join(OUT, 'manifest.json'), `${JSON.stringify({ version: VERSION, source: 'real capture', entries: manifest }, null, 2)}\n`);
    }
  });

  it('captures every scenario', async () => {
    ws = makeWorkspace('autodeck-claude-sessions-capture-');
    fake = await startFakeAnthropic([]);
    const c = startClaudeBg({ ws, bin: install.bin!, version: VERSION, port: fake.port });
    homes.push(c);
    const all = async (scenario: string, produced: string) => save(`agents-${scenario}.json`, `${JSON.stringify(await c.agents(true), null, 2)}\n`, scenario, produced);
    const job = (id: string, scenario: string) => copyFileSync(join(c.home, '.claude', 'jobs', id, 'state.json'), join(OUT, `job-${scenario}.json`));
    const sessionFile = (a: ClaudeAgent, scenario: string) => {
      if (a.pid === undefined) return;
      mkdirSync(OUT, { recursive: true });
      copyFileSync(join(c.home, '.claude', 'sessions', `${a.pid}.json`), join(OUT, `session-${scenario}.json`));
    };

    // idle: a turn answered with text
    fake.push({ text: 'Hello from the background.' });
    const idle = await c.bg('say hello');
    const idleA = await c.waitAgent(idle, (a) => a.status === 'idle' && (a.name ?? '') !== '', 'idle after its turn');
    await all('idle', 'claude --bg "say hello"; the fake answers with text; listed once status is idle');
    job(idle, 'idle');
    sessionFile(idleA, 'idle');

    // waiting on a permission: a Bash write in manual mode
    // (no answer scripted after a request that is never granted: the script must stay in step)
    fake.push({ toolUse: { name: 'Bash', input: { command: 'echo hi > approved.txt', description: 'Write a file' } } });
    const perm = await c.bg('write approved.txt', ['--permission-mode', manual(VERSION)]);
    const permA = await c.waitAgent(perm, (a) => a.status === 'waiting', 'waiting on a permission');
    await waitFor(() => /approve/.test(readFileSync(join(c.home, '.claude', 'jobs', perm, 'state.json'), 'utf8')), 'the job to say what it needs', 30_000, 250);
    await all('permission', `claude --bg --permission-mode ${manual(VERSION)} "write approved.txt"; the fake asks for Bash "echo hi > approved.txt"`);
    job(perm, 'permission');
    sessionFile(permA, 'permission');
    await c.run(['stop', perm]);

    // a question (AskUserQuestion)
    fake.push({ toolUse: { name: 'AskUserQuestion', input: { questions: [{ question: 'Which colour should the button be?', header: 'Colour', options: [{ label: 'Red', description: 'A red button' }, { label: 'Blue', description: 'A blue button' }], multiSelect: false }] } } });
    const ask = await c.bg('ask me');
    const askA = await c.waitAgent(ask, (a) => a.status === 'waiting', 'waiting on its question');
    await waitFor(() => /answer/.test(readFileSync(join(c.home, '.claude', 'jobs', ask, 'state.json'), 'utf8')), 'the job to say what it needs', 30_000, 250);
    await all('question', 'claude --bg "ask me"; the fake calls AskUserQuestion with two options');
    job(ask, 'question');
    sessionFile(askA, 'question');
    await c.run(['stop', ask]);

    // a usage limit, API key: a 429 that says not to retry
    fake.push({ rateLimit: { message: 'Number of request tokens has exceeded your per-minute rate limit' } });
    const limit = await c.bg('hit the limit');
    await c.waitAgent(limit, (a) => a.state === 'blocked', 'blocked at the limit');
    await all('limit-api-key', 'claude --bg "hit the limit"; the fake answers 429 rate_limit_error, x-should-retry false');
    job(limit, 'limit-api-key');

    // busy: an answer held back for a minute
    fake.push({ text: 'Slow answer.', delayMs: 60_000 });
    const busy = await c.bg('be slow');
    const busyA = await c.waitAgent(busy, (a) => a.status === 'busy', 'busy');
    await all('busy', 'claude --bg "be slow"; the fake holds its answer for 60 s');
    sessionFile(busyA, 'busy');
    await c.run(['stop', busy]);
    await c.waitAgent(busy, (a) => a.state === 'stopped', 'stopped');
    await all('stopped', 'claude stop <busy>; listed with --all');
    job(busy, 'stopped');

    // an interactive session in a terminal, idle at its prompt
    pane = await TmuxPane.start({ argv: ['claude', '--permission-mode', manual(VERSION)], cwd: c.cwd, env: c.env as Record<string, string> });
    await waitFor(async () => (await c.agents(false)).some((a) => a.kind === 'interactive' && a.status === 'idle'), 'the interactive session listed idle', 90_000, 500);
    await all('interactive', `claude --permission-mode ${manual(VERSION)} in tmux, at its prompt`);
    const inter = (await c.agents(false)).find((a) => a.kind === 'interactive')!;
    sessionFile(inter, 'interactive');

    // what `claude --bg` prints, and resuming by short id (a copy) vs the full id of a stopped session (the same)
    fake.push({ text: 'Resumed.' });
    const resumed = await c.run(['--bg', '--resume', permA.sessionId, 'go on']);
    save('bg-resume-full-id.txt', `stdout:\n${resumed.stdout}\nstderr:\n${resumed.stderr}`, 'resume-full', `claude --bg --resume <full id of the stopped "${perm}"> "go on"`);
    fake.push({ text: 'A copy.' });
    const copy = await c.run(['--bg', '--resume', idle, 'copy me']);
    save('bg-resume-short-id.txt', `stdout:\n${copy.stdout}\nstderr:\n${copy.stderr}`, 'resume-short', `claude --bg --resume <short id "${idle}" of a running session> "copy me"`);
    // 2.1.332 continues a stopped session under its own id; 2.1.197 starts a copy (a new id and transcript) even so
    if (VERSION === '2.1.197') expect(resumed.stdout).not.toContain(perm);
    else expect(resumed.stdout).toContain(perm);
    expect(copy.stdout).not.toContain(`backgrounded · ${idle}`);

    // a subscriber's usage limit, in a second HOME (its own daemon, started with the OAuth token)
    // its own fake too: the first one's script may hold steps the sessions above left unused
    subFake = await startFakeAnthropic([]);
    const sub = startClaudeBg({ ws, bin: install.bin!, version: VERSION, port: subFake.port, oauth: true, name: 'subscriber' });
    homes.push(sub);
    subFake.push({ rateLimit: { unified: { reset: Math.floor(Date.now() / 1000) + 3600, claim: 'five_hour' }, message: 'limit' } });
    const subLimit = await sub.bg('subscriber limit');
    await sub.waitAgent(subLimit, (a) => a.state === 'blocked', 'blocked at the subscriber limit');
    save('agents-limit-subscriber.json', `${JSON.stringify(await sub.agents(true), null, 2)}\n`, 'limit-subscriber', 'CLAUDE_CODE_OAUTH_TOKEN; claude --bg "subscriber limit"; the fake answers 429 with anthropic-ratelimit-unified-status rejected, reset in an hour, five_hour');
    copyFileSync(join(sub.home, '.claude', 'jobs', subLimit, 'state.json'), join(OUT, 'job-limit-subscriber.json'));
    expect(readdirSync(OUT).length).toBeGreaterThan(10);
  }, 600_000);
});
