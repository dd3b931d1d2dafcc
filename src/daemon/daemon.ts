/**
 * The daemon: one per state directory. Owns the board, the pager, the
 * control socket, the rules bundles and the supervision of every job. The
 * jobs' PTYs live in the PTY host (host-link.ts), so a daemon that dies,
 * restarts or is replaced leaves them running; the next daemon adopts them
 * (adopt.ts). Only jobs the host no longer has (it died too: a reboot) are
 * ended done/interrupted (recover.ts). What it opens at start is
 * daemon-start.ts, how its jobs are started scheduler.ts, how it stops
 * daemon-stop.ts. Each part is registered in one DisposableStore as it
 * opens: a start that fails releases what it took, and a stop releases the
 * same list, newest first (the lock last).
 */
import type { CommandRunner } from '../api/command.js';
import type { CommandHost } from '../api/host.js';
import type { Board } from '../board/board.js';
import type { WriteBehind, WriteFailure } from '../board/write-behind.js';
import { filesWritten } from '../util/atomic-write.js';
import type { JobRecord } from '../board/types.js';
import type { NotifyConfig } from '../notify/config.js';
import type { Pager } from '../notify/pager.js';
import { MorningDigest } from './morning-digest.js';
import type { StartupReport } from '../notify/startup.js';
import { LoopDelay } from './loop-delay.js';
import type { Logger } from '../supervisor/logger.js';
import { isNoSpace } from '../util/size.js';
import type { DaemonBundles } from './bundles.js';
import { DiskGuard } from './disk.js';
import type { DaemonJob } from './daemon-job.js';
import type { JobHandle } from './job-slot.js';
import { DaemonLock } from './lock.js';
import { daemonPaths, ensureRunDir, type DaemonPaths } from './paths.js';
import { recoverJobs } from './adopt.js';
import type { HostLink } from './host-link.js';
import type { ControlServer } from './server.js';
import type { ListenPlan } from '../web/listen.js';
import { WebServer } from '../web/server.js';
import type { WebAuth } from '../people/auth-store.js';
import type { Commands } from './command.js';
import type { FleetLink } from '../fleet/link.js';
import { within } from '../util/within.js';
import { beatFor, type BeatTask } from '../util/beat.js';
import { DisposableStore } from '../util/lifecycle.js';
import type { Found } from '../util/home.js';
import { DaemonStop, type StopMode } from './daemon-stop.js';
import { Scheduler, type SlotUse } from './scheduler.js';
import { endHandover, liveHandover, startHandover } from './handover.js';
import { fleetLink, openParts, withStartupWarnings, type DaemonParts, type FleetPlace, type Opening } from './daemon-start.js';

export type { DaemonOptions } from './daemon-options.js';
import type { DaemonOptions } from './daemon-options.js';

/** The last outbox flush at shutdown must not hold the exit hostage to a slow notifier. */
const FINAL_PAGE_MS = 1_000;

/** The one place that builds the parts; handlers see it only as a CommandHost. */
export class Daemon implements CommandHost {
  readonly paths: DaemonPaths;
  /** Which notifiers loaded and the credentials that cannot be resolved now (src/cli/daemon.ts prints them). */
  startup: StartupReport = { notifiers: '', warnings: [] };
  private timer: BeatTask | undefined;
  private readonly disk: DiskGuard;
  /** Every job the daemon runs, from its launch until it ended or failed to start. */
  private readonly jobs: Scheduler;
  private readonly stopper: DaemonStop;
  /** Counted from the daemon's start (status reports it). */
  readonly loopDelay = new LoopDelay();
  /**
   * Where a person's browser reaches the web view: `notify.public_url`, else
   * the address of `--http`; null when neither is set (no links, no login URLs).
   */
  webBaseUrl: string | null = null;
  /** The web view, when `--http` is on. */
  web: WebServer | null = null;
  /** The link to the fleet board, with --board. */
  fleet: FleetLink | null = null;
  /** When this daemon started, ms (status's uptime). */
  readonly startedAt = Date.now();
  /** The config.yaml read at start, or none and where it was looked for (the start line names it). */
  config: Found = { file: null, looked: [] };
  /** How many of the previous daemon's jobs this one took over at start. */
  adopted = 0;
  /** config.yaml's jobs.max_blocked (the ceiling on waiting), read at start. */
  maxBlockedMs: number | null = null;

