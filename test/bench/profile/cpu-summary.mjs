// node cpu-summary.mjs X.cpuprofile [N]: top N functions by self and total time, in ms and % of a core.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node cpu-summary.mjs X.cpuprofile [N]');
  process.exit(2);
}
const top = Number(topArg ?? 15);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const label = ({ callFrame: f }) =>
  `${f.functionName || '(anonymous)'}${f.url ? ` ${basename(f.url)}:${f.lineNumber + 1}` : ''}`;

// A sample's weight is the time to the next sample (timeDeltas[i + 1]).
const self = new Map();
const total = new Map();
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const ms = (deltas[i + 1] ?? 0) / 1000;
  let id = profile.samples[i];
  const seen = new Set();
  const leaf = label(nodes.get(id));
  self.set(leaf, (self.get(leaf) ?? 0) + ms);
  while (id !== undefined) {
    const name = label(nodes.get(id));
    if (!seen.has(name)) {
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + ms);
    }
    id = parent.get(id);
  }
}
const wallMs = (profile.endTime - profile.startTime) / 1000;
const print = (title, table) => {
  console.log(`${title} (profile ${(wallMs / 1000).toFixed(1)} s)`);
  const rows = [...table].filter(([name]) => name !== '(root)').sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, ms] of rows) {
    console.log(`${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / wallMs).toFixed(2).padStart(6)} %  ${name}`);
  }
};
print('self time', self);
console.log();
print('total time', total);
