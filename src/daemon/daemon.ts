/**
 * The daemon: one per state directory. Owns the board, the pager, the
 * control socket and every running job's PTY. Jobs live in this process:
 * if the daemon dies its jobs get SIGHUP and die too, and the next daemon
 * marks them done/interrupted (README "Restart").
 */
import { existsSync } from 'node:fs';
import type { WatchdogConfig } from '../core/watchdog-types.js';
import { Board, openDatabase } from '../board/board.js';
import type { JobRecord } from '../board/types.js';
import { loadNotifyConfig, type NotifyConfig } from '../notify/config.js';
import { Pager } from '../notify/pager.js';
import { loadBundle, type RuleBundle } from '../rules/bundle.js';
import type { Logger } from '../supervisor/logger.js';
import { DaemonJob } from './daemon-job.js';
import { daemonLogger } from './log.js';
import { DaemonLock } from './lock.js';
import { daemonPaths, ensureRunDir, type DaemonPaths } from './paths.js';
import { ControlServer } from './server.js';
import { handlers } from './handlers.js';

export interface DaemonOptions {
  readonly stateDir: string;
  readonly maxRunning: number;
  readonly rulesPath: string;
  readonly policyPath: string | null;
  readonly config: WatchdogConfig;
  /** How often queued jobs and the pager's outbox are looked at. */
  readonly tickMs: number;
}

export class Daemon {
  readonly jobs = new Map<string, DaemonJob>();
  /** Jobs cancelled while their PTY was still being set up. */
  readonly cancelOnStart = new Set<string>();
  readonly paths: DaemonPaths;
  private stopping: 'drain' | 'now' | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly stopped: Promise<void>;
  private resolveStopped!: () => void;

  private constructor(
    readonly opts: DaemonOptions,
    readonly board: Board,
    readonly pager: Pager,
    readonly bundle: RuleBundle,
    readonly log: Logger,
    private readonly lock: DaemonLock,
    private readonly server: ControlServer,
  ) {
    this.paths = daemonPaths(opts.stateDir);
    this.stopped = new Promise((r) => (this.resolveStopped = r));
  }

  static async start(opts: DaemonOptions): Promise<Daemon> {
    const paths = daemonPaths(opts.stateDir);
    ensureRunDir(paths);
    const lock = DaemonLock.acquire(paths.lock);
    try {
      const bundle = await loadBundle(opts.rulesPath, opts.policyPath);
      const notify: NotifyConfig = existsSync(paths.config) ? await loadNotifyConfig(paths.config) : loadNotifyConfig.empty();
      const log = daemonLogger(paths.log);
      const db = openDatabase(opts.stateDir);
      const board = new Board(db);
      const pager = new Pager(db, notify, { now: () => Date.now() });
      let daemon: Daemon | undefined;
      const server = new ControlServer(
        handlers(() => daemon!),
        (e) => log.error({ err: e }, 'request failed'),
      );
      daemon = new Daemon(opts, board, pager, bundle, log, lock, server);
      daemon.recover();
      await server.listen(paths.socket);
      daemon.loop();
      log.info({ stateDir: opts.stateDir, maxRunning: opts.maxRunning }, 'daemon started');
      return daemon;
    } catch (e) {
      lock.release();
      throw e;
    }
  }

  get stoppedPromise(): Promise<void> {
    return this.stopped;
  }

  /** Told to stop (drain or now): no new job starts in this daemon. */
  get draining(): boolean {
    return this.stopping !== undefined;
  }

  /** Jobs the previous daemon was running died with it: say so on the board. Queued jobs stay queued. */
  private recover(): void {
    for (const j of this.board.recoverAfterCrash(Date.now())) {
      this.log.warn({ job: j.id, name: j.name }, 'job was running when the daemon stopped; marked interrupted');
    }
  }

  private loop(): void {
    const tick = () => {
      this.schedule();
      void this.pager.tick().catch((e: unknown) => this.log.error({ err: e }, 'pager tick failed'));
    };
    tick();
    this.timer = setInterval(tick, this.opts.tickMs);
  }

  /** Starts runnable jobs up to the limit: priority first, then first come first served. */
  schedule(): void {
    const now = Date.now();
    for (const j of this.board.blockedByFailedDependency()) {
      this.board.transition(j.id, 'done', { code: 'dependency-failed', detail: `a job in --after did not succeed` }, now);
    }
    if (this.stopping) return;
    for (const rec of this.board.runnable(now)) {
      if (this.jobs.size >= this.opts.maxRunning) break;
      if (this.jobs.has(rec.id)) continue;
      void this.launch(rec);
    }
  }

  private async launch(rec: JobRecord): Promise<void> {
    // Reserve the slot before the async start so a second tick cannot double-start.
    this.jobs.set(rec.id, undefined as unknown as DaemonJob);
    try {
      const job = await DaemonJob.start(rec, {
        board: this.board,
        pager: this.pager,
        stateDir: this.opts.stateDir,
        bundle: this.bundle,
        rulesPath: this.opts.rulesPath,
        policyPath: rec.policy ?? this.opts.policyPath,
        config: this.opts.config,
        now: () => Date.now(),
        onLog: (msg, fields) => this.log.warn(fields ?? {}, msg),
      });
      this.jobs.set(rec.id, job);
      this.log.info({ job: rec.id, name: rec.name, command: rec.command }, 'job started');
      // Cancelled, or the daemon told to stop now, while it was still starting.
      if (this.cancelOnStart.delete(rec.id)) void job.live.stop('cancelled');
      else if (this.stopping === 'now') void job.live.stop('interrupted');
      await job.live.finished;
      this.log.info({ job: rec.id, name: rec.name, exit: job.live.pty.exit }, 'job ended');
    } catch (e) {
      this.log.error({ job: rec.id, err: e }, 'job failed to start');
      this.cancelOnStart.delete(rec.id);
      try {
        this.board.transition(rec.id, 'done', { code: 'start-failed', detail: e instanceof Error ? e.message : String(e) }, Date.now());
      } catch (err) {
        this.log.error({ job: rec.id, err }, 'could not record the failed start');
      }
    } finally {
      this.jobs.delete(rec.id);
      if (this.stopping && this.jobs.size === 0) void this.shutdown();
      else this.schedule();
    }
  }

  running(): DaemonJob[] {
    return [...this.jobs.values()].filter(Boolean);
  }

  /**
   * drain: take no new jobs, let running ones finish, then exit.
   * now: also stop running jobs gracefully (interrupt, terminate, kill).
   */
  async stop(mode: 'drain' | 'now'): Promise<void> {
    this.stopping = mode === 'now' || this.stopping === 'now' ? 'now' : 'drain';
    this.log.info({ mode: this.stopping, running: this.running().length }, 'daemon stopping');
    if (this.stopping === 'now') for (const j of this.running()) void j.live.stop('interrupted');
    // Jobs still starting count too: their records must land before the board closes.
    if (this.jobs.size === 0) await this.shutdown();
    return this.stopped;
  }

  private shuttingDown = false;

  private async shutdown(): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    clearInterval(this.timer);
    await this.pager.tick().catch(() => undefined);
    await this.server.close();
    this.board.close();
    this.log.info({}, 'daemon stopped');
    await flushLogger(this.log);
    this.lock.release();
    this.resolveStopped();
  }
}

function flushLogger(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}
