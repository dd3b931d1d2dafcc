/**
 * A daemon's link to the fleet board. The daemon keeps running on its own
 * SQLite board (synchronous, always there); the link dials out to
 * PostgreSQL and, every cycle:
 *   - heartbeats, and declares hosts silent for 30 s lost;
 *   - flushes what the local board did (transitions in their own order,
 *     changed records, queued and closed pages) — the SQLite board is the
 *     journal, so an outage only delays the flush;
 *   - claims queued jobs up to its free slots;
 *   - takes command rows meant for it and runs them from its own table;
 *   - stores each live job's screen, at most every 2 s while it changes.
 * Any connection error marks the board down; the link retries with a
 * capped back-off and, once back, flushes from where the fleet's copy ends.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Board } from '../board/board.js';
import type { JobRecord } from '../board/types.js';
import type { Commands } from '../daemon/command.js';
import type { JobHandle } from '../daemon/job-slot.js';
import type { Pager } from '../notify/pager.js';
import { NO_STREAM } from '../web/api.js';
import { describeError } from '../util/errors.js';
import { finishCommand, listenForCommands, takeCommands, toWire } from './commands.js';
import { isConnectionError, type FleetDb } from './db.js';
import { heartbeat, leave, sweepLost, LOST_AFTER_S } from './hosts.js';
import { claimJobs, failBlockedDependents, lastPushedTransition, pushFromHost, releaseJob } from './jobs.js';
import { copyCloses, copyPages, lastCopiedPage } from './outbox.js';
import { storeScreens } from './screens.js';

/** What the link needs of its daemon: a narrow view, so the two files stay apart. */
export interface FleetHost {
  readonly board: Board;
  readonly pager: Pager;
  readonly commands: Commands;
  readonly maxRunning: number;
  live(id: string): JobHandle | undefined;
  /** Ids of the jobs live here now. */
  liveIds(): string[];
  schedule(): void;
  webUrl(): string | null;
  readonly log: { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void };
}

export const FLEET_TIMING = {
  cycleMs: 250,
  pollMs: 1_000,
  heartbeatMs: 2_000,
  /** How often a host looks for silent ones: a dead host is reported at most this long after its 30 s. */
  sweepMs: 1_000,
  screenMs: 2_000,
  recordsMs: 2_000,
  /** Capped back-off: far below LOST_AFTER_S, so an outage never makes a host look lost once the database is back. */
  backoffMinMs: 250,
  backoffMaxMs: 5_000,
};

const BATCH = 500;

export class FleetLink {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  /** null: the board is down (or not reached yet). */
  private upSince: number | null = null;
  private retryAt = 0;
  private backoff = FLEET_TIMING.backoffMinMs;
  /** Where the fleet's copy of this board ends: the last transition and page copied, and the newest close (with the ids closed at that very ms). */
  private marks: { transition: number; page: number; closedAt: number; closedIds: Set<number> } | null = null;
  private readonly pushed = new Map<string, string>();
  private readonly screens = new Map<string, string>();
  private last = { heartbeat: 0, sweep: 0, screens: 0, records: 0, commands: 0, claims: 0 };
  private started = false;
  private listener: pg.Client | null = null;
  private wakeCommands = true;
  private wakeClaims = true;
  readonly source: string;

  constructor(
    private readonly db: FleetDb,
    readonly name: string,
    private readonly host: FleetHost,
    private readonly version: string,
  ) {
    this.source = `${name}/${boardIdentity(host.board)}`;
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
    await Promise.race([last, new Promise((r) => setTimeout(r, ms))]);
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
    this.marks = {
      transition: await lastPushedTransition(this.db, this.source),
      page: await lastCopiedPage(this.db, this.source),
      closedAt: 0,
      closedIds: new Set(),
    };
    this.pushed.clear();
    this.screens.clear();
    await this.listen();
    const was = this.retryAt > 0;
    this.upSince = now;
    this.backoff = FLEET_TIMING.backoffMinMs;
    this.host.log.info({ board: this.db.where, host: this.name }, was ? 'fleet board back; flushing what was journaled' : 'joined the fleet board');
  }

  private down(e: unknown): void {
    if (!isConnectionError(e)) {
      this.host.log.error({ err: e }, 'fleet link cycle failed');
      return;
    }
    if (this.upSince !== null || this.retryAt === 0) this.host.log.warn({ board: this.db.where, problem: describeError(e) }, 'fleet board unreachable; supervising on, journaling locally');
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
    this.started = true;
    this.last.heartbeat = now;
    for (const j of await failBlockedDependents(this.db, now, this.host.pager.notifierNames)) this.host.log.info({ job: j.id, name: j.name }, 'fleet job can never run: its --after job failed');
  }

