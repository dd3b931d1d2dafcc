/**
 * Runs programs for the daemon's thread (exec-thread.ts). Starting a child
 * blocks the thread that starts it until the child has exec'd: libuv waits
 * on a pipe for the exec's outcome, and under load the child waits for a
 * core first. Here that wait is this thread's, not the daemon's.
 */
import { execFile } from 'node:child_process';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { ExecOutcome, ExecReply, ExecRequest } from './exec-thread.js';

if (!parentPort) throw new Error('exec-worker runs as a worker thread');
const port = parentPort;

port.on('message', (r: ExecRequest) => {
  const reply = (m: ExecOutcome) => port.postMessage({ id: r.id, ...m } as ExecReply);
  try {
    const child = execFile(r.file, r.args, { cwd: r.cwd, encoding: 'utf8', timeout: r.timeoutMs, maxBuffer: r.maxBuffer }, (e, stdout) =>
      reply(e ? { ok: false, error: e.message } : { ok: true, stdout }),
    );
    if (r.niceness !== undefined && child.pid !== undefined) {
      try {
        setPriority(child.pid, r.niceness);
      } catch {
        // Gone already, or not allowed: it runs at the usual priority.
      }
    }
  } catch (e) {
    reply({ ok: false, error: (e as Error).message });
  }
});
