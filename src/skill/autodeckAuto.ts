import { createHash } from 'node:crypto';
import { LIFECYCLE_STATUSES, type LifecycleStatus } from '../protocol/modules.js';
import { SIGNAL_FILE, SIGNAL_TMP_FILE } from '../protocol/signal.js';
import { STOP_FILE } from '../protocol/stopFile.js';
import { entryStep, ROUTES, STEP_N, stepKey, type RouteRow } from '../sim/routing.js';

/**
 * The agent side of the loop protocol, as a Claude Code skill that `autodeck
 * init` installs: `/autodeck-auto <taskDir>` makes one Claude session run the whole loop.
 * Its routing and entry tables are rendered from the simulator's (src/sim/routing.ts), so
 * the skill and the simulated agent cannot drift apart.
 */

export const SKILL_NAME = 'autodeck-auto';
/** Where Claude Code (2.1.x) finds a project skill; `/autodeck-auto args` resolves to it. */
export const SKILL_PATH = `.claude/skills/${SKILL_NAME}/SKILL.md`;
/** Bumped when the text changes in a way worth an update of installed copies. */
export const SKILL_VERSION = 1;

/** The last line of an installed copy: the version and a hash of everything above it. */
const STAMP = /\n<!-- autodeck-skill v(\d+) sha256:([0-9a-f]{64}) -->\n?$/;

const TASK = '$ARGUMENTS';
const code = (s: string) => `\`${s}\``;

