#!/usr/bin/env node
/**
 * A PTY host client in a process of its own, for tests that kill -9 it:
 * connects (starting the host), spawns the jobs given as JSON in argv[3]
 * ([{id, script, recording?}], each `sh -c script` in argv[2]'s cwd),
 * attaches to each, and prints one JSON line {hostPid, pids} on stdout once
 * every job has printed something. Then it stays attached until killed.
 *   node ptyhost-client.mjs STATE_DIR WORK_DIR JOBS_JSON
 * Needs a build (dist/).
 */
import { PtyHostClient } from '../../dist/src/ptyhost/client.js';

const [stateDir, workDir, jobsJson] = process.argv.slice(2);
const jobs = JSON.parse(jobsJson);
const client = await PtyHostClient.connect(stateDir);
const env = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined));
const pids = {};
const heard = new Set();
for (const j of jobs) {
  const spec = { id: j.id, command: 'sh', args: ['-c', j.script], cwd: workDir, env, cols: 80, rows: 24 };
  if (j.recording) spec.recording = j.recording;
  pids[j.id] = (await client.spawn(spec)).pid;
  await client.attach(j.id, () => {
    heard.add(j.id);
    if (heard.size === jobs.length && !heard.has('*')) {
      heard.add('*');
      process.stdout.write(`${JSON.stringify({ hostPid: client.hostPid, pids })}\n`);
    }
  }, () => undefined);
}
setInterval(() => undefined, 60_000);
