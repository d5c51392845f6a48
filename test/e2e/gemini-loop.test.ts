import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GEMINI_VERSION, installGemini } from '../helpers/geminiCli.js';
import { lastGeminiUserText, startFakeGemini, type FakeGemini } from '../helpers/fakeGemini.js';
import { geminiProject, geminiSteps, loopItems, processesIn, sawStopFile, STOP_ANSWER, AGENT_STALLS } from '../helpers/agentLoop.js';
import { walk } from '../helpers/claudeLoop.js';
import { makeWorkspace, type Workspace } from '../helpers/workspace.js';
import { startCli, type CliRun } from '../helpers/cli.js';
import { eventsOf, runsOf } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';

// `autodeck run` over the real Gemini CLI (pinned, from the npm registry) against a fake of the
// Gemini API on 127.0.0.1: the model plays the autodeck loop with real shell commands through
// run_shell_command, each one a confirmation autodeck answers by its approval policy.

const install = await installGemini();
const title = `autodeck run over the real Gemini CLI ${GEMINI_VERSION}${install.reason ? ` (skipped: ${install.reason})` : ''}`;

const AGENT = ['--agent', 'gemini -i "Work on the task in {taskDir}"'];

interface Scene {
  ws: Workspace;
  fake: FakeGemini;
  env: NodeJS.ProcessEnv;
  run(dir: string, extra?: string[]): Promise<{ code: number; stderr: string }>;
}

/**
 * A workspace, the fake with its script and a project where `gemini` is the pinned CLI. Each
 * test has its own, so the tests run side by side (the usage limit's 100 s wait beside the
 * others). A run a failing test left behind is stopped (SIGTERM: autodeck ends its agent).
 */
async function scene(prefix: string, onTestFinished: (fn: () => Promise<void>) => void, script: (ws: Workspace) => Promise<FakeGemini>): Promise<Scene> {
  const ws = makeWorkspace(prefix);
  const runs: CliRun[] = [];
  let fake: FakeGemini | undefined;
  onTestFinished(async () => {
    if (process.env.DEBUG_AGENT_E2E) console.log(prefix, eventsOf(ws.db, ws.root + '/' + (readdirSync(ws.root)[0] ?? '')).map((e) => `${e.at} ${e.kind} ${JSON.stringify(e.detail).slice(0, 160)}`).join('\n'), '\n', fake?.requests.filter((q) => q.kind === 'main').map((q) => `${q.answer} <- ${lastGeminiUserText(q.body).slice(0, 80)} ${JSON.stringify((q.body?.contents as unknown[] | undefined)?.at(-1)).slice(0, 160)}`).join('\n'));
    for (const r of runs) {
      if (r.child.exitCode !== null || r.child.signalCode !== null) continue;
      r.child.kill('SIGTERM');
      await Promise.race([r.exited, new Promise((res) => setTimeout(res, 15_000))]);
      if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    }
    await fake?.close();
    ws.cleanup();
  });
  fake = await script(ws);
  const env = geminiProject(ws, install.bin!, fake);
  return {
    ws, fake, env,
    async run(dir, extra = []) {
      const r = startCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, ...AGENT, ...AGENT_STALLS, ...extra], { env });
      runs.push(r);
      const code = await r.exited;
      return { code, stderr: r.stderr() };
    },
  };
}

async function noLeftovers(w: Workspace): Promise<void> {
  const left = await waitFor(async () => ((await processesIn(install.prefix!, w.dir)).length === 0 ? true : undefined), 'no Gemini process left', 15_000, 250)
    .catch(async () => processesIn(install.prefix!, w.dir));
  expect(left).toBe(true);
}

const eventsText = (w: Workspace, dir: string) => JSON.stringify(eventsOf(w.db, dir).map((e) => [e.kind, e.detail]));

