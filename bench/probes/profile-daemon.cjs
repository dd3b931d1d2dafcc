/**
 * Loaded into a nightshift daemon with NODE_OPTIONS="--require …/profile-daemon.cjs"
 * (children such as the PTY host and the jobs see the option too, and ignore it:
 * only the daemon's own process profiles). Takes a CPU profile of its main
 * thread (0.5 ms sampling) and notes every stall: a 5 ms interval timer that
 * came more than 25 ms late, as [start, end] in µs of the monotonic clock the
 * profile's timestamps use. Both are written when the daemon exits, to
 * $PROF_OUT (default /tmp/daemon.cpuprofile) and $PROF_OUT.stalls.json;
 * read them with dist/bench/probes/stalls.js. The profiler costs the daemon
 * CPU: read the stalls' make-up, not their length.
 */
'use strict';
if (process.argv.includes('daemon') && process.argv.some((a) => a.endsWith('nightshift.js'))) {
  const inspector = require('node:inspector');
  const fs = require('node:fs');
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 500 }, () => session.post('Profiler.start')));
  const stalls = [];
  let last = process.hrtime.bigint();
  setInterval(() => {
    const now = process.hrtime.bigint();
    if (now - last > 25_000_000n) stalls.push([Number(last / 1000n), Number(now / 1000n)]);
    last = now;
  }, 5).unref();
  process.on('exit', () => {
    const out = process.env.PROF_OUT || '/tmp/daemon.cpuprofile';
    // The main thread's own session answers synchronously, so this runs before the process is gone.
    session.post('Profiler.stop', (err, res) => {
      if (!err && res) fs.writeFileSync(out, JSON.stringify(res.profile));
    });
    fs.writeFileSync(`${out}.stalls.json`, JSON.stringify(stalls));
  });
}
