/**
 * The daemon: one per state directory. Owns the board, the pager, the
 * control socket, the rules bundles and the supervision of every job. The
 * jobs' PTYs live in the PTY host (host-link.ts), so a daemon that dies,
 * restarts or is replaced leaves them running; the next daemon adopts them
 * (adopt.ts). Only jobs the host no longer has (it died too: a reboot) are
 * ended done/interrupted (recover.ts).
 */
import { existsSync } from 'node:fs';
import type { WatchdogConfig } from '../core/watchdog-types.js';
import { Board } from '../board/board.js';
import { WriteBehind, type WriteFailure } from '../board/write-behind.js';
import { filesWritten } from '../util/atomic-write.js';
import type { JobRecord } from '../board/types.js';
import { loadNotifyConfig, type NotifyConfig } from '../notify/config.js';
import { Pager } from '../notify/pager.js';
import { startupReport, type StartupReport } from '../notify/startup.js';
import { LoopDelay } from './loop-delay.js';
import type { Logger } from '../supervisor/logger.js';
import { describeError } from '../util/errors.js';
import { isNoSpace } from '../util/size.js';
import { DaemonBundles } from './bundles.js';
import { DiskGuard } from './disk.js';
import { endedPage } from './ended-pages.js';
import { isSuccess } from '../core/outcome.js';
import { toReason } from '../board/reasons.js';
import { DaemonJob } from './daemon-job.js';
import type { JobHandle, JobSlot, StartingSlot } from './job-slot.js';
import { jobRedactors } from './job-secrets.js';
import { redactorFor } from '../notify/secrets.js';
import { daemonLogger } from './log.js';
import { DaemonLock } from './lock.js';
import { daemonPaths, ensureRunDir, type DaemonPaths } from './paths.js';
import { endOrphans, planRecovery } from './adopt.js';
import { HostLink } from './host-link.js';
import { hostEvents } from './host-events.js';
import type { JobLaunch } from './daemon-job.js';
import { ControlServer } from './server.js';
import { handlers } from './handlers.js';
import type { ListenPlan } from '../web/listen.js';
import { WebServer } from '../web/server.js';
import { WebAuth } from '../web/auth-store.js';
import type { Commands } from './command.js';
import { pageLinker } from '../web/page-links.js';
import { FleetDb } from '../fleet/db.js';
import { FleetLink } from '../fleet/link.js';
import { PgOutbox } from '../fleet/outbox.js';
import { FleetCommands } from '../fleet/web.js';
import { COMMAND_LIST } from './commands.js';
import { within } from '../util/within.js';

export interface DaemonOptions {
  readonly stateDir: string;
  readonly maxRunning: number;
  readonly rulesPath: string;
  readonly policyPath: string | null;
  readonly config: WatchdogConfig;
  /** How often queued jobs and the pager's outbox are looked at. */
  readonly tickMs: number;
  /** Recording cap per job, bytes (default: the CastWriter's). */
  readonly recordingCap?: number;
  /** Serve the web view and the HTTP API (`--http`); null: off. */
  readonly http?: ListenPlan | null;
  /** A problem a person must see now (a broken rules edit): the daemon's stderr. */
  readonly onProblem?: (message: string) => void;
  /** Extra arguments for a PTY host this daemon starts (tests: a short --idle). */
  readonly ptyhostArgs?: string[];
  /** `--board postgres://… --host NAME`: this daemon is one host of a fleet (src/fleet/). */
  readonly fleet?: { readonly url: string; readonly host: string } | null;
}

/**
 * drain: finish running jobs, then exit. now: stop them (the ladder), then
 * exit. detach: leave them running in the PTY host for the next daemon.
 */
export type StopMode = 'drain' | 'now' | 'detach';

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
/** The last outbox flush at shutdown must not hold the exit hostage to a slow notifier. */
const FINAL_PAGE_MS = 1_000;

