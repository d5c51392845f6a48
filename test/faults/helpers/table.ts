import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FaultRow } from './results.js';

/** Markdown table of the rows, as the lead quotes it. */
export function formatTable(rows: readonly FaultRow[]): string {
  const lines = ['| fault | loops at risk | lost | doubled | result | measured |', '|---|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.fault} | ${r.atRisk} | ${r.lost} | ${r.doubled} | ${r.pass ? 'pass' : 'FAIL'} | ${r.note ?? ''} |`);
  return lines.join('\n');
}

/** vitest globalSetup: a results file for the test processes, printed at the end. */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'autodeck-faults-'));
  const file = join(dir, 'results.ndjson');
  process.env.FAULTS_RESULTS = file;
  return () => {
    let rows: FaultRow[] = [];
    try {
      rows = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as FaultRow);
    } catch { /* no row recorded */ }
    process.stdout.write(`\nFault-injection results (${process.env.FAULTS_LONG === '1' ? 'long' : 'short'} version):\n\n${formatTable(rows)}\n\n`);
    rmSync(dir, { recursive: true, force: true });
  };
}