  private constructor(
    readonly opts: DaemonOptions,
    readonly board: Board,
    /** Where the board's writes go to disk, behind the daemon's back (write-behind.ts). */
    private readonly store: WriteBehind,
    readonly pager: Pager,
    readonly bundles: DaemonBundles,
    readonly log: Logger,
    /** Everything the daemon opened, each registered as it opened: a failed start and a stop release it newest first. */
    private readonly parts: DisposableStore,
    private readonly server: ControlServer,
    /** People, tokens, login codes and sessions of the web view (the board's database), and its audit log. */
    readonly webAuth: WebAuth,
    /** The PTY host that holds every job's terminal. */
    private readonly host: HostLink,
    readonly commands: Commands,
  ) {
    this.paths = daemonPaths(opts.stateDir);
    parts.add(() => this.loopDelay.stop());
    this.disk = new DiskGuard(this.paths.runDir);
    parts.add(() => this.disk.dispose());
    const diskProblem = (job: DaemonJob, file: string, e: Error) => this.diskProblem(job, file, e);
    this.jobs = new Scheduler({ opts, board, pager, bundles, log, terminal: host.spawner, disk: this.disk, stop: () => this.stopper, diskProblem });
    this.stopper = new DaemonStop({ board, log, jobs: this.jobs, stopTick: () => this.timer?.dispose(), release: () => parts.dispose() });
    const short = this.disk.reserve();
    if (short) {
      log.warn({ problem: short }, 'disk is short');
      opts.onProblem?.(`warning: ${short}`);
    }
  }

  static async start(opts: DaemonOptions): Promise<Daemon> {
    const paths = daemonPaths(opts.stateDir);
    ensureRunDir(paths);
    const lock = DaemonLock.acquire(paths.lock);
    const opening: Opening = { parts: new DisposableStore() };
    opening.parts.add(() => lock.release());
    // Registered before every part it reports on, so it closes after all of them: the board's close may still report writes it could not make.
    opening.parts.add(() => Daemon.endLog(opening));
    try {
      const p = await openParts(opts, paths, opening);
      const daemon = (opening.daemon = new Daemon(opts, p.board, p.store, p.pager, p.bundles, p.log, opening.parts, p.server, p.webAuth, p.host, p.commands));
      await daemon.begin(p);
      return daemon;
    } catch (e) {
      // The start's own error is the one its caller must see; every release runs whatever others do.
      await opening.parts.dispose().catch((err: unknown) => opts.onProblem?.(`after the failed start: ${(err as Error).message}`));
      throw e;
    }
  }

  /** A stop's last line (a failed start has none), then everything logged reaches the file. */
  private static async endLog({ log, daemon }: Opening): Promise<void> {
    if (!log) return;
    if (daemon instanceof Daemon && daemon.stopper.shuttingDown) log.info({ event_loop: daemon.loopDelay.report() }, 'daemon stopped');
    await new Promise<void>((resolve) => log.flush(() => resolve()));
  }

  /** The previous daemon's jobs first, then the web view, the socket and the fleet; then the tick. */
  private async begin(p: DaemonParts): Promise<void> {
    // public_url is how a phone reaches the view; it wins over the --http address for every link.
    this.webBaseUrl = p.notify.links?.publicUrl ?? null;
    this.config = p.config;
    this.maxBlockedMs = p.notify.maxBlockedMs;
    this.adopted = await this.recover();
    if (this.opts.http) await this.startWeb(this.opts.http, p.notify, p.webCommands, p.onError);
    this.parts.add(() => this.server.close());
    await this.server.listen(this.paths.socket);
    endHandover(this.paths.runDir);
    if (p.fleet) await this.joinFleet(p.fleet);
    this.startup = withStartupWarnings(p.startup, p.notify, this.opts);
    this.loop();
    for (const warning of this.startup.warnings) this.log.warn({ warning }, 'start-up warning');
    const { stateDir, maxRunning, policyPath } = this.opts;
    this.log.info({ stateDir, maxRunning, notifiers: this.startup.notifiers, config: this.config.file, looked: this.config.looked, policy: policyPath, adopted: this.adopted }, 'daemon started');
  }

  /** The previous daemon's jobs (adopt.ts): those the PTY host still holds are adopted. */
  private recover(): Promise<number> {
    const adopt = (rec: JobRecord) => void this.jobs.launch(rec, { terminal: this.host.adopter(), adopt: true });
    return recoverJobs({ board: this.board, pager: this.pager, host: this.host, log: this.log, adopt });
  }

  /** The web view; links point at notify.public_url when set (a proxy in front), else at the address it listens on. */
  private async startWeb(plan: ListenPlan, notify: NotifyConfig, commands: CommandRunner, onError: (e: unknown) => void): Promise<void> {
    const web = (this.web = await WebServer.start(plan, { daemon: this, commands, auth: this.webAuth, now: () => Date.now(), onError, web: notify.web }));
    this.parts.add(() => web.close());
    this.webBaseUrl = notify.links?.publicUrl ?? this.web.url;
  }

