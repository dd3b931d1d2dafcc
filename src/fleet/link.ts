/**
 * A daemon's link to the fleet board. The daemon keeps running on its own
 * SQLite board (synchronous, always there); the link dials out to
 * PostgreSQL and, every cycle:
 *   - heartbeats, and declares hosts silent for 30 s lost;
 *   - flushes what the local board did (flush.ts) — the SQLite board is
 *     the journal, so an outage only delays the flush;
 *   - claims queued jobs up to its free slots;
 *   - takes command rows meant for it and runs them from its own table;
 *   - stores each live job's screen, at most every 2 s while it changes.
 * Any connection error marks the board down; the link retries with a
 * capped back-off and, once back, flushes from where the fleet's copy ends.
 */
import type pg from 'pg';
import type { Board } from '../board/board.js';
import { NO_STREAM, type CommandRunner } from '../api/command.js';
import type { JobHandle } from '../api/job-handle.js';
import type { Pager } from '../notify/pager.js';
import { describeError } from '../util/errors.js';
import { finishCommand, listenForCommands, takeCommands, toWire } from './commands.js';
import { isConnectionError, type FleetDb } from './db.js';
import { heartbeat, leave, sweepLost, LOST_AFTER_S } from './hosts.js';
import { claimedQueued, claimJobs, failBlockedDependents, releaseJob } from './jobs.js';
import { BoardFlush, boardIdentity } from './flush.js';
import { storeScreens } from './screens.js';
import { within } from '../util/within.js';

/** What the link needs of its daemon: a narrow view, so the two files stay apart. */
export interface FleetHost {
  readonly board: Board;
  readonly pager: Pager;
  readonly commands: CommandRunner;
  readonly maxRunning: number;
  live(id: string): JobHandle | undefined;
  /** Ids of the jobs live here now. */
  liveIds(): string[];
  schedule(): void;
  webUrl(): string | null;
  readonly log: { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void };
}

export const FLEET_TIMING = {
  /** A local move reaches the fleet within this; commands and submits wake the link at once (NOTIFY). */
  cycleMs: 500,
  pollMs: 1_000,
  heartbeatMs: 2_000,
  /** How often a host looks for silent ones: a dead host is reported at most this long after its 30 s. */
  sweepMs: 1_000,
  screenMs: 2_000,
  /** Capped back-off: far below LOST_AFTER_S, so an outage never makes a host look lost once the database is back. */
  backoffMinMs: 250,
  backoffMaxMs: 5_000,
};

export class FleetLink {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  /** null: the board is down (or not reached yet). */
  private upSince: number | null = null;
  private retryAt = 0;
  private backoff = FLEET_TIMING.backoffMinMs;
  private flusher: BoardFlush | null = null;
  private readonly screens = new Map<string, string>();
  private last = { heartbeat: 0, sweep: 0, screens: 0, commands: 0, claims: 0 };
  private started = false;
  private listener: pg.Client | null = null;
  private wakeCommands = true;
  private wakeClaims = true;
  readonly source: string;
  /** Copies what this host's board did since the last copy (nothing while the board is down). */
  private readonly flush: () => Promise<void>;

  constructor(
    private readonly db: FleetDb,
    readonly name: string,
    private readonly host: FleetHost,
    private readonly version: string,
  ) {
    this.source = `${name}/${boardIdentity(host.board)}`;
    this.flush = () => this.flusher?.flush() ?? Promise.resolve();
  }

  /** Starts cycling. The first cycle runs now; a board that is down is not an error (the daemon runs on, journaling). */
  start(): Promise<void> {
    this.schedule(0);
    return this.cycleOnce();
  }

  /** Whether the board answered the last cycle. */
  get up(): boolean {
    return this.upSince !== null;
  }

