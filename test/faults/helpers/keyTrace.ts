import { percentile } from './loops.js';

/**
 * Where each key's time went, from an AUTODECK_KEY_TRACE file the test wrote to as well
 * (`test send K (selected A, expect B)`, then the dashboard's `read`, `select`, `frame ...
 * selected B`): waiting to be read (the dashboard's event loop busy), then drawing (React,
 * Ink's layout and render, the frame writer). p50 / p99 in ms.
 */
export function keyTimeSplit(trace: string): { read: [number, number]; draw: [number, number]; keys: number } {
  const read: number[] = [];
  const draw: number[] = [];
  let key: { sent: number; target: string; read?: number; drawn?: boolean } | undefined;
  for (const line of trace.split('\n')) {
    const m = /^(\d+(?:\.\d+)?) (\S+) (.*)$/.exec(line);
    if (!m) continue;
    const at = Number(m[1]);
    const what = m[3]!;
    const sent = m[2] === 'test' ? /^send \S+ \(selected \S+, expect (\S+)\)$/.exec(what) : null;
    if (sent) {
      key = { sent: at, target: sent[1]! };
      continue;
    }
    if (!key || m[2] === 'test') continue;
    if (key.read === undefined && what.startsWith('read ')) {
      key.read = at;
      read.push(at - key.sent);
    } else if (key.read !== undefined && !key.drawn && what.startsWith('frame ') && what.endsWith(`selected ${key.target}`)) {
      key.drawn = true;
      draw.push(at - key.read);
    }
  }
  const p = (v: number[]): [number, number] => [Math.round(percentile(v, 50)), Math.round(percentile(v, 99))];
  return { read: p(read), draw: p(draw), keys: draw.length };
}
