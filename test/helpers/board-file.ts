/** What a daemon left on disk, read without it: the board file, the PTY host's lock, a job's log. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { toJobRecord, toTransitionRecord, type JobRow, type TransitionRow } from '../../src/board/rows.js';
import type { JobRecord, TransitionRecord } from '../../src/board/types.js';
import { isAlive, lockOwner } from '../../src/daemon/lock.js';

/** The live PTY host's pid for a state directory, from run/ptyhost.lock; null when none. */
export function ptyhostPid(state: string): number | null {
  const pid = lockOwner(join(state, 'run', 'ptyhost.lock'));
  return pid !== null && isAlive(pid) ? pid : null;
}

/** The board read straight from board.sqlite (read-only), for when no daemon runs. */
export function readBoardFile(state: string): { jobs: JobRecord[]; transitions: (job: string) => TransitionRecord[] } {
  const file = join(state, 'board.sqlite');
  if (!existsSync(file)) throw new Error(`no board at ${file}`);
  const db = new Sqlite(file, { readonly: true, fileMustExist: true });
  try {
    const jobs = (db.prepare('SELECT * FROM jobs ORDER BY seq').all() as JobRow[]).map(toJobRecord);
    const all = (db.prepare('SELECT job, time, state, reason FROM transitions ORDER BY seq').all() as TransitionRow[]).map(toTransitionRecord);
    return { jobs, transitions: (job: string) => all.filter((t) => t.job === job) };
  } finally {
    db.close();
  }
}

/** The pid a job's PTY runs as, from its log.jsonl ("job started"). */
export function jobPid(job: JobRecord): number {
  if (!job.paths) throw new Error(`job ${job.name} has no paths yet`);
  for (const line of readFileSync(job.paths.log, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const o = JSON.parse(line) as { msg?: string; pid?: number };
    if (o.msg === 'job started' && typeof o.pid === 'number') return o.pid;
  }
  throw new Error(`no "job started" line with a pid in ${job.paths.log}`);
}

/** The board without fields that move on their own while nothing happens (last_activity). */
export function stable(jobs: JobRecord[]): unknown[] {
  return jobs.map(({ last_activity: _la, ...rest }) => rest);
}

/** The daemon's log lines (all daemon.N.log files), parsed. */
export function daemonLog(state: string): Array<Record<string, unknown>> {
  return readdirSync(state)
    .filter((f) => /^daemon\.\d+\.log$/.test(f))
    .flatMap((f) => readFileSync(join(state, f), 'utf8').split('\n'))
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
