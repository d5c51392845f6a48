import { afterEach, describe, expect, it } from 'vitest';
import { renderApp, type Rendered } from '../helpers/renderApp.js';
import { FakeModel, loopRow, moduleRow } from '../helpers/fakeModel.js';

// "Needs you" in the dashboard: the STATE word, the reason and the
// prompt in STEP, printable and cut to the width, and the header's count first.

let app: Rendered | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

const lines = (frame: string): string[] => frame.split('\n');
const width = (line: string): number => [...line.replace(/\x1b\[[0-9;]*m/g, '')].length;

function model(): FakeModel {
  const text = `Bash: git push --force origin main \u001b[2J\u0007&& echo ${'x'.repeat(120)} — Do you want to proceed?`;
  return new FakeModel([
    moduleRow('asks', { loop: loopRow('/ws/AiTasks/asks', { waitingFor: { reason: 'permission', text, since: new Date().toISOString() } }) }),
    moduleRow('works', { loop: loopRow('/ws/AiTasks/works') }),
  ]);
}

describe('a loop that needs you', () => {
  it.each([120, 100, 80])('%i columns: `? needs you`, the reason and the prompt, escapes gone, cut to the width; counted first in the header', async (columns) => {
    app = renderApp({ model: model(), columns });
    const f = await app.waitForFrame((f) => f.includes('asks') && f.includes('works'), 'the rows');
    expect(lines(f)[0]).toMatch(/ {2}\? 1 needs you {2}▶ 1 running/);
    const row = lines(f).find((l) => l.includes('asks'))!;
    expect(row).toContain('? needs you');
    // the reason and the prompt, as much as the STEP column holds (where the width has one)
    if (f.includes('STEP')) expect(row).toMatch(/ permission(?:: Bash:[^…]*)?… /);
    expect(f).not.toContain('\u001b[2J');
    expect(f).not.toContain('\u0007');
    for (const l of lines(f)) expect(width(l)).toBeLessThanOrEqual(columns);
  });
});
