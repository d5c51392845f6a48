import type { StepKey } from './routing.js';

/** What the sim prints for each step: a heading while it works and one line of detail. Plain text. */
export const STEP_TEXT: Readonly<Record<StepKey, { doing: string; detail: string }>> = {
  'plan': { doing: 'Planning the task', detail: 'Read .target.md and drafted the plan' },
  'check@post-plan': { doing: 'Reviewing the plan', detail: 'Compared the plan with the target' },
  'exec': { doing: 'Working through the plan', detail: 'Edited files and ran the tests' },
  'check@mid-exec': { doing: 'Checking progress', detail: 'Compared the work so far with the plan' },
  'check@post-exec': { doing: 'Verifying the result', detail: 'Ran the checks on the finished work' },
  'merge': { doing: 'Merging the work', detail: 'Merged the task branch' },
  'report': { doing: 'Writing the report', detail: 'Summarised what was done' },
};

/** One line of the fake output flood; numbered so each screen differs. */
export function floodLine(i: number, total: number): string {
  return `  ${String(i).padStart(String(total).length)}/${total}  PASS  test/case-${i}.spec.ts (${(i * 7) % 97} ms)`;
}
