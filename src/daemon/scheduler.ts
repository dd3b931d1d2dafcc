/**
 * The daemon's jobs from launch until they have ended or failed to start:
 * which queued jobs start (priority, then first come, up to --max-running),
 * the slot each holds meanwhile (job-slot.ts), and the board's word on a
 * job that cannot run.
 */
import type { Board } from '../board/board.js';
import { toReason } from '../board/reasons.js';
import type { JobRecord } from '../board/types.js';
import { isSuccess } from '../core/outcome.js';
import type { Pager } from '../notify/pager.js';
import { redactorFor } from '../notify/secrets.js';
import type { Logger } from '../supervisor/logger.js';
import type { JobTerminal } from '../supervisor/job-terminal.js';
import { describeError } from '../util/errors.js';
import type { DaemonBundles } from './bundles.js';
import { DaemonJob, type DaemonJobDeps, type JobLaunch } from './daemon-job.js';
import type { StopMode } from '../api/results.js';
import type { DaemonOptions } from './daemon-options.js';
import { endedPage } from '../notify/ended-pages.js';
import type { JobHandle, JobSlot, StartingSlot } from './job-slot.js';

/** What the scheduler needs from its daemon (kept narrow so the two files stay apart). */
/** Where the daemon is in stopping, as its scheduler sees it (DaemonStop implements it). */
export interface StopState {
  readonly mode: StopMode | undefined;
  readonly shuttingDown: boolean;
  shutdown(): Promise<void>;
}

export interface SchedulerHost {
  readonly opts: DaemonOptions;
  readonly board: Board;
  readonly pager: Pager;
  readonly bundles: DaemonBundles;
  readonly log: Logger;
  /** Where a new job's terminal comes from: the PTY host. */
  readonly terminal: JobTerminal;
  readonly disk: { readonly full: boolean };
  /** The daemon's stop (daemon-stop.ts): no new jobs once one is asked for. */
  stop(): StopState;
  diskProblem(job: DaemonJob, file: string, e: Error): void;
}

export interface SlotUse {
  used: number;
  max: number;
  running: number;
  blocked: number;
  starting: number;
}

export class Scheduler {
  /** Every job the daemon runs, by id, from its launch until it ended or failed to start. */
  private readonly slots = new Map<string, JobSlot>();

  constructor(private readonly host: SchedulerHost) {}

  /** Starts runnable jobs up to the limit: priority first, then first come first served. */
  schedule(): void {
    const { board, opts } = this.host;
    const stop = this.host.stop();
    if (stop.shuttingDown) return;
    const now = Date.now();
    for (const j of board.blockedByFailedDependency()) this.dependencyFailed(j, now);
    if (stop.mode) return;
    for (const rec of board.runnable(now)) {
      if (this.slots.size >= opts.maxRunning) break;
      if (this.slots.has(rec.id)) continue;
      void this.launch(rec, { terminal: this.host.terminal });
    }
  }

  private dependencyFailed(j: JobRecord, now: number): void {
    const { board } = this.host;
    const deps = j.after.map((id) => board.get(id)).filter((d) => d?.state === 'done' && !isSuccess(toReason(d.reason)));
    const failed = deps.map((d) => `${d!.name} (${d!.reason.code})`).join(', ');
    board.transition(j.id, 'done', { code: 'dependency-failed', detail: `a job in --after did not succeed: ${failed}` }, now);
    this.host.pager.page(endedPage(j, 'dependency-failed', `${j.name} will not run: ${failed} did not succeed`, now), redactorFor(j.env));
  }

