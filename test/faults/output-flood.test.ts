import { afterEach, describe, expect, it } from 'vitest';
import { type CliRun, killLeftovers, startServe } from '../helpers/cli.js';
import { http } from '../helpers/http.js';
import { runsOf } from '../helpers/db.js';
import { eventsAt, integrity, makeWorkspace, percentile, type Workspace } from './helpers/loops.js';
import { rssKiB } from './helpers/procs.js';
import { recordRow, scale } from './helpers/results.js';

// Fault: one agent floods its terminal (100k lines, long: 1.9M lines, ~100 MB) while
// other loops run in the same supervisor (`serve`). Must hold: every loop, the flooder
// included, ends `complete`; the supervisor's memory stays bounded (< 300 MiB more).
// Measured: the API's latency during the flood (the supervisor's responsiveness).

let ws: Workspace;
const children: CliRun[] = [];
afterEach(async () => {
  await killLeftovers(children);
  ws?.cleanup();
});

describe('fault: output flood in one session while others run', () => {
  it('every loop completes, memory bounded', async () => {
    const lines = scale(50_000, 1_900_000);
    const others = scale(3, 9);
    ws = makeWorkspace('autodeck-fault-');
    const { run: serve, port, token } = await startServe(ws, children);
    const pid = serve.child.pid!;
    const baseRss = rssKiB(pid);
    const flooder = ws.module('flooder', { scenario: { stepSeconds: 0.1, flood: { atIteration: 2, lines } } });
    const calm = Array.from({ length: others }, (_, i) => ws.module(`calm${i}`, { scenario: { stepSeconds: 0.3, steps: 6 } }));
    for (const dir of [flooder, ...calm]) {
      const r = await http({ method: 'POST', path: '/api/sessions/auto/task-auto', port, token, body: { taskDir: dir, maxIterations: 100 } });
      expect(r.status, r.text).toBe(201);
    }
    const latencies: number[] = [];
    let maxRss = baseRss;
    const all = [flooder, ...calm];
    while (!all.every((d) => runsOf(ws.db, d).length > 0)) {
      const t0 = performance.now();
      await http({ path: '/api/task-auto/lookup?taskDir=' + encodeURIComponent(flooder), port, token }, 60_000);
      latencies.push(performance.now() - t0);
      maxRss = Math.max(maxRss, rssKiB(pid));
      await new Promise((r) => setTimeout(r, 50));
      if (latencies.length > 20 * 60 * 5) break; // ~5 minutes at most
    }
    const outcomes = all.map((d) => runsOf(ws.db, d)[0]?.outcome ?? 'none');
    const grewMiB = Math.round((maxRss - baseRss) / 1024);
    const lost = outcomes.filter((o) => o !== 'complete').length;
    const flooded = eventsAt(ws.db, flooder).some((e) => e.kind === 'signal' && e.detail.iteration === 3);
    const pass = lost === 0 && flooded && grewMiB < 300 && integrity(ws.db) === 'ok';
    recordRow({ fault: `output flood: ${lines} lines (~${Math.round((lines * 55) / 1e6)} MB) in one session, ${others} other loops`, atRisk: others + 1, lost, doubled: 0, pass,
      note: `RSS +${grewMiB} MiB at most; API p99 ${Math.round(percentile(latencies, 99))} ms, worst ${Math.round(Math.max(...latencies))} ms over ${latencies.length} calls` });
    expect(outcomes, JSON.stringify(eventsAt(ws.db, flooder).map((e) => e.kind))).toEqual(Array(others + 1).fill('complete'));
    expect(flooded).toBe(true);
    expect(grewMiB).toBeLessThan(300);
    expect(integrity(ws.db)).toBe('ok');
  });
});
