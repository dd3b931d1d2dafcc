/**
 * A thread's own scheduling priority. On Linux each thread has its own nice
 * value (setpriority on a thread id moves that thread alone), so a thread
 * that only keeps records can step back for the ones a job waits on: under
 * a flood on two cores, the job's writes wait whenever the thread reading
 * its terminal waits for a core.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The calling thread's id on Linux (from /proc/thread-self), else undefined. */
export function threadId(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Lowers the calling thread's priority to `nice` (never raises it: a
 * process started at a higher nice keeps it). Returns the nice value the
 * thread has after, or undefined where threads have no nice of their own
 * (not Linux) or the change was refused.
 */
export function niceThisThread(nice: number): number | undefined {
  const tid = threadId();
  if (tid === undefined) return undefined;
  try {
    const now = getPriority(tid);
    if (now < nice) setPriority(tid, nice);
    return getPriority(tid);
  } catch {
    return undefined;
  }
}
