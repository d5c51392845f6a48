// node alloc-summary.mjs X.heapprofile [N]: top N allocating functions (self and total bytes) of a sampling heap profile.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const [file, topArg, secondsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node alloc-summary.mjs X.heapprofile [N] [seconds]');
  process.exit(2);
}
const top = Number(topArg ?? 15);
const seconds = Number(secondsArg ?? 0);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const label = ({ callFrame: f }) =>
  `${f.functionName || '(anonymous)'}${f.url ? ` ${basename(f.url)}:${f.lineNumber + 1}` : ''}`;

const self = new Map();
const total = new Map();
// Returns the subtree's bytes; a function's total counts each subtree once even when recursive.
const walk = (node, onStack) => {
  const name = label(node);
  let bytes = node.selfSize;
  self.set(name, (self.get(name) ?? 0) + node.selfSize);
  const inner = new Set(onStack).add(name);
  for (const child of node.children ?? []) bytes += walk(child, inner);
  if (!onStack.has(name)) total.set(name, (total.get(name) ?? 0) + bytes);
  return bytes;
};
const all = walk(profile.head, new Set());
const mb = (bytes) => (bytes / 1e6).toFixed(2);
console.log(`${mb(all)} MB sampled${seconds ? `, ${mb(all / seconds)} MB/s over ${seconds} s` : ''}`);
for (const [title, table] of [['self', self], ['total', total]]) {
  console.log(`\n${title}`);
  const rows = [...table].filter(([name]) => name !== '(root)').sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, bytes] of rows) console.log(`${mb(bytes).padStart(8)} MB  ${name}`);
}
