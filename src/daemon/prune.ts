/**
 * `prune`: finished jobs whose end is older than a duration leave the board
 * and their folders go (recording, evidence, logs). The daemon runs it on
 * its own board; the CLI runs the same on the file when no daemon holds it.
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { Board } from '../board/board.js';
import type { JobRecord } from '../board/types.js';
import { isoTime } from '../board/validate.js';

export interface PrunedJob {
  id: string;
  name: string;
  ended: string | null;
  /** The job's folder, or null when it had none (it never started) or it lies outside the state folder's jobs/. */
  dir: string | null;
  bytes: number;
}

export interface PruneResult {
  dry_run: boolean;
  /** Jobs that ended before this time went (or would go). */
  before: string;
  jobs: PrunedJob[];
  bytes: number;
}

export interface PruneRequest {
  olderThanMs: number;
  now: number;
  dryRun: boolean;
  /** A job the caller still holds (done on the board, its files still being finished) stays. */
  busy?: (id: string) => boolean;
  /** A removed job's open pages close: nothing re-pages about a job that is gone. */
  closePages(id: string): void;
}

export async function pruneJobs(board: Board, stateDir: string, r: PruneRequest): Promise<PruneResult> {
  const before = isoTime(r.now - r.olderThanMs);
  const old = board.doneBefore(before).filter((rec) => !r.busy?.(rec.id));
  const listed = await Promise.all(old.map((rec) => describe(rec, stateDir)));
  // Off the board first: a folder removed under a row that stayed would leave a job with no story.
  const gone = r.dryRun ? listed : keep(listed, board.remove(listed.map((j) => j.id)));
  if (!r.dryRun) {
    for (const j of gone) r.closePages(j.id);
    await Promise.all(gone.map((j) => j.dir && rm(j.dir, { recursive: true, force: true })));
  }
  return { dry_run: r.dryRun, before, jobs: gone, bytes: gone.reduce((n, j) => n + j.bytes, 0) };
}

function keep(jobs: PrunedJob[], ids: string[]): PrunedJob[] {
  const removed = new Set(ids);
  return jobs.filter((j) => removed.has(j.id));
}

async function describe(rec: JobRecord, stateDir: string): Promise<PrunedJob> {
  const dir = rec.paths ? ownFolder(stateDir, rec.paths.dir) : null;
  return { id: rec.id, name: rec.name, ended: rec.ended, dir, bytes: dir ? await treeBytes(dir) : 0 };
}

/** Only a folder inside `<stateDir>/jobs/` is ever removed, whatever a board row says. */
function ownFolder(stateDir: string, dir: string): string | null {
  const rel = relative(join(resolve(stateDir), 'jobs'), resolve(dir));
  return rel !== '' && !rel.startsWith('..') && !rel.includes(sep) ? resolve(dir) : null;
}

/** Bytes under `path` (links not followed); 0 when it is gone. */
async function treeBytes(path: string): Promise<number> {
  let info;
  try {
    info = await lstat(path);
  } catch {
    return 0;
  }
  if (!info.isDirectory()) return info.size;
  const names = await readdir(path).catch(() => [] as string[]);
  const sizes = await Promise.all(names.map((n) => treeBytes(join(path, n))));
  return sizes.reduce((a, b) => a + b, info.size);
}
