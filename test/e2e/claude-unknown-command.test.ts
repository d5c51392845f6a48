import { describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CLAUDE_CODE_VERSION, claudeEnv, installClaudeCode, writeClaudeConfig } from '../helpers/claudeCode.js';
import { startFakeAnthropic } from '../helpers/fakeAnthropic.js';
import { makeWorkspace } from '../helpers/workspace.js';
import { runCli } from '../helpers/cli.js';
import { eventsOf, runsOf } from '../helpers/db.js';
import { e2eScope } from '../helpers/claudeRun.js';

// A start command the agent does not know, with the real Claude Code: started with a skill it does not have, it
// prints `Unknown command: /nonexistent-skill` and sits at its prompt. autodeck must end
// the loop `failed` at the first heartbeat that sees it, with one line naming the command
// and the fix, and never type the continuation message into it.

const install = await installClaudeCode();
const title = `an unknown command under the real Claude Code ${CLAUDE_CODE_VERSION}${install.reason ? ` (skipped: ${install.reason})` : ''}`;

const t = e2eScope();

describe.skipIf(!install.bin)(title, () => {
  it('ends the loop failed with the missing command and the fix, never nudged', async () => {
    const ws = (t.ws = makeWorkspace());
    const dir = ws.module('no-skill', { status: 'executing' });
    const fake = t.fake = await startFakeAnthropic([]);
    const home = join(ws.dir, 'claude-home');
    mkdirSync(home);
    writeClaudeConfig(home, ws.dir);

    const agent = `${JSON.stringify(install.bin!)} "/nonexistent-skill {taskDir}"`;
    // A high stall threshold: Claude Code may draw its idle prompt a moment before the notice
    // (more so on a loaded machine); the notice is decided at the first beat that sees it anyway.
    const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, '--agent', agent,
      '--agent-profile', 'claude', '--heartbeat', '0.5', '--stall-threshold', '20', '--backend', 'pty'],
    { env: claudeEnv({ home, port: fake.port }) });

    const message = 'the agent does not know the command /nonexistent-skill: run `autodeck init` in the project, or set `agent`';
    expect(r.code, r.stderr).not.toBe(0);
    expect(`${r.stdout}\n${r.stderr}`).toContain(message);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'failed', stop_reason: 'unknown_command' });
    expect(eventsOf(ws.db, dir, 'failed').map((e) => e.detail)).toEqual([expect.objectContaining({ message, code: 'unknown_command' })]);
    expect(eventsOf(ws.db, dir, 'stall').map((e) => e.detail)).toEqual([expect.objectContaining({ kind: 'unknown_command', source: 'screen', command: '/nonexistent-skill' })]);
    // never nudged: no recovery, nothing reached the model
    expect(eventsOf(ws.db, dir, 'recovery')).toEqual([]);
    expect(fake.mainTurns()).toBe(0);
  }, 60_000);
});
