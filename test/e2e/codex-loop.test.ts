import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODEX_VERSION, installCodex } from '../helpers/codexCli.js';
import { lastUserText, startFakeOpenAI } from '../helpers/fakeOpenAI.js';
import { codexProject, loopItems, openAISteps, processesIn, sawStopFile, STOP_ANSWER, AGENT_STALLS } from '../helpers/agentLoop.js';
import { walk } from '../helpers/claudeLoop.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { runCli } from '../helpers/cli.js';
import { eventsOf, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';

// `autodeck run` over the real Codex CLI (pinned, from the npm registry) against a fake of the
// OpenAI Responses API on 127.0.0.1: the model plays the autodeck loop with real shell
// commands through Codex's exec_command tool, sandboxed or (asked for) outside the sandbox.

const install = await installCodex();
const title = `autodeck run over the real Codex CLI ${CODEX_VERSION}${install.reason ? ` (skipped: ${install.reason})` : ''}`;

// each test has its own workspace and fake, so the tests run side by side (the usage limit's 100 s wait beside the others)

const AGENT = ['--agent', 'codex "Work on the task in {taskDir}"'];

/** Nothing of the CLI outlives the loop: no process runs its binary or a copy of it under the test's home. */
async function noLeftovers(w: Workspace): Promise<void> {
  const left = await waitFor(async () => {
    const ps = await processesIn(install.prefix!, w.dir);
    return ps.length === 0 ? true : undefined;
  }, 'no Codex process left', 15_000, 250).catch(async () => processesIn(install.prefix!, w.dir));
  expect(left).toBe(true);
}

const eventsText = (w: Workspace, dir: string) => JSON.stringify(eventsOf(w.db, dir).map((e) => [e.kind, e.detail]));

describe.skipIf(!install.bin)(title, { timeout: 300_000 }, () => {
  it.concurrent('a loop to its iteration limit: a command asked for outside the sandbox approved (y), a paused turn continued, the stop file obeyed, /quit, spend read from the rollout', async ({ onTestFinished }) => {
    const ws = makeWorkspace('autodeck-codex-loop-');
    onTestFinished(() => ws.cleanup());
    const dir = ws.module('codex-task', { status: 'planning' });
    const work = join(dir, 'notes.md');
    const signals = walk('planning');
    expect(signals.length).toBeGreaterThan(3);
    const items = loopItems(dir, signals, {
      during: (n) => (n === 1 ? [{ shell: `echo 'the work' > ${work}`, description: 'Write the notes outside the sandbox', escalate: true }] : []),
      pauseAfter: { iteration: 2, text: 'The plan passed its check.' },
    });
    const fake = await startFakeOpenAI(openAISteps(items), { stopWhen: (body) => (sawStopFile(body) ? STOP_ANSWER : undefined) });
    onTestFinished(() => fake.close());
    const env = codexProject(ws, install.bin!, fake);
    const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, ...AGENT, ...AGENT_STALLS, '--max-iterations', '3'], { env });
    if (process.env.DEBUG_I31) console.log(eventsOf(ws.db, dir).map((e) => `${e.at} ${e.kind} ${JSON.stringify(e.detail).slice(0, 100)}`).join('\n'), fake.requests.filter((q) => q.kind === 'main').map((q) => `${q.answer} <- ${JSON.stringify((q.body?.input as unknown[] | undefined)?.slice(-1)).slice(0, 120)}`).join('\n'));
    // a run that did not end complete exits 1
    expect(r.code, `${r.stderr}\n${eventsText(ws, dir)}`).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'max_iterations', iterations: 3 });
    expect(readFileSync(work, 'utf8')).toBe('the work\n');
    const approvals = eventsOf(ws.db, dir, 'approval').map((e) => e.detail);
    expect(approvals).toEqual([expect.objectContaining({ decision: 'allow', tool: 'Bash', command: `echo 'the work' > ${work}`, keys: 'y' })]);
    // the turn that ended after iteration 2 was continued, once (nothing typed while Codex started up); the model then read the stop file and stopped
    expect(eventsOf(ws.db, dir, 'recovery').map((e) => e.detail)).toEqual([expect.objectContaining({ kind: 'idle', source: 'session' })]);
    expect(fake.requests.filter((q) => q.kind === 'main' && lastUserText(q.body) === 'Please continue with the task from where you left off.' && JSON.stringify(q.body?.input).endsWith('from where you left off."}]}]'))).toHaveLength(1);
    expect(fake.requests.some((q) => q.answer === 'stop')).toBe(true);
    expect(eventsOf(ws.db, dir, 'agent_exit').map((e) => e.detail)).toContainEqual(expect.objectContaining({ action: 'exit command', keys: '/quit' }));
    // spend from the rollout's token counts: every scripted answer was 1200 in, 40 out; side answers (a title, the stop) 55
    const run = runsOf(ws.db, dir)[0]!;
    const scripted = fake.requests.filter((q) => q.kind === 'main' && (q.answer === 'exec' || q.answer === 'text')).length;
    const small = fake.requests.filter((q) => q.answer === 'stop' || q.kind.startsWith('side')).length;
    expect(run.tokens).toBeGreaterThanOrEqual(1240 * scripted);
    expect(run.tokens).toBeLessThanOrEqual(1240 * scripted + 55 * small);
    // priced as gpt-5.1-codex: $1.25 in, $10 out per million
    const perTurn = (1200 * 1.25 + 40 * 10) / 1e6;
    expect(run.cost_usd).toBeGreaterThanOrEqual(scripted * perTurn - 1e-9);
    expect(run.cost_usd).toBeLessThanOrEqual((scripted + small) * perTurn);
    expect(fake.requests.filter((q) => q.kind === 'connect').map((q) => q.path)).not.toContain(`127.0.0.1:${fake.port}`);
    await noLeftovers(ws);
  });

  it.concurrent('a model that pauses 8 s mid-answer is not interrupted', async ({ onTestFinished }) => {
    const ws = makeWorkspace('autodeck-codex-pause-');
    onTestFinished(() => ws.cleanup());
    const dir = ws.module('codex-pause', { status: 'complete' }); // one step: report
    const say = 'Let me think about the report for a moment before I write it down, then I will go on.';
    // the model's words before the report's command stop for 8 s after 30 characters: the turn goes on after them
    const items = loopItems(dir, walk('complete'), { during: () => [{ shell: `echo report > ${join(dir, 'report.md')}`, description: 'Write the report', say, pause: { afterChars: 30, ms: 8_000 } }] });
    const fake = await startFakeOpenAI(openAISteps(items));
    onTestFinished(() => fake.close());
    const env = codexProject(ws, install.bin!, fake);
    const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, ...AGENT, ...AGENT_STALLS], { env });
    expect(r.code, `${r.stderr}\n${eventsText(ws, dir)}`).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
    // nothing was typed into it while it paused: no recovery, no stall, the answer whole in the next request, the command run
    expect(eventsOf(ws.db, dir, 'recovery')).toEqual([]);
    expect(eventsOf(ws.db, dir, 'stall')).toEqual([]);
    expect(fake.requests.filter((q) => q.kind === 'main').some((q) => JSON.stringify(q.body).includes('then I will go on.'))).toBe(true);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toBe('report\n');
    await noLeftovers(ws);
  });

  it.concurrent('a usage limit that lifts after 100 s: one wait, resumed within a minute of the reset, the switch-model menu closed', async ({ onTestFinished }) => {
    const ws = makeWorkspace('autodeck-codex-limit-');
    onTestFinished(() => ws.cleanup());
    const dir = ws.module('codex-limit', { status: 'complete' });
    const resetsAt = Math.floor(Date.now() / 1000) + 100;
    const items = openAISteps(loopItems(dir, walk('complete')));
    // the first answer is the limit, until it lifts; then the loop
    const fake = await startFakeOpenAI([{ usageLimit: { resetsAt }, untilReset: true }, ...items], { window: { usedPercent: 40, windowMinutes: 300, resetAt: resetsAt } });
    onTestFinished(() => fake.close());
    const env = codexProject(ws, install.bin!, fake);
    const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, ...AGENT, ...AGENT_STALLS], { env });
    expect(r.code, `${r.stderr}\n${eventsText(ws, dir)}`).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
    const waits = eventsOf(ws.db, dir, 'quota_wait').filter((e) => !e.detail.probe);
    expect(waits, eventsText(ws, dir)).toHaveLength(1);
    const resumed = eventsOf(ws.db, dir, 'quota_resume');
    expect(resumed).toHaveLength(1);
    const late = Date.parse(resumed[0]!.at) - resetsAt * 1000;
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(60_000);
    expect(eventsOf(ws.db, dir, 'dialog').map((e) => e.detail.name)).toContain('switch-model menu');
    await noLeftovers(ws);
  });

  it.concurrent('a command the approval policy denies: refused with Esc, the agent told why, the loop goes on', async ({ onTestFinished }) => {
    const ws = makeWorkspace('autodeck-codex-deny-');
    onTestFinished(() => ws.cleanup());
    const dir = ws.module('codex-deny', { status: 'complete' });
    const target = join(ws.dir, 'build');
    const items = loopItems(dir, walk('complete'), {
      during: () => [{ shell: `rm -rf ${target} && echo removed`, description: 'Remove the build folder', escalate: true }],
    });
    const fake = await startFakeOpenAI(openAISteps(items));
    onTestFinished(() => fake.close());
    const env = codexProject(ws, install.bin!, fake);
    const settings = join(ws.dir, '.autodeck.json');
    await import('node:fs').then((fs) => fs.mkdirSync(target, { recursive: true }));
    await import('node:fs').then((fs) => fs.writeFileSync(settings, JSON.stringify({ approval: { rules: [{ deny: 'Bash(rm -rf*)', reason: 'no deleting here' }] } })));
    const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, ...AGENT, ...AGENT_STALLS], { env });
    expect(r.code, `${r.stderr}\n${eventsText(ws, dir)}`).toBe(0);
    expect(existsSync(target)).toBe(true);
    expect(eventsOf(ws.db, dir, 'approval').map((e) => e.detail)).toEqual([
      expect.objectContaining({ decision: 'deny', rule: 'deny Bash(rm -rf*)', command: `rm -rf ${target} && echo removed`, keys: '\\u001b' }),
    ]);
    // told at its next prompt, in plain words
    expect(fake.requests.filter((q) => q.kind === 'main').some((q) => JSON.stringify(q.body).includes("autodeck's approval policy refused Bash"))).toBe(true);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
    await noLeftovers(ws);
  });
});
