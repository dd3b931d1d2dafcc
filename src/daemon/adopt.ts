/**
 * At start, what becomes of the jobs the board has running or blocked
 * (the previous daemon's): a job the PTY host still holds is adopted; one
 * it does not died with its host (a reboot, a host killed) and is ended
 * interrupted; while a host of another version holds the directory, the
 * jobs it may hold are out of reach and ended lost, and left running.
 */
import type { Board } from '../board/board.js';
import type { JobReason, JobRecord } from '../board/types.js';
import type { Pager } from '../notify/pager.js';
import type { Logger } from '../supervisor/logger.js';
import type { HostLink } from './host-link.js';
import { recoverCrashedJobs, type Recovered } from './recover.js';

export interface RecoveryPlan {
  readonly adopt: JobRecord[];
  /** Gone with their host: ended done/interrupted. */
  readonly gone: JobRecord[];
  /** Host jobs still running that the board does not have running: nobody's to supervise. */
  readonly strays: string[];
  /** Pids of hosts of another version (moved aside): the gone jobs may run on there. */
  readonly otherHosts: number[];
}

export async function planRecovery(board: Board, host: HostLink): Promise<RecoveryPlan> {
  const orphans = board.list().filter((j) => j.state === 'running' || j.state === 'blocked');
  const held = await host.list();
  const byId = new Map(held.map((h) => [h.id, h]));
  const mine = new Set(orphans.map((j) => j.id));
  return {
    adopt: orphans.filter((j) => byId.has(j.id)),
    gone: orphans.filter((j) => !byId.has(j.id)),
    strays: held.filter((h) => h.exit === null && !mine.has(h.id)).map((h) => h.id),
    otherHosts: [...host.otherHosts],
  };
}

export function endOrphans(board: Board, pager: Pager, plan: RecoveryPlan, now: number): Recovered[] {
  if (plan.gone.length === 0) return [];
  const ids = new Set(plan.gone.map((j) => j.id));
  if (plan.otherHosts.length === 0) return recoverCrashedJobs(board, pager, now, ids);
  const lost: JobReason = {
    code: 'lost',
    detail: `a PTY host of another nightshift version (pid ${plan.otherHosts.join(', ')}) may still run it; this daemon cannot reach it (see run/ptyhost.<pid>.sock)`,
  };
  return recoverCrashedJobs(board, pager, now, ids, lost);
}

/** What recovery needs from the daemon. */
export interface RecoveryHost {
  readonly board: Board;
  readonly pager: Pager;
  readonly host: HostLink;
  readonly log: Logger;
  /** Takes over a job the PTY host still holds. */
  adopt(rec: JobRecord): void;
}

/**
 * The previous daemon's jobs: those the PTY host still holds (running, or
 * ended while no daemon watched) are adopted and go on in the state the
 * board has; the rest died with their host and are ended for good (board,
 * pages, their files). Queued jobs stay queued. Returns how many were adopted.
 */
export async function recoverJobs(d: RecoveryHost): Promise<number> {
  const plan = await planRecovery(d.board, d.host);
  // Not running on the board (the daemon died between the spawn and the board's running, or after the board's done): nobody supervises it, so it must not run on.
  for (const id of plan.strays) {
    d.log.warn({ job: id }, 'the PTY host runs a job the board does not have running; killed');
    await d.host.kill(id).catch((e: unknown) => d.log.error({ job: id, err: e }, 'could not kill a stray job'));
  }
  for (const rec of plan.adopt) {
    d.log.info({ job: rec.id, name: rec.name, state: rec.state }, 'adopted a job from the PTY host');
    d.adopt(rec);
  }
  for (const r of endOrphans(d.board, d.pager, plan, Date.now())) {
    d.log.warn({ job: r.job.id, name: r.job.name, was: r.was?.state, reason: r.job.reason.code, problems: r.problems }, 'job was running when the daemon died and its terminal is gone');
  }
  return plan.adopt.length;
}