  /** A last flush and a clean leave (no lost-host page), bounded by `ms`. */
  async close(ms = 3_000): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const last = (async () => {
      await this.running;
      if (this.up) {
        await this.flush();
        await leave(this.db, this.name);
      }
    })().catch(() => undefined);
    await within(ms, last);
    await this.listener?.end().catch(() => undefined);
    await this.db.close();
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.cycleOnce().finally(() => this.schedule(FLEET_TIMING.cycleMs)), ms);
  }

  private cycleOnce(): Promise<void> {
    this.running ??= this.cycle().finally(() => (this.running = null));
    return this.running;
  }

  private async cycle(): Promise<void> {
    const now = Date.now();
    if (this.upSince === null && now < this.retryAt) return;
    try {
      if (this.upSince === null) await this.reconnect(now);
      await this.work(Date.now());
    } catch (e) {
      this.down(e);
    }
  }

  private async reconnect(now: number): Promise<void> {
    await this.beat(now);
    this.flusher = await BoardFlush.resume(this.db, this.name, this.source, this.host);
    this.screens.clear();
    await this.takeBackClaims(now);
    await this.listen();
    const was = this.retryAt > 0;
    this.upSince = now;
    this.backoff = FLEET_TIMING.backoffMinMs;
    this.host.log.info({ board: this.db.where, host: this.name }, was ? 'fleet board back; flushing what was journaled' : 'joined the fleet board');
  }

  /** Any failure backs off: a statement the database refuses every time must not be retried twice a second (nor logged so). */
  private down(e: unknown): void {
    if (!isConnectionError(e)) this.host.log.error({ err: e }, 'fleet link cycle failed; retrying after a back-off');
    else if (this.upSince !== null || this.retryAt === 0) this.host.log.warn({ board: this.db.where, problem: describeError(e) }, 'fleet board unreachable; supervising on, journaling locally');
    this.upSince = null;
    this.retryAt = Date.now() + this.backoff;
    this.backoff = Math.min(FLEET_TIMING.backoffMaxMs, this.backoff * 2);
    void this.listener?.end().catch(() => undefined);
    this.listener = null;
  }

  private async work(now: number): Promise<void> {
    if (now - this.last.heartbeat >= FLEET_TIMING.heartbeatMs) await this.beat(now);
    if (now - this.last.sweep >= FLEET_TIMING.sweepMs) await this.sweep(now);
    if (!this.listener) await this.listen();
    await this.flush();
    // NOTIFY wakes these at once; the 1 s poll is for a notification lost with its connection.
    if (this.wakeCommands || now - this.last.commands >= FLEET_TIMING.pollMs) await this.runCommands(now);
    if (this.wakeClaims || now - this.last.claims >= FLEET_TIMING.pollMs) await this.claim(now);
    if (now - this.last.screens >= FLEET_TIMING.screenMs) await this.storeScreens(now);
  }

  private async beat(now: number): Promise<void> {
    const running = this.host.board.counts();
    const { wasLost } = await heartbeat(
      this.db,
      { name: this.name, pid: process.pid, running: running.running + running.blocked, maxRunning: this.host.maxRunning, webUrl: this.host.webUrl(), version: this.version },
      !this.started,
    );
    if (wasLost) this.host.log.warn({ host: this.name }, 'this host was declared lost while it was cut off; its jobs there stay done/lost-host on the fleet board');
    // A gap in our own heartbeats (a frozen process, a hung connection) means we were cut off too: judge nobody for 30 s.
    if (this.upSince !== null && this.last.heartbeat > 0 && Date.now() - this.last.heartbeat > 3 * FLEET_TIMING.heartbeatMs) this.upSince = Date.now();
    this.started = true;
    this.last.heartbeat = now;
    for (const j of await failBlockedDependents(this.db, now, this.host.pager.notifiersFor('dependency-failed'))) this.host.log.info({ job: j.id, name: j.name }, 'fleet job can never run: its --after job failed');
  }

  private async sweep(now: number): Promise<void> {
    this.last.sweep = now;
    // Only a host that has itself been up for the whole window may judge others silent: after an outage every host is.
    if (this.upSince === null || now - this.upSince < LOST_AFTER_S * 1_000) return;
    for (const l of await sweepLost(this.db, this.name, now, this.host.pager.notifiersFor('lost'))) {
      this.host.log.warn({ lost: l.name, last_seen: l.last_seen, ended: l.ended.map((j) => j.name) }, 'host lost');
    }
  }

  /**
   * Jobs the fleet says we claimed but our board does not have: the
   * daemon died (or the connection did) between a claim and its adoption.
   * Taken in now; they never ran here, so they run once.
   */
  private async takeBackClaims(now: number): Promise<void> {
    for (const rec of await claimedQueued(this.db, this.name)) {
      if (this.host.board.get(rec.id)) continue;
      try {
        this.host.board.adopt(rec, now, `claimed from the fleet board by host ${this.name} (taken in after a restart)`);
      } catch (e) {
        this.host.log.error({ job: rec.id, err: e }, 'a claimed job could not be taken in; back to the queue');
        await releaseJob(this.db, rec.id, this.name);
      }
    }
  }

  private async claim(now: number): Promise<void> {
    const c = this.host.board.counts();
    const free = this.host.maxRunning - c.queued - c.running - c.blocked;
    this.wakeClaims = false;
    this.last.claims = now;
    if (free <= 0) return;
    const claimed = await claimJobs(this.db, this.name, free);
    for (const rec of claimed) {
      try {
        this.host.board.adopt(rec, Date.now(), `claimed from the fleet board by host ${this.name}`);
      } catch (e) {
        this.host.log.error({ job: rec.id, err: e }, 'a claimed job could not be taken in; back to the queue');
        await releaseJob(this.db, rec.id, this.name);
      }
    }
    if (claimed.length) {
      this.host.schedule();
      await this.flush();
    }
  }

  private async runCommands(now: number): Promise<void> {
    this.wakeCommands = false;
    this.last.commands = now;
    // One row at a time: rows not reached stay pending (and expire on time), never taken and left.
    for (let row = (await takeCommands(this.db, this.name))[0]; row; row = (await takeCommands(this.db, this.name))[0]) {
      let outcome: { result: unknown } | { error: ReturnType<typeof toWire> };
      try {
        outcome = { result: await this.host.commands.run(row.name, row.args, NO_STREAM) };
      } catch (e) {
        outcome = { error: toWire(e) };
      }
      this.host.log.info({ command: row.name, job: row.job, ok: 'result' in outcome }, 'fleet command applied');
      // The reply goes after the local effects are flushed: a caller that reads the board next sees them.
      await this.flush().catch((e: unknown) => this.host.log.error({ err: e }, 'flush before a command reply failed'));
      await finishCommand(this.db, row.id, outcome);
    }
  }

  private async storeScreens(now: number): Promise<void> {
    this.last.screens = now;
    const changed: Array<{ job: string; screen: string }> = [];
    const live = new Set(this.host.liveIds());
    for (const id of this.screens.keys()) if (!live.has(id)) this.screens.delete(id);
    for (const id of live) {
      const text = this.host.live(id)?.view.screen.text();
      if (text !== undefined && this.screens.get(id) !== text) changed.push({ job: id, screen: text });
    }
    if (!changed.length) return;
    await storeScreens(this.db, this.name, changed);
    for (const c of changed) this.screens.set(c.job, c.screen);
  }

  private async listen(): Promise<void> {
    const c = await this.db.listener();
    try {
      await this.subscribe(c);
    } catch (e) {
      await c.end().catch(() => undefined);
      throw e;
    }
  }

  private async subscribe(c: pg.Client): Promise<void> {
    await listenForCommands(c, this.name, () => {
      this.wakeCommands = true;
      this.schedule(0);
    });
    c.on('notification', (n) => {
      if (n.channel === 'nightshift_jobs') {
        this.wakeClaims = true;
        this.schedule(0);
      }
    });
    await c.query('LISTEN nightshift_jobs');
    // A listener cut off by an outage: the next cycle notices through its own queries.
    c.on('end', () => {
      if (this.listener === c) this.listener = null;
    });
    this.listener = c;
  }
}

