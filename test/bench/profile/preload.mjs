// Profiles the dashboard of `npm run bench:dashboard:idle` (docs/performance.md), loaded
// into every node of the bench by NODE_OPTIONS="--import <this file>" but active only in the
// dashboard (bin/autodeck.js --root ...). From PROF_START s after start, for PROF_SECONDS s:
// CPU per thread (/proc/self/task), GC counts by kind, heap statistics -> PROF_DIR/dash-PID.json;
// a CPU profile (.cpuprofile; PROF_CPU=0: none), or with PROF_ALLOC=1 a sampling allocation
// profile (.heapprofile) instead; PROF_SNAP=1 adds a heap snapshot at the end; /proc/self/smaps.
// PROF_DEFAULTS=1: AUTODECK_V8_DEFAULTS=1 for the dashboard (the bench strips AUTODECK_*).
// PROF_V8FLAGS: v8.setFlagsFromString at start, commas for spaces (GC threading flags crash V8 set this late).
import inspector from 'node:inspector';
import { writeFileSync, readdirSync, readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
const a = process.argv;
function threads() {
  const out = {};
  for (const t of readdirSync('/proc/self/task')) {
    try {
      const comm = readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim();
      const f = readFileSync(`/proc/self/task/${t}/stat`, 'utf8').split(') ')[1].split(' ');
      out[`${t} ${comm}`] = [Number(f[11]), Number(f[12])];
    } catch {}
  }
  return out;
}
if (process.env.PROF_DIR && /autodeck\.js$/.test(a[1] ?? '') && a[2] === '--root') {
  const start = Number(process.env.PROF_START ?? 35) * 1000;
  const dur = Number(process.env.PROF_SECONDS ?? 60) * 1000;
  const cpu = process.env.PROF_CPU !== '0';
  if (process.env.PROF_DEFAULTS) process.env.AUTODECK_V8_DEFAULTS = '1';
  if (process.env.PROF_V8FLAGS) v8.setFlagsFromString(process.env.PROF_V8FLAGS.replaceAll(',', ' '));
  const s = new inspector.Session();
  s.connect();
  const gcs = {};
  let gcOn = false, gcMs = 0;
  new PerformanceObserver((l) => { if (!gcOn) return; for (const e of l.getEntries()) { const k = e.detail?.kind ?? e.kind; gcs[k] = (gcs[k] ?? 0) + 1; gcMs += e.duration; } }).observe({ entryTypes: ['gc'] });
  setTimeout(() => {
    const t0 = threads(); const c0 = process.cpuUsage(); gcOn = true;
    const finish = (profile) => {
      const t1 = threads(); const c1 = process.cpuUsage(c0);
      const d = {};
      for (const k of Object.keys(t1)) { const b = t0[k] ?? [0, 0]; d[k] = `utime ${t1[k][0] - b[0]} stime ${t1[k][1] - b[1]} ticks`; }
      writeFileSync(`${process.env.PROF_DIR}/dash-${process.pid}.json`, JSON.stringify({ seconds: dur / 1000, cpuUsage: c1, threads: d, gcs, gcMs, heap: v8.getHeapStatistics(), spaces: v8.getHeapSpaceStatistics(), mem: process.memoryUsage() }, null, 1));
      if (process.env.PROF_SNAP) v8.writeHeapSnapshot(`${process.env.PROF_DIR}/dash-${process.pid}.heapsnapshot`);
      try { writeFileSync(`${process.env.PROF_DIR}/smaps-${process.pid}`, readFileSync('/proc/self/smaps')); } catch {}
      if (profile) writeFileSync(`${process.env.PROF_DIR}/dash-${process.pid}.cpuprofile`, JSON.stringify(profile));
    };
    if (process.env.PROF_ALLOC) {
      s.post('HeapProfiler.enable', () => s.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }, (e) => {
        if (e) writeFileSync(`${process.env.PROF_DIR}/err`, String(e.message));
        setTimeout(() => s.post('HeapProfiler.stopSampling', (err, r) => { writeFileSync(`${process.env.PROF_DIR}/dash-${process.pid}.heapprofile`, JSON.stringify(r.profile)); finish(); }), dur).unref();
      }));
      return;
    }
    if (!cpu) { setTimeout(() => finish(), dur).unref(); return; }
    s.post('Profiler.enable', () => s.post('Profiler.setSamplingInterval', { interval: 1000 }, () => s.post('Profiler.start', () => {
      setTimeout(() => s.post('Profiler.stop', (err, { profile }) => finish(profile)), dur).unref();
    })));
  }, start).unref();
}
