import { describe, expect, it } from 'vitest';
import { claudeTitle, installClaudeCodes } from '../helpers/claudeCode.js';
import { startFakeAnthropic } from '../helpers/fakeAnthropic.js';
import { loopScript, walk } from '../helpers/claudeLoop.js';
import { makeWorkspace } from '../helpers/workspace.js';
import { runCli } from '../helpers/cli.js';
import { eventsOf, runsOf } from '../helpers/db.js';
import { claudeProject, e2eScope, QUICK_STALLS } from '../helpers/claudeRun.js';

// maxTokens with the real Claude Code: the fake model plays the /autodeck-auto loop (real
// Read / Write / Bash calls), each response carrying usage; autodeck reads the session's
// transcript at each signal and stops the loop with `budget` once it shows maxTokens.

const installs = await installClaudeCodes();

const t = e2eScope();

// Every main-turn response: 1,000 input + 500 cache writes + 8,000 cache reads + 100 output = 9,600 tokens,
// at claude-sonnet-4-5's price (3 / 15, writes 3.75, reads 0.3 USD per MTok): $0.008775.
const USAGE = { input_tokens: 1000, cache_creation_input_tokens: 500, cache_read_input_tokens: 8000, output_tokens: 100 };
const PER_MESSAGE = 9600;
const PER_MESSAGE_USD = 0.008775;
/** Each iteration of loopScript is three responses: Read the stop file, Write the signal, Bash mv. */
const PER_ITERATION = 3 * PER_MESSAGE;

interface PerIteration { iteration: number; tokens: number | null; costUsd: number | null; partial: boolean }

for (const install of installs) {
  describe.skipIf(!install.bin)(claudeTitle('maxTokens under the real Claude Code', install), () => {
    it('stops the loop with budget at the first signal past maxTokens; each iteration\'s share is recorded', async () => {
      const ws = (t.ws = makeWorkspace('autodeck-claude-budget-'));
      const dir = ws.module('spender', { status: 'planning' });
      // two iterations, then the model reads the stop file and ends its turn (as the skill says)
      const signals = walk('planning').slice(0, 2);
      const fake = t.fake = await startFakeAnthropic(loopScript(dir, signals, { final: 'The stop file asks me to stop; stopping here.' }), {
        usage: (_n, kind) => (kind === 'main' ? USAGE : {}),
        model: 'claude-sonnet-4-5-20250929',
      });
      const env = claudeProject(ws, install.bin!, fake.port);
      expect((await runCli(ws, ['init'], { env })).code).toBe(0);

      // 40,000: under it after iteration 1 (28,800, perhaps 38,400 if the next request came first), over it at iteration 2
      const r = await runCli(ws, ['run', dir, '--db', ws.db, '--root', ws.root, '--max-tokens', '40000', ...QUICK_STALLS], { env });
      const events = JSON.stringify(eventsOf(ws.db, dir).map((e) => [e.kind, e.detail]));
      expect(r.code, `${r.stderr}\n${events}`).toBe(1);
      const [run] = runsOf(ws.db, dir);
      expect(run, events).toMatchObject({ outcome: 'budget', stop_reason: 'budget', iterations: 2 });
      const [budget] = eventsOf(ws.db, dir, 'budget');
      expect(budget!.detail).toMatchObject({ maxTokens: 40000 });
      expect(budget!.detail.tokens as number).toBeGreaterThanOrEqual(2 * PER_ITERATION);
      expect((budget!.detail.tokens as number) % PER_MESSAGE).toBe(0);
      // the run holds every response of the session: 2 × 3 and the final text
      expect(run!.tokens).toBe(7 * PER_MESSAGE);
      expect(run!.cost_usd).toBeCloseTo(7 * PER_MESSAGE_USD, 10);

      // per iteration: an iteration ends when its signal was published (the rename), so the
      // Bash call that ran the rename is in it and the next iteration's first request is not
      const history = JSON.parse((await runCli(ws, ['history', dir, '--json', '--iterations', '--db', ws.db, '--root', ws.root])).stdout) as { runs: { perIteration: PerIteration[] }[] };
      const per = history.runs[0]!.perIteration;
      expect(per.map((i) => [i.iteration, i.tokens, i.partial])).toEqual([[1, PER_ITERATION, false], [2, PER_ITERATION, false], [3, PER_MESSAGE, true]]);
      expect(per[0]!.costUsd).toBeCloseTo(3 * PER_MESSAGE_USD, 10);
    }, 180_000);
  });
}