export class Daemon {
  /** Every job the daemon runs, by id, from its launch until it ended or failed to start. */
  private readonly slots = new Map<string, JobSlot>();
  readonly paths: DaemonPaths;
  /** Which notifiers loaded and the credentials that cannot be resolved now (src/cli/daemon.ts prints them). */
  startup: StartupReport = { notifiers: '', warnings: [] };
  private stopping: StopMode | undefined;
  private timer: NodeJS.Timeout | undefined;
  private forceTimer: NodeJS.Timeout | undefined;
  private readonly stopped: Promise<void>;
  private resolveStopped!: () => void;
  private shuttingDown = false;
  private readonly disk: DiskGuard;
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

  private constructor(
    readonly opts: DaemonOptions,
    readonly board: Board,
    /** Where the board's writes go to disk, behind the daemon's back (write-behind.ts). */
    private readonly store: WriteBehind,
    readonly pager: Pager,
    readonly bundles: DaemonBundles,
    readonly log: Logger,
    private readonly lock: DaemonLock,
    private readonly server: ControlServer,
    /** People, tokens, login codes and sessions of the web view (the board's database), and its audit log. */
    readonly webAuth: WebAuth,
    /** The PTY host that holds every job's terminal. */
    private readonly host: HostLink,
    readonly commands: Commands,
  ) {
    this.paths = daemonPaths(opts.stateDir);
    this.stopped = new Promise((r) => (this.resolveStopped = r));
    this.disk = new DiskGuard(this.paths.runDir);
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
    let bundles: DaemonBundles | undefined;
    let daemon: Daemon | undefined;
    let store: WriteBehind | undefined;
    try {
      // The log redacts each job's own secrets, so it opens after the board; reloads only report once it is up.
      let log: Logger | undefined;
      bundles = new DaemonBundles(opts.rulesPath, opts.policyPath, {
        rejected: (problem) => {
          log?.error({ problem }, 'rules or policy edit rejected; the last good ones stay in force');
          opts.onProblem?.(`rules not reloaded (keeping the last good ones): ${problem}`);
        },
        applied: (policy) => log?.info({ rules: opts.rulesPath, policy }, 'rules and policy reloaded'),
      });
      // Bad rules refuse the start (FILE:LINE, exit 2) before anything else is touched.
      await bundles.for();
      const notify: NotifyConfig = existsSync(paths.config) ? await loadNotifyConfig(paths.config) : loadNotifyConfig.empty();
      const startup = await startupReport(notify, process.env);
      store = WriteBehind.open(opts.stateDir, (f) => daemon?.boardNotWritten(f));
      const db = store.db;
      const board = new Board(db);
      log = daemonLogger(paths.log, jobRedactors(board));
      const daemonLog = log;
      const fleetDb = opts.fleet ? FleetDb.open(opts.fleet.url, { application: `nightshift-daemon ${opts.fleet.host}` }) : null;
      const pager = new Pager(db, notify, { now: () => Date.now() }, {
        // On a fleet, pages are queued here and sent from the shared outbox by whichever host gets there first.
        ...(fleetDb && opts.fleet ? { store: new PgOutbox(fleetDb, opts.fleet.host) } : {}),
        linker: pageLinker(() => {
          // 'operator' is the most a page link may give: the store caps it by page_person's own token (a viewer stays one).
          const codes = daemon?.webAuth;
          return notify.links && codes ? { baseUrl: notify.links.publicUrl, person: { name: notify.links.pagePerson, role: 'operator' }, codes } : null;
        }),
        onLinkProblem: (e, row) => daemonLog.error({ err: e, job: row.job, notifier: row.notifier }, 'page links could not be made; the page goes without them'),
      });
      const commands = handlers(() => daemon!);
      // The web view of a fleet host serves the whole fleet; the socket stays this daemon's own.
      const webCommands = fleetDb && opts.fleet ? new FleetCommands(COMMAND_LIST, () => daemon!, fleetDb, opts.fleet.host) : commands;
      const onError = (e: unknown) => daemonLog.error({ err: e }, 'request failed');
      const server = new ControlServer(commands, onError);
      const webAuth = new WebAuth(db, { auditPath: paths.webAudit, onAuditError: (e) => daemonLog.error({ err: e }, 'web audit log not written') });
      const host = new HostLink(opts.stateDir, hostEvents(daemonLog, opts), opts.ptyhostArgs ?? []);
      daemon = new Daemon(opts, board, store, pager, bundles, log, lock, server, webAuth, host, commands);
      // public_url is how a phone reaches the view; it wins over the --http address for every link.
      daemon.webBaseUrl = notify.links?.publicUrl ?? null;
      await daemon.recover();
      if (opts.http) await daemon.startWeb(opts.http, notify, webCommands, onError);
      await server.listen(paths.socket);
      if (fleetDb && opts.fleet) await daemon.joinFleet(fleetDb, opts.fleet.host);
      // Links are minted for public_url whatever serves it; with no --http here they lead to this daemon only through another.
      const noWeb = notify.links && !opts.http ? [`notify.public_url is ${notify.links.publicUrl}, but this daemon has no --http: page links and login URLs lead nowhere unless a proxy reaches a daemon that serves it`] : [];
      daemon.startup = { ...startup, warnings: [...startup.warnings, ...noWeb] };
      daemon.loop();
      for (const warning of daemon.startup.warnings) log.warn({ warning }, 'start-up warning');
      log.info({ stateDir: opts.stateDir, maxRunning: opts.maxRunning, notifiers: daemon.startup.notifiers }, 'daemon started');
      return daemon;
    } catch (e) {
      daemon?.host.close();
      await daemon?.web?.close();
      await bundles?.dispose();
      await store?.close();
      lock.release();
      throw e;
    }
  }

