import { describe, expect, it } from 'vitest';
import { classifyInstalledSkill, skillBody, skillFile, SKILL_NAME } from '../../src/skill/autodeckAuto.js';
import { entryStep, ROUTES, stepKey, type RouteRow } from '../../src/sim/routing.js';
import { LIFECYCLE_STATUSES } from '../../src/protocol/modules.js';
import { CHECKPOINTS, NEXTS, SIGNAL_FILE, SIGNAL_TMP_FILE, STEPS } from '../../src/protocol/signal.js';
import type { Checkpoint, Next, Step } from '../../src/protocol/signal.js';

// The skill is what a real Claude Code reads; the simulator is what the tests run. Both must
// route the same way: the tables are read back out of the skill's text and compared with
// the simulator's data, so an edit to either side alone fails here.

/** The rows of the markdown table that follows `heading` in the skill. */
function tableAfter(text: string, header: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(header));
  if (start < 0) throw new Error(`no table headed ${header}`);
  const rows: string[][] = [];
  for (const l of lines.slice(start + 2)) {
    if (!l.startsWith('|')) break;
    rows.push(l.split('|').slice(1, -1).map((c) => c.trim().replace(/^`|`$/g, '')));
  }
  return rows;
}

const cp = (cell: string): Checkpoint => (cell === '—' ? '' : (cell as Checkpoint));

describe('the /autodeck-auto skill', () => {
  const text = skillBody();

  it("states exactly the simulator's routing table, row for row", () => {
    const rows = tableAfter(text, '| step | checkpoint | result | next | next checkpoint |');
    const parsed: RouteRow[] = rows.map(([step, checkpoint, result, next, nextCheckpoint]) => ({
      step: step as Step, checkpoint: cp(checkpoint!), result: result!, next: next as Next, nextCheckpoint: cp(nextCheckpoint!),
    }));
    expect(parsed).toEqual(ROUTES);
    for (const r of parsed) {
      expect(STEPS).toContain(r.step);
      expect(NEXTS).toContain(r.next);
      expect(CHECKPOINTS).toContain(r.checkpoint);
    }
  });

  it("states the simulator's entry step for every lifecycle status", () => {
    const rows = tableAfter(text, '| lifecycle status | first step |');
    const stated = new Map(rows.map(([status, step]) => [status, step]));
    for (const status of LIFECYCLE_STATUSES) {
      const pos = entryStep(status);
      expect(stated.get(status), status).toBe(pos ? stepKey(pos) : 'nothing to do: end at once');
    }
    expect(stated.get('anything else')).toBe(stepKey(entryStep('unknown')!));
  });

  it('says how to stop, how to write the signal atomically, and how to resume', () => {
    expect(text).toMatch(new RegExp(`^name: ${SKILL_NAME}$`, 'm'));
    expect(text).toContain('$ARGUMENTS');
    expect(text).toContain('TASK/.auto-stop');
    expect(text).toContain(`mv TASK/${SIGNAL_TMP_FILE} TASK/${SIGNAL_FILE}`);
    expect(text).toMatch(/in this one turn/i);
    expect(text).toMatch(/compact/);
    // the example signal is one the supervisor accepts
    const example = /Example: `(\{.*?\})`/.exec(text)![1]!;
    expect(JSON.parse(example)).toMatchObject({ step: 'check', result: 'PASS', next: 'exec', checkpoint: 'post-plan' });
  });

  it('tells its own unedited copy (current or older) from an edited one', () => {
    expect(classifyInstalledSkill(skillFile())).toEqual({ state: 'current' });
    expect(classifyInstalledSkill(skillFile().replace('Never ask', 'Always ask'))).toEqual({ state: 'edited' });
    expect(classifyInstalledSkill('# my own skill\n')).toEqual({ state: 'edited' });
    expect(classifyInstalledSkill(skillFile().replace(/v\d+ sha256/, 'v0 sha256'))).toEqual({ state: 'outdated', version: 0 });
  });
});
