/**
 * The pager's outbox: one row per (episode, notifier), in the board's
 * SQLite file. Every state a delivery can be in is a row here, so a daemon
 * restart (or crash) mid-page loses nothing: the next Pager on the same file
 * picks up where this one stopped. Times are the injected clock's ms.
 */
import type Sqlite from 'better-sqlite3';
import type { Page } from './page.js';

type Database = Sqlite.Database;

/**
 * pending: to be sent at next_at (a first try, a retry, a re-page round, or
 * held for quiet hours). delivered: the round went out; waits for re-page.
 * acked / resolved: a person answered or the episode ended; nothing more goes.
 * dropped: its notifier left the config.
 */
export type OutboxStatus = 'pending' | 'delivered' | 'acked' | 'resolved' | 'dropped';

export interface OutboxRow {
  id: number;
  key: string;
  job: string;
  notifier: string;
  page: Page;
  status: OutboxStatus;
  /** 1 for the first page, +1 per re-page of the same episode. */
  round: number;
  /** Failed tries in this round. */
  attempts: number;
  next_at: number;
  /** Set while a send is running; a lease, so a crashed sender's claim expires. */
  in_flight_until: number | null;
  created_at: number;
  delivered_at: number | null;
  closed_at: number | null;
  last_error: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS notify_outbox (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  key             TEXT NOT NULL,
  job             TEXT NOT NULL,
  notifier        TEXT NOT NULL,
  page            TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('pending','delivered','acked','resolved','dropped')),
  round           INTEGER NOT NULL DEFAULT 1,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_at         INTEGER NOT NULL,
  in_flight_until INTEGER,
  created_at      INTEGER NOT NULL,
  delivered_at    INTEGER,
  closed_at       INTEGER,
  last_error      TEXT,
  UNIQUE (key, notifier)
);
CREATE INDEX IF NOT EXISTS notify_outbox_due ON notify_outbox (status, next_at);
CREATE INDEX IF NOT EXISTS notify_outbox_job ON notify_outbox (job, status);
`;

type DbRow = Omit<OutboxRow, 'page' | 'status'> & { page: string; status: string };

function fromDb(r: DbRow): OutboxRow {
  return { ...r, page: JSON.parse(r.page) as Page, status: r.status as OutboxStatus };
}

const OPEN = `status IN ('pending', 'delivered')`;

type Maybe<T> = T | Promise<T>;

/**
 * What the pager's delivery needs from an outbox: this SQLite one, or the
 * fleet's in PostgreSQL (src/fleet/outbox.ts), where any host may send and
 * the claim is the same lease.
 */
export interface DeliveryStore {
  startRepages(now: number, afterMs: number): Maybe<number>;
  /** `notifiers`: the ones this sender has; a shared outbox leaves the others' rows to senders that have them. */
  due(now: number, limit: number, notifiers: readonly string[]): Maybe<OutboxRow[]>;
  claim(id: number, now: number, until: number): Maybe<boolean>;
  /** `once`: a page about a job that is over, closed (resolved) as it goes out, so no re-page round ever starts. */
  delivered(id: number, now: number, once: boolean): Maybe<void>;
  failed(id: number, error: string, nextAt: number): Maybe<void>;
  hold(id: number, until: number): Maybe<void>;
  drop(id: number, reason: string, now: number): Maybe<void>;
}

export class Outbox implements DeliveryStore {
  /** Prepared once: the pager asks for due rows and re-pages every second, and preparing was a fair part of an idle tick. */
  private readonly statements = new Map<string, Sqlite.Statement>();

  constructor(private readonly db: Database) {
    db.exec(SCHEMA);
  }

  private q(sql: string): Sqlite.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  /** Queues `page` once per notifier; an existing (key, notifier) row is left alone. Returns rows added. */
  add(page: Page, notifiers: string[], now: number, nextAt: number): number {
    const insert = this.q(
      `INSERT OR IGNORE INTO notify_outbox (key, job, notifier, page, status, next_at, created_at)
       VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
    );
    const json = JSON.stringify(page);
    return this.db.transaction(() => {
      let added = 0;
      for (const n of notifiers) added += insert.run(page.key, page.job, n, json, nextAt, now).changes;
      return added;
    })();
  }

  /** Starts a new round for rows delivered at least `afterMs` ago and still open. Returns rows re-queued. */
  startRepages(now: number, afterMs: number): number {
    return this.q(
        `UPDATE notify_outbox SET status = 'pending', round = round + 1, attempts = 0, next_at = ?, last_error = NULL
         WHERE status = 'delivered' AND delivered_at <= ?`,
      )
      .run(now, now - afterMs).changes;
  }

  /** Rows whose time has come and that nobody is sending right now (of every notifier: the pager drops those it no longer has). */
  due(now: number, limit: number): OutboxRow[] {
    const rows = this.q(
        `SELECT * FROM notify_outbox
         WHERE status = 'pending' AND next_at <= ? AND (in_flight_until IS NULL OR in_flight_until <= ?)
         ORDER BY next_at, id LIMIT ?`,
      )
      .all(now, now, limit) as DbRow[];
    return rows.map(fromDb);
  }

  /**
   * Marks a row in flight until `until`. The conditional UPDATE is the lock:
   * of two senders (overlapping ticks, two processes) only one gets a change.
   */
  claim(id: number, now: number, until: number): boolean {
    return (
      this.q(
          `UPDATE notify_outbox SET in_flight_until = ?
           WHERE id = ? AND status = 'pending' AND (in_flight_until IS NULL OR in_flight_until <= ?)`,
        )
        .run(until, id, now).changes === 1
    );
  }

  /** Success. A row acked or resolved while in flight keeps that status; a once-page is resolved as it goes out. */
  delivered(id: number, now: number, once: boolean): void {
    this.q(
        `UPDATE notify_outbox SET in_flight_until = NULL,
           closed_at = CASE WHEN status = 'pending' AND ? THEN ? ELSE closed_at END,
           status = CASE status WHEN 'pending' THEN (CASE WHEN ? THEN 'resolved' ELSE 'delivered' END) ELSE status END,
           delivered_at = ?, last_error = NULL
         WHERE id = ?`,
      )
      .run(once ? 1 : 0, now, once ? 1 : 0, now, id);
  }

  /** Failure: counts the try and sets the retry time. */
  failed(id: number, error: string, nextAt: number): void {
    this.q(
        `UPDATE notify_outbox SET in_flight_until = NULL, attempts = attempts + 1, last_error = ?, next_at = ?
         WHERE id = ?`,
      )
      .run(error, nextAt, id);
  }

  /** Postpones a due row (quiet hours) without counting a try. */
  hold(id: number, until: number): void {
    this.q(`UPDATE notify_outbox SET next_at = ? WHERE id = ?`).run(until, id);
  }

  drop(id: number, reason: string, now: number): void {
    this.q(`UPDATE notify_outbox SET status = 'dropped', last_error = ?, closed_at = ? WHERE id = ?`)
      .run(reason, now, id);
  }

  /** Closes every open row of `job`. Returns how many episodes (keys) that closed. */
  close(job: string, status: 'acked' | 'resolved', now: number): number {
    return this.db.transaction(() => {
      const keys = this.q(`SELECT COUNT(DISTINCT key) AS n FROM notify_outbox WHERE job = ? AND ${OPEN}`).get(job) as {
        n: number;
      };
      this.q(`UPDATE notify_outbox SET status = ?, closed_at = ? WHERE job = ? AND ${OPEN}`).run(status, now, job);
      return keys.n;
    })();
  }

  pending(): OutboxRow[] {
    return (this.q(`SELECT * FROM notify_outbox WHERE status = 'pending' ORDER BY next_at, id`).all() as DbRow[]).map(fromDb);
  }

  /** Rows after `id`, oldest first: what a fleet link copies to the shared outbox. */
  since(id: number, limit: number): OutboxRow[] {
    return (this.q(`SELECT * FROM notify_outbox WHERE id > ? ORDER BY id LIMIT ?`).all(id, limit) as DbRow[]).map(fromDb);
  }

  /** Rows closed (acked, resolved, dropped) at or after `time`. */
  closedSince(time: number): OutboxRow[] {
    return (this.q(`SELECT * FROM notify_outbox WHERE closed_at >= ? ORDER BY closed_at, id`).all(time) as DbRow[]).map(fromDb);
  }

  /** Every notifier's row of the page queued last (the highest id's key); empty when nothing was ever paged. */
  latest(): OutboxRow[] {
    const sql = `SELECT * FROM notify_outbox WHERE key = (SELECT key FROM notify_outbox ORDER BY id DESC LIMIT 1) ORDER BY id`;
    return (this.q(sql).all() as DbRow[]).map(fromDb);
  }

  history(job: string): OutboxRow[] {
    return (this.q(`SELECT * FROM notify_outbox WHERE job = ? ORDER BY id`).all(job) as DbRow[]).map(fromDb);
  }
}