  /** The web view; links point at notify.public_url when set (a proxy in front), else at the address it listens on. */
  private async startWeb(plan: ListenPlan, notify: NotifyConfig, commands: Commands, onError: (e: unknown) => void): Promise<void> {
    this.web = await WebServer.start(plan, { daemon: this, commands, auth: this.webAuth, now: () => Date.now(), onError });
    this.webBaseUrl = notify.links?.publicUrl ?? this.web.url;
  }

  private async joinFleet(db: FleetDb, name: string): Promise<void> {
    const d = this;
    this.fleet = new FleetLink(db, name, {
      board: this.board,
      pager: this.pager,
      commands: this.commands,
      maxRunning: this.opts.maxRunning,
      log: this.log,
      live: (id) => d.live(id),
      liveIds: () => d.running().map((j) => j.id),
      schedule: () => d.schedule(),
      webUrl: () => d.webBaseUrl,
    }, '0.1.0');
    await this.fleet.start();
  }

  get stoppedPromise(): Promise<void> {
    return this.stopped;
  }

  /**
   * The previous daemon's jobs: those the PTY host still holds (running, or
   * ended while no daemon watched) are adopted and go on in the state the
   * board has; the rest died with their host and are ended for good (board,
   * pages, their files). Queued jobs stay queued.
   */
  private async recover(): Promise<void> {
    const plan = await planRecovery(this.board, this.host);
    // Not running on the board (the daemon died between the spawn and the board's running, or after the board's done): nobody supervises it, so it must not run on.
    for (const id of plan.strays) {
      this.log.warn({ job: id }, 'the PTY host runs a job the board does not have running; killed');
      await this.host.kill(id).catch((e: unknown) => this.log.error({ job: id, err: e }, 'could not kill a stray job'));
    }
    for (const rec of plan.adopt) void this.launch(rec, { terminal: this.host.adopter(), adopt: true });
    for (const r of endOrphans(this.board, this.pager, plan, Date.now())) {
      this.log.warn({ job: r.job.id, name: r.job.name, was: r.was?.state, reason: r.job.reason.code, problems: r.problems }, 'job was running when the daemon died and its terminal is gone');
    }
    if (plan.adopt.length) this.log.info({ jobs: plan.adopt.map((j) => j.name) }, 'adopted jobs from the PTY host');
  }

