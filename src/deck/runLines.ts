import { columns } from '../format/table.js';
import { duration, printable } from '../format/event.js';
import { scoreOf } from '../history/score.js';
import type { RunRow } from '../store/runs.js';
import { cellOf, shortAge } from './cells.js';
import { stateDef } from './states.js';

/**
 * The history view's lines (`h`): one module's finished runs, newest first, a header
 * line first. Outcome as glyph and word (the same as the table's state column), then
 * iterations of the limit, active time, the score and how long ago it ended.
 */
export function runLines(runs: readonly RunRow[], now: number): string[] {
  const head = ['ENDED', 'OUTCOME', 'ITER', 'ACTIVE', 'SCORE', 'RECOVERIES', 'RESTARTS'];
  const rows = runs.map((r) => {
    const cell = cellOf(stateDef('outcome', r.outcome));
    const ended = Date.parse(r.endedAt);
    return [
      Number.isNaN(ended) ? '-' : `${shortAge(now - ended)} ago`,
      `${cell.glyph} ${cell.word}${r.forced ? ' (forced)' : ''}`,
      `${r.iterations}/${r.maxIterations}`,
      duration(r.activeMs),
      scoreOf(r).toFixed(2),
      String(r.recoveries),
      String(r.restarts),
    ].map(printable);
  });
  return columns([head, ...rows], ['r', 'l', 'r', 'r', 'r', 'r', 'r']);
}
