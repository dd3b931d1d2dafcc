/**
 * A PTY thread started before its job is known (pty-thread.ts takes it):
 * its start (~50 ms: a V8 isolate and node-pty) then overlaps the loading of
 * the rest of `run`. Kept apart from pty-thread.ts, which imports node-pty,
 * so that loading this costs next to nothing. Unused, it keeps nothing alive.
 */
import { Worker } from 'node:worker_threads';
import { workerUrl } from '../util/worker-url.js';

const newWorker = () => new Worker(workerUrl('pty/pty-worker.js'));
let warm: Worker | undefined;

export function warmPtyThread(): void {
  if (warm) return;
  const w = newWorker();
  warm = w;
  w.unref();
  w.once('error', () => {
    if (warm === w) warm = undefined;
  });
}

/** The warm thread, or a new one: referenced, for a job to run on. */
export function takePtyThread(): Worker {
  const w = warm ?? newWorker();
  warm = undefined;
  w.ref();
  return w;
}
