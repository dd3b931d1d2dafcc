/**
 * Loaded into a nightshift daemon with NODE_OPTIONS="--require …/heap-daemon.cjs"
 * (only the daemon's own process acts on it, as profile-daemon.cjs). Every
 * 20 ms it reads process.memoryUsage() and V8's heap spaces, and keeps the
 * reading with the highest RSS; it also runs V8's sampling heap profiler over
 * every allocation, collected or not, so the profile says where a flood's
 * allocations come from, not only what is left at exit. At exit it writes
 * $HEAP_OUT-PID.json (default /tmp/daemon.heap-PID.json): the first reading, the peak
 * one, each space's own peak, and a reading every 100 ms, in MB; and beside it …json.heapprofile (open
 * it in Chrome's DevTools, or sum it with dist/bench/probes/heap-sites.js).
 */
'use strict';
if (process.argv.includes('daemon') && process.argv.some((a) => a.endsWith('nightshift.js'))) {
  const inspector = require('node:inspector');
  const v8 = require('node:v8');
  const fs = require('node:fs');
  const MB = 1024 * 1024;
  const reading = () => {
    const m = process.memoryUsage();
    const r = { t: Math.round(performance.now()), rss: m.rss / MB, heapTotal: m.heapTotal / MB, heapUsed: m.heapUsed / MB, external: m.external / MB, arrayBuffers: m.arrayBuffers / MB };
    for (const s of v8.getHeapSpaceStatistics()) r[s.space_name] = s.space_size / MB;
    return r;
  };
  const first = reading();
  let peak = first;
  const spacePeaks = { ...first };
  // Every fifth reading too (100 ms apart): a flood's growth is a change over seconds, not one peak.
  const series = [first];
  let n = 0;
  setInterval(() => {
    const r = reading();
    if (r.rss > peak.rss) peak = r;
    for (const k of Object.keys(r)) if (k !== 't' && r[k] > spacePeaks[k]) spacePeaks[k] = r[k];
    if (++n % 5 === 0) series.push(r);
  }, 20).unref();
  const session = new inspector.Session();
  session.connect();
  session.post('HeapProfiler.enable', () =>
    session.post('HeapProfiler.startSampling', { samplingInterval: 64 * 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }),
  );
  process.on('exit', () => {
    // One file per daemon: a bench case starts several.
    const out = `${process.env.HEAP_OUT || '/tmp/daemon.heap'}-${process.pid}.json`;
    fs.writeFileSync(out, JSON.stringify({ first, peak, spacePeaks, series }));
    session.post('HeapProfiler.stopSampling', (err, res) => {
      if (!err && res) fs.writeFileSync(`${out}.heapprofile`, JSON.stringify(res.profile));
    });
  });
}
