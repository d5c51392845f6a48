import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A demo module: what its files say and how the simulated agent should behave. */
export interface DemoModule {
  name: string;
  status: string;
  title: string;
  scenario: Record<string, unknown>;
  maxIterations?: number;
  /** What a newcomer should see happen. */
  shows: string;
}

const STEP = 0.6;

/** The demo's modules: between them, the main ways a loop ends. */
export const DEMO_MODULES: readonly DemoModule[] = [
  { name: 'add-login-page', status: 'planning', title: 'Add a login page', scenario: { stepSeconds: STEP },
    shows: 'a clean loop: plan, check, exec, check, merge, report -> complete' },
  { name: 'fix-flaky-tests', status: 'review', title: 'Fix the flaky tests',
    scenario: { stepSeconds: STEP, results: { 'check@post-exec': ['NEEDS_FIX', 'ACCEPT'] } },
    shows: 'a check that asks for a fix: exec runs again, then complete' },
  { name: 'migrate-database', status: 'executing', title: 'Migrate the database',
    scenario: { stepSeconds: STEP, crash: { atIteration: 2, exitCode: 1, times: 1 } },
    shows: 'the agent crashes once: restarted after a 1 s backoff, then complete' },
  { name: 'rewrite-everything', status: 'planning', title: 'Rewrite everything', maxIterations: 5,
    scenario: { stepSeconds: STEP, steps: 10 },
    shows: 'too much work for its budget: stopped once iteration 5 is signalled (max_iterations); the agent finishes the step it has begun, so the row may read 6/5' },
  { name: 'upgrade-framework', status: 'planning', title: 'Upgrade the framework',
    scenario: { stepSeconds: STEP, results: { 'check@post-plan': ['BLOCKED'] } },
    shows: 'the plan check finds a blocker: the loop ends blocked' },
  { name: 'clean-old-branches', status: 'executing', title: 'Clean up old branches',
    scenario: { stepSeconds: STEP, prompt: { atIteration: 2, text: 'Delete 14 merged branches? (y/n)' } },
    shows: 'the agent stops at a (y/n) prompt: the stall is recognised and answered, then complete' },
  { name: 'translate-docs', status: 'review', title: 'Translate the docs',
    // reset 52 s ago + the 60 s margin: the wait lasts about 8 s
    scenario: { stepSeconds: STEP, quota: { atIteration: 2, message: 'Claude AI usage limit reached|{epoch-52}', seconds: 600 } },
    shows: 'a usage limit: the loop waits for the reset (its timeout paused), then goes on to complete' },
];

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
