import { afterEach, describe, expect, it } from 'vitest';
import displayWidth from 'string-width';
import { renderApp, type Rendered } from '../helpers/renderApp.js';
import { FakeModel, finishedRun, loopRow, moduleRow } from '../helpers/fakeModel.js';

// The wide table's tokens/$ and ctx % columns (src/deck/layout.ts WIDE_SPEND_MIN_COLUMNS).

let app: Rendered | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

const lines = (frame: string): string[] => frame.split('\n').map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));

function model(): FakeModel {
  return new FakeModel([
    moduleRow('priced', { loop: loopRow('/ws/AiTasks/priced', { tokens: 12_345, costUsd: 0.41, contextTokens: 170_000, contextWindow: 200_000 }) }),
    moduleRow('unpriced', { loop: loopRow('/ws/AiTasks/unpriced', { tokens: 2_000_000, costUsd: null, contextTokens: 50_000, contextWindow: 1_000_000 }) }),
    moduleRow('no-transcript', { loop: loopRow('/ws/AiTasks/no-transcript') }),
    moduleRow('finished', { lastRun: finishedRun('/ws/AiTasks/finished', 'complete', 4, 3, { tokens: 900, costUsd: 0.01 }) }),
  ]);
}

describe('the tokens/$ and ctx % columns', () => {
  it('at 130 columns: under their headings, tokens only without a price, – without a transcript', async () => {
    app = renderApp({ model: model(), columns: 130 });
    const f = lines(await app.waitForFrame((f) => f.includes('no-transcript'), 'the rows'));
    const header = f.find((l) => l.includes('MODULE'))!;
    const columnOf = (line: string, text: string, from = 0): number => displayWidth(line.slice(0, line.indexOf(text, from)));
    const row = (name: string) => f.find((l) => l.includes(name))!;
    for (const [name, spend, ctx] of [['priced', '12.3k $0.41', '85%'], ['unpriced', '2.0M', '5%'], ['no-transcript', '–', '–']] as const) {
      expect(columnOf(row(name), ` ${spend} `) + 1, `${name} spend`).toBe(columnOf(header, 'TOKENS/$'));
      const after = row(name).indexOf(` ${spend} `) + spend.length + 1;
      expect(columnOf(row(name), ` ${ctx} `, after) + 1, `${name} ctx`).toBe(columnOf(header, 'CTX'));
    }
    expect(row('finished')).toContain(' 900 $0.01 ');
    for (const l of f) expect(displayWidth(l)).toBeLessThanOrEqual(130);
  });

  it.each([100, 120, 129])('at %i columns (wide, but too narrow for them) they are left out', async (columns) => {
    app = renderApp({ model: model(), columns });
    const f = await app.waitForFrame((f) => f.includes('unpriced'), 'the rows');
    expect(f).not.toContain('TOKENS/$');
    expect(f).not.toContain('CTX');
    expect(f).toContain('RECOVERIES');
  });
});
