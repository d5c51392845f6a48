import { fileURLToPath } from 'node:url';
import { agreesWithSource, category, judge, loadCorpus } from './corpusData.js';

/*
 * `npm run corpus`: how far classifyScreen agrees with the fixture corpus, per agent and
 * category, plus busy screens read as idle (must be 0).
 * Exits non-zero when any fixture disagrees.
 */
const root = fileURLToPath(new URL('../../../test/fixtures/screens', import.meta.url));
const corpus = loadCorpus(root);
const table = new Map<string, { n: number; ok: number }>();
const misses: string[] = [];
let busyAsIdle = 0;
const sourceTable = new Map<string, { n: number; ok: number }>();
const sourceMisses: string[] = [];
for (const e of corpus) {
  const { kind, agrees } = judge(e);
  const withSource = agreesWithSource(e.theirs, kind);
  if (withSource !== undefined) {
    for (const key of [`${e.agent}\t${e.version}`, 'all\tall']) {
      const t = sourceTable.get(key) ?? { n: 0, ok: 0 };
      t.n++;
      if (withSource) t.ok++;
      sourceTable.set(key, t);
    }
    if (!withSource) sourceMisses.push(`  ${e.agent}/${e.version}/${e.file}: the source expects ${e.theirs}, autodeck reads ${kind}`);
  }
  const origin = e.source.startsWith('real capture') ? 'captured' : 'copied';
  for (const key of [`${e.agent}\t${category(e.expected)}`, `${e.agent}\tall`, `all\t${category(e.expected)}`, `all\t(${origin})`, 'all\tall']) {
    const t = table.get(key) ?? { n: 0, ok: 0 };
    t.n++;
    if (agrees) t.ok++;
    table.set(key, t);
  }
  if (e.expected === 'busy' && kind === 'idle') busyAsIdle++;
  if (!agrees) misses.push(`  ${e.agent}/${e.version}/${e.file}: expected ${e.expected}, got ${kind}`);
}
const rows = [...table.entries()].sort(([a], [b]) => (a.startsWith('all') === b.startsWith('all') ? a.localeCompare(b) : a.startsWith('all') ? 1 : -1));
console.log('agent\tcategory\tagree\tof\tpercent');
for (const [key, { n, ok }] of rows) console.log(`${key}\t${ok}\t${n}\t${((100 * ok) / n).toFixed(1)}%`);
console.log(`busy screens read as idle: ${busyAsIdle}`);
console.log('\nagainst the source project\'s own expectation (copied test inputs only; mapping in each folder\'s README)');
console.log('agent\tfolder\tagree\tof\tpercent');
for (const [key, { n, ok }] of [...sourceTable.entries()].sort()) console.log(`${key}\t${ok}\t${n}\t${((100 * ok) / n).toFixed(1)}%`);
if (sourceMisses.length > 0) console.log(`deliberate disagreements (${sourceMisses.length}; each has a note in its manifest):\n${sourceMisses.join('\n')}`);
if (misses.length > 0) {
  console.log(`disagreements (${misses.length}):\n${misses.join('\n')}`);
  process.exitCode = 1;
}