  private loop(): void {
    const tick = () => {
      this.schedule();
      // On a fleet the outbox is the database's: while it is down, pages wait in the local outbox for the link's flush.
      if (this.fleet && !this.fleet.up) return;
      void this.pager.tick().catch((e: unknown) => this.log.error({ err: e }, 'pager tick failed'));
    };
    tick();
    this.timer = setInterval(tick, this.opts.tickMs);
  }

  /** Starts runnable jobs up to the limit: priority first, then first come first served. */
  schedule(): void {
    if (this.shuttingDown) return;
    const now = Date.now();
    for (const j of this.board.blockedByFailedDependency()) this.dependencyFailed(j, now);
    if (this.stopping) return;
    for (const rec of this.board.runnable(now)) {
      if (this.slots.size >= this.opts.maxRunning) break;
      if (this.slots.has(rec.id)) continue;
      void this.launch(rec, { terminal: this.host.spawner });
    }
  }

  private dependencyFailed(j: JobRecord, now: number): void {
    const deps = j.after.map((id) => this.board.get(id)).filter((d) => d?.state === 'done' && !isSuccess(toReason(d.reason)));
    const failed = deps.map((d) => `${d!.name} (${d!.reason.code})`).join(', ');
    this.board.transition(j.id, 'done', { code: 'dependency-failed', detail: `a job in --after did not succeed: ${failed}` }, now);
    this.pager.page(endedPage(j, 'dependency-failed', `${j.name} will not run: ${failed} did not succeed`, now), redactorFor(j.env));
  }

  /**
   * The slot is held from here until the job has ended or failed to start,
   * whatever happens in between: `finally` gives it back.
   */
  private async launch(rec: JobRecord, how: JobLaunch): Promise<void> {
    const starting: StartingSlot = { state: 'starting', cancelled: false };
    this.slots.set(rec.id, starting);
    try {
      const job = await DaemonJob.start(rec, {
        board: this.board,
        pager: this.pager,
        stateDir: this.opts.stateDir,
        bundle: await this.bundles.for(rec.policy ?? this.opts.policyPath),
        rulesPath: this.opts.rulesPath,
        config: this.opts.config,
        now: () => Date.now(),
        onLog: (msg, fields) => this.log.warn(fields ?? {}, msg),
        ...(this.opts.recordingCap ? { recordingCap: this.opts.recordingCap } : {}),
        onDiskProblem: (job, file, e) => this.diskProblem(job, file, e),
        onCoverage: (job, c) => {
          // The job's own log has it too; a person watching the daemon should see a newer agent at once.
          if (c.covered === false) this.opts.onProblem?.(`job ${job.name}: ${c.note}`);
        },
      }, how);
      // Started while the disk is full: no recording, the room left belongs to the board.
      if (this.disk.full) job.suspendRecording('disk full');
      this.slots.set(rec.id, { state: 'live', job });
      this.log.info({ job: rec.id, name: rec.name, command: rec.command }, how.adopt ? 'job adopted' : 'job started');
      // Cancelled, or the daemon told to stop now, while it was still starting.
      if (starting.cancelled) void job.stop('cancelled');
      else if (this.stopping === 'now') void job.stop('interrupted');
      else if (this.stopping === 'detach') return await job.detach();
      await job.finished;
      this.log.info({ job: rec.id, name: rec.name, exit: job.exit }, 'job ended');
    } catch (e) {
      this.startFailed(rec, e);
    } finally {
      this.slots.delete(rec.id);
      if (this.stopping && this.slots.size === 0) void this.shutdown();
      else this.schedule();
    }
  }

