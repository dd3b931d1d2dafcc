/**
 * Processes of a job that outlived the daemon that ran it (they ignored the
 * hang-up of their terminal). They are found by the job id in their
 * environment (NIGHTSHIFT_JOB_ID, inherited by every descendant), never by
 * a pid from a log: a pid may have been reused since. Runs once, at start.
 */
import { listOrEmpty, readOrUndefined } from '../util/soft-read.js';

/** SIGKILLs every process whose environment carries one of `jobIds`; returns the ids that had one. */
export function killSurvivors(jobIds: readonly string[]): Set<string> {
  const found = new Set<string>();
  if (jobIds.length === 0) return found;
  const wanted = new Map(jobIds.map((id) => [`NIGHTSHIFT_JOB_ID=${id}`, id]));
  for (const entry of listOrEmpty('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const id = jobOf(pid, wanted);
    if (id === undefined) continue;
    try {
      process.kill(pid, 'SIGKILL');
      found.add(id);
    } catch {
      // Gone meanwhile, or not ours to kill.
    }
  }
  return found;
}

function jobOf(pid: number, wanted: Map<string, string>): string | undefined {
  const env = readOrUndefined(`/proc/${pid}/environ`, 'latin1');
  if (env === undefined) return undefined;
  for (const v of env.split('\0')) {
    const id = wanted.get(v);
    if (id) return id;
  }
  return undefined;
}