describe.skipIf(!install.bin)(title, { timeout: 300_000 }, () => {
  it.concurrent('a loop to its iteration limit: every command confirmed (Enter), a paused turn continued, the stop file obeyed, /quit, spend read from the session file', async ({ onTestFinished }) => {
    let dir = '';
    let work = '';
    const { ws, fake, run } = await scene('autodeck-gemini-loop-', onTestFinished, (w) => {
      dir = w.module('gemini-task', { status: 'planning' });
      work = join(dir, 'notes.md');
      const items = loopItems(dir, walk('planning'), {
        during: (n) => (n === 1 ? [{ shell: `echo 'the work' > ${work}`, description: 'Write the notes' }] : []),
        pauseAfter: { iteration: 2, text: 'The plan passed its check.' },
      });
      return startFakeGemini(geminiSteps(items), { stopWhen: (body) => (sawStopFile(body) ? STOP_ANSWER : undefined) });
    });
    const r = await run(dir, ['--max-iterations', '3']);
    // a run that did not end complete exits 1
    expect(r.code, `${r.stderr}\n${eventsText(ws, dir)}`).toBe(1);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'max_iterations', iterations: 3 });
    expect(readFileSync(work, 'utf8')).toBe('the work\n');
    const approvals = eventsOf(ws.db, dir, 'approval').map((e) => e.detail);
    // the reads, the work, the signals: each confirmed with Enter (`1. Allow once`)
    expect(approvals.length).toBeGreaterThanOrEqual(7);
    for (const a of approvals) expect(a).toMatchObject({ decision: 'allow', tool: 'Bash', keys: '\\r', source: 'screen' });
    expect(approvals.map((a) => a.command)).toContain(`echo 'the work' > ${work}`);
    expect(eventsOf(ws.db, dir, 'recovery').map((e) => e.detail)).toEqual([expect.objectContaining({ kind: 'idle' })]);
    // the model read the stop file (its command approved while the loop stopped) and stopped
    expect(fake.requests.some((q) => q.answer === 'stop')).toBe(true);
    expect(eventsOf(ws.db, dir, 'agent_exit').map((e) => e.detail)).toContainEqual(expect.objectContaining({ action: 'exit command', keys: '/quit' }));
    // spend from the session file: 900 in, 30 out per answer, priced as gemini-2.5-pro
    const spent = runsOf(ws.db, dir)[0]!;
    expect(spent.tokens).toBeGreaterThan(0);
    expect(spent.tokens! % 930).toBe(0);
    expect(spent.cost_usd).toBeCloseTo((spent.tokens! / 930) * (900 * 1.25 + 30 * 10) / 1e6, 9);
    await noLeftovers(ws);
  });

  it.concurrent('a model that pauses 8 s mid-answer is not interrupted', async ({ onTestFinished }) => {
    let dir = '';
    const say = 'Let me think about the report for a moment before I write it down, then I will go on.';
    const { ws, run } = await scene('autodeck-gemini-pause-', onTestFinished, (w) => {
      dir = w.module('gemini-pause', { status: 'complete' });
      const items = loopItems(dir, walk('complete'), { during: () => [{ shell: `echo report > ${join(dir, 'report.md')}`, description: 'Write the report', say, pause: { afterChars: 30, ms: 8_000 } }] });
      return startFakeGemini(geminiSteps(items));
    });
    const r = await run(dir);
    expect(r.code, `${r.stderr}\n${eventsText(ws, dir)}`).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
    expect(eventsOf(ws.db, dir, 'recovery')).toEqual([]);
    expect(eventsOf(ws.db, dir, 'stall')).toEqual([]);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toBe('report\n');
    await noLeftovers(ws);
  });

  it.concurrent('a usage limit that lifts after 100 s: one wait, `Keep trying` at each probe, resumed within a minute of the lift', async ({ onTestFinished }) => {
    let dir = '';
    let lifts = 0;
    const { ws, run } = await scene('autodeck-gemini-limit-', onTestFinished, (w) => {
      dir = w.module('gemini-limit', { status: 'complete' });
      lifts = Date.now() + 100_000;
      return startFakeGemini([
        { quota: { quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier', message: 'You exceeded your current quota, please check your plan and billing details.' }, untilMs: lifts },
        ...geminiSteps(loopItems(dir, walk('complete'))),
      ]);
    });
    // the dialog names no reset time: autodeck tries again every 30 s
    const r = await run(dir, ['--quota-probe', '0.5']);
    expect(r.code, `${r.stderr}\n${eventsText(ws, dir)}`).toBe(0);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
    const waits = eventsOf(ws.db, dir, 'quota_wait');
    expect(waits.filter((e) => !e.detail.probe), eventsText(ws, dir)).toHaveLength(1);
    const probes = waits.filter((e) => e.detail.probe);
    expect(probes.length).toBeGreaterThanOrEqual(2);
    for (const p of probes) expect(p.detail).toMatchObject({ dialog: 'quota dialog', keys: '\\r' });
    const resumed = eventsOf(ws.db, dir, 'quota_resume');
    expect(resumed).toHaveLength(1);
    const late = Date.parse(resumed[0]!.at) - lifts;
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(60_000);
    // no continuation was typed into the dialog: each probe chose `Keep trying`
    expect(eventsOf(ws.db, dir, 'recovery')).toEqual([]);
    await noLeftovers(ws);
  });

  it.concurrent('a command the approval policy denies: refused with Esc, the agent told why, the loop goes on', async ({ onTestFinished }) => {
    let dir = '';
    let target = '';
    const { ws, fake, run } = await scene('autodeck-gemini-deny-', onTestFinished, (w) => {
      dir = w.module('gemini-deny', { status: 'complete' });
      target = join(w.dir, 'build');
      mkdirSync(target, { recursive: true });
      writeFileSync(join(w.dir, '.autodeck.json'), JSON.stringify({ approval: { rules: [{ deny: 'Bash(rm -rf*)', reason: 'no deleting here' }] } }));
      const items = loopItems(dir, walk('complete'), { during: () => [{ shell: `rm -rf ${target} && echo removed`, description: 'Remove the build folder' }] });
      return startFakeGemini(geminiSteps(items));
    });
    const r = await run(dir);
    expect(r.code, `${r.stderr}\n${eventsText(ws, dir)}`).toBe(0);
    expect(existsSync(target)).toBe(true);
    const denied = eventsOf(ws.db, dir, 'approval').map((e) => e.detail).filter((d) => d.decision === 'deny');
    expect(denied).toEqual([expect.objectContaining({ rule: 'deny Bash(rm -rf*)', command: `rm -rf ${target} && echo removed`, keys: '\\u001b' })]);
    expect(fake.requests.filter((q) => q.kind === 'main').some((q) => JSON.stringify(q.body).includes("autodeck's approval policy refused Bash"))).toBe(true);
    expect(runsOf(ws.db, dir)[0]).toMatchObject({ outcome: 'complete' });
    await noLeftovers(ws);
  });
});