  /**
   * The slot is held from here until the job has ended or failed to start,
   * whatever happens in between: `finally` gives it back.
   */
  async launch(rec: JobRecord, how: JobLaunch): Promise<void> {
    const { log } = this.host;
    const stop = this.host.stop();
    const starting: StartingSlot = { state: 'starting', cancelled: false };
    this.slots.set(rec.id, starting);
    try {
      const job = await DaemonJob.start(rec, await this.jobDeps(rec), how);
      // Started while the disk is full: no recording, the room left belongs to the board.
      if (this.host.disk.full) job.suspendRecording('disk full');
      this.slots.set(rec.id, { state: 'live', job });
      log.info({ job: rec.id, name: rec.name, command: rec.command }, how.adopt ? 'job adopted' : 'job started');
      // Cancelled, or the daemon told to stop now, while it was still starting.
      if (starting.cancelled) void job.stop('cancelled');
      else if (stop.mode === 'now') void job.stop('interrupted');
      else if (stop.mode === 'detach') return await job.detach();
      await job.finished;
      log.info({ job: rec.id, name: rec.name, exit: job.exit }, 'job ended');
    } catch (e) {
      this.startFailed(rec, e);
    } finally {
      this.slots.delete(rec.id);
      if (stop.mode && this.slots.size === 0) void stop.shutdown();
      else this.schedule();
    }
  }

  private async jobDeps(rec: JobRecord): Promise<DaemonJobDeps> {
    const { opts, log } = this.host;
    return {
      board: this.host.board,
      pager: this.host.pager,
      stateDir: opts.stateDir,
      bundle: await this.host.bundles.for(rec.policy ?? opts.policyPath),
      rulesPath: opts.rulesPath,
      config: opts.config,
      now: () => Date.now(),
      onLog: (msg, fields) => log.warn(fields ?? {}, msg),
      ...(opts.recordingCap ? { recordingCap: opts.recordingCap } : {}),
      onDiskProblem: (job, file, e) => this.host.diskProblem(job, file, e),
      onCoverage: (job, c) => {
        // The job's own log has it too; a person watching the daemon should see a newer agent at once.
        if (c.covered === false) opts.onProblem?.(`job ${job.name}: ${c.note}`);
      },
    };
  }

  private startFailed(rec: JobRecord, e: unknown): void {
    const { log, board, pager } = this.host;
    log.error({ job: rec.id, err: e }, 'job failed to start');
    if (this.host.stop().shuttingDown) return;
    try {
      const detail = describeError(e);
      board.transition(rec.id, 'done', { code: 'start-failed', detail }, Date.now());
      pager.page(endedPage(rec, 'start-failed', `${rec.name} could not start: ${detail}`, Date.now()), redactorFor(rec.env));
    } catch (err) {
      log.error({ job: rec.id, err }, 'could not record the failed start');
    }
  }

  /** The job's handle while it is live; undefined while it starts, and for a job this daemon does not run. */
  live(id: string): JobHandle | undefined {
    const slot = this.slots.get(id);
    return slot?.state === 'live' ? slot.job : undefined;
  }

  /** A cancel for a job still starting: kept, and the job stopped as soon as it is live. False when it is not starting. */
  cancelWhileStarting(id: string): boolean {
    const slot = this.slots.get(id);
    if (slot?.state !== 'starting') return false;
    slot.cancelled = true;
    return true;
  }

  /** How many jobs are live (a starting one is not yet). */
  get runningCount(): number {
    return this.running().length;
  }

  running(): DaemonJob[] {
    return [...this.slots.values()].flatMap((s) => (s.state === 'live' ? [s.job] : []));
  }

  /** The slots held and what their jobs are doing: `status`'s "4/4: 3 blocked, 1 running". */
  use(): SlotUse {
    const use: SlotUse = { used: this.slots.size, max: this.host.opts.maxRunning, running: 0, blocked: 0, starting: 0 };
    for (const [id, slot] of this.slots) {
      if (slot.state === 'starting') use.starting++;
      else if (this.host.board.get(id)?.state === 'blocked') use.blocked++;
      else use.running++;
    }
    return use;
  }

  /** Jobs live or starting. */
  get size(): number {
    return this.slots.size;
  }

  /** The ids of the jobs live or starting. */
  ids(): IterableIterator<string> {
    return this.slots.keys();
  }

  /** A live job let go of (detach): it no longer holds a slot. */
  letGo(id: string): void {
    this.slots.delete(id);
  }
}
