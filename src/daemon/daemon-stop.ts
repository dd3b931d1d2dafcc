/**
 * How the daemon stops: drain, now or detach, a second request only ever
 * firmer; a stop that runs out of time is forced; the last job out shuts
 * the daemon down. What it holds is released by the daemon's one
 * DisposableStore, the list a failed start releases too (daemon.ts).
 */
import type { Board } from '../board/board.js';
import type { Logger } from '../supervisor/logger.js';
import { within } from '../util/within.js';
import type { Scheduler, StopState } from './scheduler.js';

/**
 * drain: finish running jobs, then exit. now: stop them (the ladder), then
 * exit. detach: leave them running in the PTY host for the next daemon.
 * Defined with the `stop` command's schema (src/api/results.ts).
 */
export type { StopMode } from '../api/results.js';
import type { StopMode } from '../api/results.js';

/** A second stop request can only make the first one firmer (a drain becomes now); detach is its own. */
function strongerStop(current: StopMode | undefined, asked: StopMode): StopMode {
  if (current === 'now' || asked === 'now') return 'now';
  if (current === 'detach' || asked === 'detach') return 'detach';
  return 'drain';
}

/**
 * `shutdown --now` (or a second SIGTERM) gives jobs the graceful ladder
 * (interrupt, terminate, kill: 6 s), then kills what is left and exits, so
 * the daemon is gone within 10 s whatever its jobs do.
 */
const FORCE_AFTER_MS = 7_500;
const FORCE_GRACE_MS = 1_000;

/** What a stop needs from its daemon (kept narrow so the two files stay apart). */
export interface StopHost {
  readonly board: Board;
  readonly log: Logger;
  readonly jobs: Pick<Scheduler, 'running' | 'runningCount' | 'size' | 'ids' | 'letGo'>;
  /** The daemon's tick ends: nothing is scheduled or paged by it any more. */
  stopTick(): void;
  /** Closes everything the daemon holds, in order, the lock last. */
  release(): Promise<void>;
}

export class DaemonStop implements StopState {
  private stopping: StopMode | undefined;
  private forceTimer: NodeJS.Timeout | undefined;
  private closing = false;
  readonly stopped: Promise<void>;
  private resolveStopped!: () => void;

  constructor(private readonly host: StopHost) {
    this.stopped = new Promise((r) => (this.resolveStopped = r));
  }

  /** The stop asked for so far, if any. */
  get mode(): StopMode | undefined {
    return this.stopping;
  }

  /** The daemon is closing what it holds: nothing starts, and nothing more is recorded for a job. */
  get shuttingDown(): boolean {
    return this.closing;
  }

  /**
   * drain: take no new jobs, let running ones finish, then exit.
   * now: also stop running jobs gracefully (interrupt, terminate, kill), and
   * exit by FORCE_AFTER_MS + FORCE_GRACE_MS whatever state they are in.
   */
  async stop(mode: StopMode): Promise<void> {
    const { jobs } = this.host;
    this.stopping = strongerStop(this.stopping, mode);
    this.host.log.info({ mode: this.stopping, running: jobs.runningCount, starting: jobs.size - jobs.runningCount }, 'daemon stopping');
    if (this.stopping === 'detach') {
      await this.detachAll();
      return this.stopped;
    }
    if (this.stopping === 'now') {
      for (const j of jobs.running()) void j.stop('interrupted');
      this.forceTimer ??= setTimeout(() => void this.force(), FORCE_AFTER_MS);
    }
    // Jobs still starting count too: their records must land before the board closes.
    if (jobs.size === 0) await this.shutdown();
    return this.stopped;
  }

  /**
   * detach: let go of every live job without stopping it (they run on in the
   * PTY host, the board keeps them running or blocked for the next daemon to
   * adopt), flush the pages, exit. A job still starting is let go of as soon
   * as it is live (Scheduler.launch).
   */
  private async detachAll(): Promise<void> {
    const { jobs, log } = this.host;
    for (const j of jobs.running()) {
      jobs.letGo(j.id);
      await j.detach().catch((e: unknown) => log.error({ job: j.id, err: e }, 'detaching the job failed'));
    }
    log.info({ starting: jobs.size }, 'jobs left running in the PTY host');
    if (jobs.size === 0) await this.shutdown();
  }

  /** The graceful stop ran out of time: kill what is left, say so on the board, exit. */
  private async force(): Promise<void> {
    const { jobs, board } = this.host;
    const left = jobs.running();
    this.host.log.warn({ jobs: left.map((j) => j.id), starting: jobs.size - left.length }, 'jobs did not stop in time; killing them');
    for (const j of left) j.kill();
    await within(FORCE_GRACE_MS, Promise.all(left.map((j) => j.finished)));
    for (const id of jobs.ids()) {
      const rec = board.get(id);
      // A job still starting is queued on the board: it stays queued and runs at the next start.
      if (rec && (rec.state === 'running' || rec.state === 'blocked')) {
        board.transition(id, 'done', { code: 'interrupted', detail: 'did not stop in time at shutdown --now; killed' }, Date.now());
      }
    }
    await this.shutdown();
  }

  async shutdown(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.host.stopTick();
    clearTimeout(this.forceTimer);
    await this.host.release();
    this.resolveStopped();
  }
}