  private startFailed(rec: JobRecord, e: unknown): void {
    this.log.error({ job: rec.id, err: e }, 'job failed to start');
    if (this.shuttingDown) return;
    try {
      const detail = describeError(e);
      this.board.transition(rec.id, 'done', { code: 'start-failed', detail }, Date.now());
      this.pager.page(endedPage(rec, 'start-failed', `${rec.name} could not start: ${detail}`, Date.now()), redactorFor(rec.env));
    } catch (err) {
      this.log.error({ job: rec.id, err }, 'could not record the failed start');
    }
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
    for (const j of this.running()) j.suspendRecording('disk full');
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

  private running(): DaemonJob[] {
    return [...this.slots.values()].flatMap((s) => (s.state === 'live' ? [s.job] : []));
  }

  /** A drain is on: new submissions wait for the next daemon. */
  get draining(): boolean {
    return this.stopping !== undefined;
  }

  /**
   * drain: take no new jobs, let running ones finish, then exit.
   * now: also stop running jobs gracefully (interrupt, terminate, kill), and
   * exit by FORCE_AFTER_MS + FORCE_GRACE_MS whatever state they are in.
   */
  async stop(mode: StopMode): Promise<void> {
    this.stopping = strongerStop(this.stopping, mode);
    this.log.info({ mode: this.stopping, running: this.runningCount, starting: this.slots.size - this.runningCount }, 'daemon stopping');
    if (this.stopping === 'detach') {
      await this.detachAll();
      return this.stopped;
    }
    if (this.stopping === 'now') {
      for (const j of this.running()) void j.stop('interrupted');
      this.forceTimer ??= setTimeout(() => void this.force(), FORCE_AFTER_MS);
    }
    // Jobs still starting count too: their records must land before the board closes.
    if (this.slots.size === 0) await this.shutdown();
    return this.stopped;
  }

  /**
   * detach: let go of every live job without stopping it (they run on in the
   * PTY host, the board keeps them running or blocked for the next daemon to
   * adopt), flush the pages, exit. A job still starting is let go of as soon
   * as it is live (launch).
   */
  private async detachAll(): Promise<void> {
    for (const j of this.running()) {
      this.slots.delete(j.id);
      await j.detach().catch((e: unknown) => this.log.error({ job: j.id, err: e }, 'detaching the job failed'));
    }
    this.log.info({ starting: this.slots.size }, 'jobs left running in the PTY host');
    if (this.slots.size === 0) await this.shutdown();
  }

  /** The graceful stop ran out of time: kill what is left, say so on the board, exit. */
  private async force(): Promise<void> {
    const left = this.running();
    this.log.warn({ jobs: left.map((j) => j.id), starting: this.slots.size - left.length }, 'jobs did not stop in time; killing them');
    for (const j of left) j.kill();
    await within(FORCE_GRACE_MS, Promise.all(left.map((j) => j.finished)));
    for (const id of this.slots.keys()) {
      const rec = this.board.get(id);
      // A job still starting is queued on the board: it stays queued and runs at the next start.
      if (rec && (rec.state === 'running' || rec.state === 'blocked')) {
        this.board.transition(id, 'done', { code: 'interrupted', detail: 'did not stop in time at shutdown --now; killed' }, Date.now());
      }
    }
    await this.shutdown();
  }

  private async shutdown(): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    clearInterval(this.timer);
    clearTimeout(this.forceTimer);
    await within(FINAL_PAGE_MS, this.pager.tick().catch(() => undefined));
    await this.fleet?.close();
    await this.web?.close();
    await this.server.close();
    await this.webAuth.close();
    await this.bundles.dispose();
    this.disk.dispose();
    this.host.close();
    await this.store.close();
    this.loopDelay.stop();
    this.log.info({ event_loop: this.loopDelay.report() }, 'daemon stopped');
    await flushLogger(this.log);
    this.lock.release();
    this.resolveStopped();
  }
}

function flushLogger(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}
