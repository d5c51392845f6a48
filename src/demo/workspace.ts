import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A demo module: what its files say and how the simulated agent should behave. */
export interface DemoModule {
  name: string;
  status: string;
  title: string;
  scenario: Record<string, unknown>;
  maxIterations?: number | undefined;
  /** What a newcomer should see happen. */
  shows: string;
}

/** Seconds per step of the fast demo (the tests, `--fast`): every loop ends within seconds. */
export const FAST_STEP = 0.6;
/** Seconds per step of the demo paced for a person: about 90 s of live work. */
export const PACED_STEP = 3;

/** `{epoch-52}`, `{epoch+5}`: a reset time so that, with the supervisor's 60 s margin, the wait lasts `seconds`. */
function resetIn(seconds: number): string {
  const offset = Math.round(seconds) - 60;
  return offset < 0 ? `{epoch${offset}}` : `{epoch+${offset}}`;
}

/**
 * The demo's modules at `step` seconds a step: between them, the main ways a loop ends.
 * At the fast pace every loop is short; paced for a person, loops are longer (more exec
 * steps) and their incidents come one after another (crash, prompt, quota), so each is
 * on screen on its own for a while.
 */
export function demoModules(step: number): DemoModule[] {
  const paced = step > FAST_STEP;
  const more = (n: number): { steps?: number } => (paced ? { steps: n } : {});
  const quotaWait = paced ? Math.max(8, Math.round(10 * step)) : 8;
  return [
    { name: 'add-login-page', status: 'planning', title: 'Add a login page', scenario: { stepSeconds: step, transcript: true, ...more(20) }, maxIterations: paced ? 30 : undefined,
      shows: 'a clean loop: plan, check, exec, check, merge, report -> complete' },
    { name: 'fix-flaky-tests', status: 'review', title: 'Fix the flaky tests',
      scenario: { stepSeconds: step, transcript: true, ...more(6), results: { 'check@post-exec': ['NEEDS_FIX', 'ACCEPT'] } },
      shows: 'a check that asks for a fix: exec runs again, then complete' },
    { name: 'migrate-database', status: 'executing', title: 'Migrate the database',
      scenario: { stepSeconds: step, transcript: true, ...more(8), crash: { atIteration: paced ? 3 : 2, exitCode: 1, times: 1 } },
      shows: 'the agent crashes once: restarted after a 1 s backoff, then complete' },
    { name: 'rewrite-everything', status: 'planning', title: 'Rewrite everything', maxIterations: paced ? 12 : 5,
      scenario: { stepSeconds: step, transcript: true, steps: paced ? 30 : 10 },
      shows: `too much work for its budget: stopped once iteration ${paced ? 12 : 5} is signalled (max_iterations); the agent finishes the step it has begun, so the row may read ${paced ? '13/12' : '6/5'}` },
    { name: 'upgrade-framework', status: 'planning', title: 'Upgrade the framework',
      scenario: { stepSeconds: step, transcript: true, results: { 'check@post-plan': ['BLOCKED'] } },
      shows: 'the plan check finds a blocker: the loop ends blocked' },
    { name: 'clean-old-branches', status: 'executing', title: 'Clean up old branches',
      scenario: { stepSeconds: step, transcript: true, ...more(8), prompt: { atIteration: paced ? 6 : 2, text: 'Delete 14 merged branches? (y/n)' } },
      shows: 'the agent stops at a (y/n) prompt: the stall is recognised and answered, then complete' },
    { name: 'translate-docs', status: 'review', title: 'Translate the docs', maxIterations: paced ? 30 : undefined,
      // the reset lies so far back that, with the 60 s margin, the wait lasts quotaWait seconds
      scenario: { stepSeconds: step, transcript: true, ...more(16), quota: { atIteration: paced ? 14 : 2, message: `Claude AI usage limit reached|${resetIn(quotaWait)}`, seconds: 600 } },
      shows: 'a usage limit: the loop waits for the reset (its timeout paused), then goes on to complete' },
  ];
}

/** The fast demo's modules (what `autodeck demo --fast` and the tests run). */
export const DEMO_MODULES: readonly DemoModule[] = demoModules(FAST_STEP);

/** Writes the demo's task modules under `root` (created when needed). */
export function writeDemoWorkspace(root: string, modules: readonly DemoModule[] = DEMO_MODULES): void {
  for (const m of modules) {
    const dir = join(root, m.name);
    mkdirSync(join(dir, '.working'), { recursive: true });
    writeFileSync(join(dir, '.index.json'), `${JSON.stringify({ status: m.status, title: m.title }, null, 2)}\n`);
    writeFileSync(join(dir, '.target.md'), `# Target\n\n${m.title}.\n`);
    writeFileSync(join(dir, '.summary.md'), `# ${m.title}\n\nDemo module: ${m.shows}.\n`);
    writeFileSync(join(dir, '.sim.json'), `${JSON.stringify(m.scenario, null, 2)}\n`);
  }
}