/** `| a | b |` rows of the routing table, in the table's order. */
export function routingTableMarkdown(routes: readonly RouteRow[] = ROUTES): string {
  const cp = (c: string) => (c === '' ? '—' : code(c));
  const rows = routes.map((r) => `| ${code(r.step)} | ${cp(r.checkpoint)} | ${code(r.result)} | ${code(r.next)} | ${cp(r.nextCheckpoint)} |`);
  return ['| step | checkpoint | result | next | next checkpoint |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** The entry step for each lifecycle status, as the simulator picks it. */
export function entryTableMarkdown(): string {
  const rows = LIFECYCLE_STATUSES.map((s: LifecycleStatus) => {
    const pos = entryStep(s);
    return `| ${code(s)} | ${pos ? code(stepKey(pos)) : 'nothing to do: end at once'} |`;
  });
  return ['| lifecycle status | first step |', '|---|---|', ...rows, `| anything else | ${code('plan')} |`].join('\n');
}

/** The skill's text without its stamp. */
export function skillBody(): string {
  const signalExample = JSON.stringify({ step: 'check', result: 'PASS', next: 'exec', checkpoint: 'post-plan', iteration: 3, timestamp: '2026-01-31T14:05:00Z' });
  return `---
name: ${SKILL_NAME}
description: Run the autodeck auto loop over one task module (plan, check, exec, check, merge, report), writing .auto-signal after every step and obeying .auto-stop. Invoked as /${SKILL_NAME} <taskDir>, usually by the autodeck supervisor.
argument-hint: <taskDir>
---

# The autodeck auto loop

You are running an unattended loop over the task module ${code(TASK)} (called TASK below).
A supervisor (autodeck) watches the files named here; nobody is at the keyboard.
Run the WHOLE loop in this one turn: step after step, without stopping to report, to
summarise or to ask for confirmation, until the routing table says ${code('(stop)')} or the
stop file appears. Do not end your turn between steps.

## The files of TASK

- ${code('.target.md')}: what the task is for. Read it first.
- ${code('.index.json')} ${code('status')} (else ${code('.index.md')} front matter ${code('status:')}, else ${code('.working/.status.json')} ${code('status')}): the lifecycle status.
- ${code('.plan.md')}: the plan, as a checklist of ${code('- [ ]')} / ${code('- [x]')} lines.
- ${code('.summary.md')}: where the loop stands, for a person and for you after a compaction.
- ${code(STOP_FILE)}: written by the supervisor when the loop must stop. Never write or delete it.
- ${code(SIGNAL_FILE)}: your progress report after every step (below).

## Where to start

If ${code(`TASK/${SIGNAL_FILE}`)} exists, you are resuming (after a restart or a compaction):
take its ${code('next')} as the next step (for ${code('check')}, the checkpoint the routing
table gives for its result), its ${code('iteration')} + 1 as the next iteration, and
${code('.summary.md')} for what was done. Otherwise start at iteration 1 with the step for
the lifecycle status:

${entryTableMarkdown()}

## Every iteration, in this order

1. **Stop file.** Read ${code(`TASK/${STOP_FILE}`)} with the Read tool. If it exists, stop
   now: start no new step, write no further signal, and go to "Ending".
2. **The step.**
   - ${code('plan')}: write or revise ${code('.plan.md')} (small, checkable items). Result ${code('(generated)')}, or ${code('(annotations)')} when you only annotated an existing plan.
   - ${code('check')} at ${code('post-plan')}: review the plan against ${code('.target.md')}: ${code('PASS')}, ${code('NEEDS_REVISION')} or ${code('BLOCKED')}.
   - ${code('exec')}: do the next items of the plan and tick them: ${code('(step-N)')} after item N when more remain, ${code('(mid-exec)')} when a check is due half-way, ${code('(done)')} when all are done, ${code('(blocked)')} when you cannot go on.
   - ${code('check')} at ${code('mid-exec')}: ${code('CONTINUE')}, ${code('NEEDS_FIX')}, ${code('REPLAN')} or ${code('BLOCKED')}; at ${code('post-exec')}: ${code('ACCEPT')}, ${code('NEEDS_FIX')}, ${code('REPLAN')} or ${code('BLOCKED')}. Verify for real (run the tests).
   - ${code('merge')}: bring the work in (commit it): ${code('success')} or ${code('conflict')}.
   - ${code('report')}: write the outcome at the top of ${code('.summary.md')}: ${code('(done)')}.
3. **Status.** Write ${code('TASK/.working/.status.json')} as ${code('{"status": …, "stage": …, "updated_at": …}')}:
   ${code('planning')} while planning (${code('re-planning')} after ${code('REPLAN')} or ${code('NEEDS_REVISION')}),
   ${code('review')} at the post-plan check, ${code('executing')} otherwise; when the loop stops,
   ${code('complete')} after ${code('report')}, ${code('blocked')} after ${code('BLOCKED')}, ${code('(blocked)')} or ${code('conflict')}.
4. **Summary.** Bring ${code('TASK/.summary.md')} up to date: the step just done, its result, what is next.
5. **Signal.** Write the signal atomically, in exactly two operations:
   - the Write tool creates ${code(`TASK/${SIGNAL_TMP_FILE}`)} with one line of JSON;
   - then Bash runs ${code(`mv TASK/${SIGNAL_TMP_FILE} TASK/${SIGNAL_FILE}`)} (TASK spelled out as given above).

   Example: ${code(signalExample)}. Fields: ${code('step')} (the step just done), ${code('result')},
   ${code('next')} and ${code('checkpoint')} (the checkpoint of the step just done, ${code('""')} when it is not a check) from the routing table,
   ${code('iteration')} (1 for the first step of this loop, one more for each step after it; never lower than a signal already there),
   ${code('timestamp')} (ISO 8601, UTC).
6. **Next.** If ${code('next')} is ${code('(stop)')}, go to "Ending". Otherwise take the next
   step and iteration and carry on at 1, in this same turn.

## Routing

A result sends the loop to its next step (${code(STEP_N)} stands for every ${code('(step-0)')}, ${code('(step-1)')}, …):

${routingTableMarkdown()}

Use only these combinations; a result that is not listed for a step is not allowed.

## Ending

Delete ${code(`TASK/${SIGNAL_TMP_FILE}`)} if it is still there. Leave ${code(SIGNAL_FILE)} and
${code(STOP_FILE)} alone: the supervisor removes them once you have finished. Make sure
${code('.summary.md')} says how the loop ended, then end your turn with one line: the outcome
and the last iteration. Do not start anything else.

## Rules

- Never ask the person anything: decide, note the decision in ${code('.summary.md')}, go on.
- If your context was compacted, resume from ${code(SIGNAL_FILE)}, the lifecycle status and ${code('.summary.md')} as in "Where to start"; never start again from the plan when a signal says otherwise.
- Work inside the repository; stay within the task.
`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The installed file: the body and its stamp, so that a later `init` can tell a user's edit. */
export function skillFile(): string {
  const body = skillBody();
  return `${body}\n<!-- autodeck-skill v${SKILL_VERSION} sha256:${sha256(body)} -->\n`;
}

export type InstalledSkill =
  | { state: 'current' }
  /** autodeck's own copy of an older version, unedited: safe to replace. */
  | { state: 'outdated'; version: number }
  /** Edited by someone (or not autodeck's at all): never replaced without being asked. */
  | { state: 'edited' };

/** What an existing SKILL.md is, compared with this autodeck's. Pure. */
export function classifyInstalledSkill(text: string): InstalledSkill {
  if (text === skillFile()) return { state: 'current' };
  const m = STAMP.exec(text);
  if (!m) return { state: 'edited' };
  if (sha256(text.slice(0, m.index)) !== m[2]) return { state: 'edited' };
  return { state: 'outdated', version: Number(m[1]) };
}