  private async joinFleet(fleet: FleetPlace): Promise<void> {
    const link = (this.fleet = fleetLink(this, fleet, () => this.jobs.running().map((j) => j.id)));
    this.parts.add(() => link.close());
    await link.start();
  }

  get stoppedPromise(): Promise<void> {
    return this.stopper.stopped;
  }

  private loop(): void {
    const morning = new MorningDigest(this, Date.now());
    const tick = () => {
      this.schedule();
      this.guardedDigest(morning);
      // On a fleet the outbox is the database's: while it is down, pages wait in the local outbox for the link's flush.
      if (this.fleet && !this.fleet.up) return;
      void this.pager.tick().catch((e: unknown) => this.log.error({ err: e }, 'pager tick failed'));
    };
    tick();
    // On the shared beat: the jobs' periodic checks fall due on its whole seconds and ride this wake-up.
    const every = this.opts.tickMs;
    this.timer = beatFor(every).every(every, () => {
      try {
        tick();
      } catch (e) {
        this.log.error({ err: e }, 'the tick failed');
      }
      return every;
    });
    // The tick's last beat, so the first release: pages still queued get one bounded try while the board and the fleet are open.
    this.parts.add(async () => {
      this.timer?.dispose();
      await within(FINAL_PAGE_MS, this.pager.tick().catch(() => undefined));
    });
  }

  /** The morning page, when its time has come; a board or pager that fails is the log's, not the tick's. */
  private guardedDigest(morning: MorningDigest): void {
    try {
      const key = morning.tick(Date.now());
      if (key) this.log.info({ key }, 'morning digest paged');
    } catch (e) {
      this.log.error({ err: e }, 'the morning digest failed');
    }
  }

  /** Starts runnable jobs up to the limit: priority first, then first come first served. */
  schedule(): void {
    this.jobs.schedule();
  }

  /**
   * A job's file could not be written. Out of space: give back the ballast
   * and stop every recording, so the board, the outbox and the job files
   * keep working; page once per job either way.
   */
  private diskProblem(job: DaemonJob, file: string, e: Error): void {
    this.log.error({ job: job.id, file, err: e }, 'a job file could not be written; the job goes on');
    if (isNoSpace(e)) this.diskFull();
    try {
      job.pageDiskFull(file, e);
    } catch (err) {
      this.log.error({ job: job.id, err }, 'could not queue the disk page');
    }
  }

  /** Out of space: give back the ballast and stop every recording, once. */
  private diskFull(): void {
    if (!this.disk.release()) return;
    this.log.error({ stateDir: this.opts.stateDir }, 'disk full: ballast released, recordings suspended');
    this.opts.onProblem?.(`disk full under ${this.opts.stateDir}: recordings suspended, jobs keep running`);
    for (const j of this.jobs.running()) j.suspendRecording('disk full');
  }

  /** Resolves once every board write and summary rewrite so far is on disk: a reply waits for it, so what a client saw cannot come undone. */
  async durable(): Promise<void> {
    await Promise.all([this.store.durable(), filesWritten()]);
  }

  /** The board's writer could not write (it retries, in order); a full disk gives back the ballast as a job file's would. */
  boardNotWritten(f: WriteFailure): void {
    this.log.error({ err: f.message, code: f.code }, 'the board could not be written to disk; kept in memory, retrying');
    if (f.code === 'SQLITE_FULL') this.diskFull();
  }

  /** The job's handle while it is live; undefined while it starts, and for a job this daemon does not run. */
  live(id: string): JobHandle | undefined {
    return this.jobs.live(id);
  }

  /** A cancel for a job still starting: kept, and the job stopped as soon as it is live. False when it is not starting. */
  cancelWhileStarting(id: string): boolean {
    return this.jobs.cancelWhileStarting(id);
  }

  /** How many jobs are live (a starting one is not yet). */
  get runningCount(): number {
    return this.jobs.runningCount;
  }

  /** The job slots held and by what. */
  slotUse(): SlotUse {
    return this.jobs.use();
  }

  /** A drain is on: new submissions wait for the next daemon. */
  get draining(): boolean {
    return this.stopper.mode !== undefined;
  }

  /** drain, now or detach (daemon-stop.ts); resolves once the daemon has stopped. */
  stop(mode: StopMode): Promise<void> {
    // Detached jobs wait for a next daemon (--replace, or a service manager's restart): callers wait for it too.
    if (mode === 'detach' && !liveHandover(this.paths.runDir)) startHandover(this.paths.runDir, 'detach');
    return this.stopper.stop(mode);
  }
}