  private async sweep(now: number): Promise<void> {
    this.last.sweep = now;
    // Only a host that has itself been up for the whole window may judge others silent: after an outage every host is.
    if (this.upSince === null || now - this.upSince < LOST_AFTER_S * 1_000) return;
    for (const l of await sweepLost(this.db, this.name, now, this.host.pager.notifierNames)) {
      this.host.log.warn({ lost: l.name, last_seen: l.last_seen, ended: l.ended.map((j) => j.name), requeued: l.requeued }, 'host lost');
    }
  }

  /** Local transitions, changed records, new and closed pages: in that order, so a page never names a move the fleet has not seen. */
  private async flush(): Promise<void> {
    const marks = this.marks!;
    const { board, pager } = this.host;
    for (;;) {
      const ts = board.transitionsSince(marks.transition, BATCH);
      const records = this.changedRecords(ts.map((t) => t.job));
      if (!ts.length && !records.length) break;
      await pushFromHost(this.db, this.name, this.source, ts, records);
      for (const r of records) this.pushed.set(r.id, JSON.stringify(r));
      if (ts.length) marks.transition = ts[ts.length - 1]!.seq;
      if (ts.length < BATCH) break;
    }
    for (let rows = pager.outbox.since(marks.page, BATCH); rows.length; rows = pager.outbox.since(marks.page, BATCH)) {
      await copyPages(this.db, this.name, this.source, rows);
      marks.page = rows[rows.length - 1]!.id;
    }
    const closes = pager.outbox.closedSince(marks.closedAt).filter((r) => r.closed_at! > marks.closedAt || !marks.closedIds.has(r.id));
    if (closes.length) {
      await copyCloses(this.db, this.source, closes);
      const newest = Math.max(...closes.map((r) => r.closed_at!));
      if (newest > marks.closedAt) marks.closedIds.clear();
      marks.closedAt = newest;
      for (const r of closes) if (r.closed_at === newest) marks.closedIds.add(r.id);
    }
  }

  /** Records of `touched` jobs, and every record that changed since it was pushed (checked every few seconds). */
  private changedRecords(touched: string[]): JobRecord[] {
    const now = Date.now();
    const all = now - this.last.records >= FLEET_TIMING.recordsMs;
    if (!all && !touched.length) return [];
    const want = new Set(touched);
    const list = all ? this.host.board.list().filter((r) => !settled(r, now)) : [...want].flatMap((id) => this.host.board.get(id) ?? []);
    if (all) this.last.records = now;
    return list.filter((r) => want.has(r.id) || this.pushed.get(r.id) !== JSON.stringify(r));
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
    for (const row of await takeCommands(this.db, this.name)) {
      let outcome: { result: unknown } | { error: ReturnType<typeof toWire> };
      try {
        outcome = { result: await this.host.commands.run(row.name, row.args, NO_STREAM) };
      } catch (e) {
        outcome = { error: toWire(e) };
      }
      this.host.log.info({ command: row.name, job: row.job, ok: 'result' in outcome }, 'fleet command applied');
      // The reply goes after the local effects are flushed: a caller that reads the board next sees them.
      await this.flush();
      await finishCommand(this.db, row.id, outcome);
    }
  }

  private async storeScreens(now: number): Promise<void> {
    this.last.screens = now;
    const changed: Array<{ job: string; screen: string }> = [];
    for (const id of this.host.liveIds()) {
      const text = this.host.live(id)?.screen.text();
      if (text !== undefined && this.screens.get(id) !== text) changed.push({ job: id, screen: text });
    }
    if (!changed.length) return;
    await storeScreens(this.db, this.name, changed);
    for (const c of changed) this.screens.set(c.job, c.screen);
  }

  private async listen(): Promise<void> {
    const c = await this.db.listener();
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

/** A job done for a minute: its record no longer changes (fields written after the end come within seconds). */
function settled(r: JobRecord, now: number): boolean {
  return r.state === 'done' && r.ended !== null && now - Date.parse(r.ended) > 60_000;
}

/** This SQLite board's own id: a host name reused with a fresh state directory is a new source of transitions. */
function boardIdentity(board: Board): string {
  board.db.exec('CREATE TABLE IF NOT EXISTS fleet_identity (id TEXT NOT NULL)');
  const row = board.db.prepare('SELECT id FROM fleet_identity').get() as { id: string } | undefined;
  if (row) return row.id;
  const id = randomUUID();
  board.db.prepare('INSERT INTO fleet_identity (id) VALUES (?)').run(id);
  return id;
}
