/**
 * The fleet's page outbox in PostgreSQL: the same rows and statuses as the
 * SQLite outbox (notify/outbox.ts), so the same Pager sends from it. Any
 * host may send a row; the claim is a lease (in_flight_until), taken by a
 * conditional UPDATE, so of two hosts only one sends, and a host that dies
 * mid-send lets another retry once the lease ends.
 *
 * Pages are queued on each host's own SQLite outbox first (a page must not
 * wait for the database) and copied here by the host's link, keyed by
 * (host, local id), so a copy repeated after an outage adds nothing.
 */
import type { DeliveryStore, OutboxRow, OutboxStatus } from '../notify/outbox.js';
import type { Page } from '../notify/page.js';
import { isConnectionError, type FleetDb } from './db.js';

interface PgRow extends Omit<OutboxRow, 'id' | 'page' | 'status'> {
  id: string;
  page: Page;
  status: OutboxStatus;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function fromPg(r: PgRow): OutboxRow {
  return {
    id: Number(r.id),
    key: r.key,
    job: r.job,
    notifier: r.notifier,
    page: r.page,
    status: r.status,
    round: r.round,
    attempts: r.attempts,
    next_at: Number(r.next_at),
    in_flight_until: num(r.in_flight_until),
    created_at: Number(r.created_at),
    delivered_at: num(r.delivered_at),
    closed_at: num(r.closed_at),
    last_error: r.last_error,
  };
}

const COLUMNS = 'id, key, job, notifier, page, status, round, attempts, next_at, in_flight_until, created_at, delivered_at, closed_at, last_error';

export class PgOutbox implements DeliveryStore {
  /**
   * A send's outcome the database did not take (it went away mid-send),
   * kept and written first on the next tick: a page that went out is
   * marked delivered, not sent again when its lease ends.
   */
  private readonly unsaved: Array<() => Promise<unknown>> = [];

  constructor(
    private readonly db: FleetDb,
    private readonly host: string,
  ) {}

  async startRepages(now: number, afterMs: number): Promise<number> {
    await this.flushUnsaved();
    const r = await this.db.query<{ id: string }>(
      `UPDATE fleet_outbox SET status = 'pending', round = round + 1, attempts = 0, next_at = $1, last_error = NULL
       WHERE status = 'delivered' AND delivered_at <= $2 RETURNING id`,
      [now, now - afterMs],
    );
    return r.length;
  }

  async due(now: number, limit: number, notifiers: readonly string[]): Promise<OutboxRow[]> {
    await this.flushUnsaved();
    const rows = await this.db.query<PgRow>(
      `SELECT ${COLUMNS} FROM fleet_outbox
       WHERE status = 'pending' AND next_at <= $1 AND (in_flight_until IS NULL OR in_flight_until <= $1) AND notifier = ANY($3)
       ORDER BY next_at, id LIMIT $2`,
      [now, limit, notifiers],
    );
    return rows.map(fromPg);
  }

  /**
   * An ended lease is taken over only from a holder that is gone (lost,
   * stopped) or from ourselves: a holder that is up may have sent the page
   * and be waiting to write so (it was cut off mid-send for longer than the
   * lease), and it writes that first thing on its next tick.
   */
  async claim(id: number, now: number, until: number): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE fleet_outbox o SET in_flight_until = $2, leased_by = $4
       WHERE id = $1 AND status = 'pending'
         AND (in_flight_until IS NULL
           OR (in_flight_until <= $3 AND (leased_by IS NULL OR leased_by = $4
             OR NOT EXISTS (SELECT 1 FROM fleet_hosts h WHERE h.name = o.leased_by AND h.state = 'up' AND h.last_seen > now() - interval '30 seconds'))))
       RETURNING id`,
      [id, until, now, this.host],
    );
    return r.length === 1;
  }

  delivered(id: number, now: number, once: boolean): Promise<void> {
    return this.save(() =>
      this.db.query(
        `UPDATE fleet_outbox SET in_flight_until = NULL,
           closed_at = CASE WHEN status = 'pending' AND $4 THEN $2 ELSE closed_at END,
           status = CASE status WHEN 'pending' THEN (CASE WHEN $4 THEN 'resolved' ELSE 'delivered' END) ELSE status END,
           delivered_at = $2, last_error = NULL WHERE id = $1 AND (leased_by = $3 OR leased_by IS NULL)`,
        [id, now, this.host, once],
      ),
    );
  }

  failed(id: number, error: string, nextAt: number): Promise<void> {
    return this.save(() =>
      this.db.query(`UPDATE fleet_outbox SET in_flight_until = NULL, attempts = attempts + 1, last_error = $2, next_at = $3 WHERE id = $1 AND (leased_by = $4 OR leased_by IS NULL)`, [id, error, nextAt, this.host]),
    );
  }

  async hold(id: number, until: number): Promise<void> {
    await this.db.query(`UPDATE fleet_outbox SET next_at = $2 WHERE id = $1`, [id, until]);
  }

  async drop(id: number, reason: string, now: number): Promise<void> {
    await this.db.query(`UPDATE fleet_outbox SET status = 'dropped', last_error = $2, closed_at = $3 WHERE id = $1`, [id, reason, now]);
  }

  private async save(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (e) {
      if (!isConnectionError(e)) throw e;
      this.unsaved.push(write);
    }
  }

  private flushing: Promise<void> | null = null;

  /** One writer at a time: ticks overlap while sends run. */
  private flushUnsaved(): Promise<void> {
    this.flushing ??= (async () => {
      while (this.unsaved.length) {
        await this.unsaved[0]!();
        this.unsaved.shift();
      }
    })().finally(() => (this.flushing = null));
    return this.flushing;
  }
}

/** Every row of `job` on the fleet, oldest first (show's pages). */
export async function pageHistory(db: FleetDb, job: string): Promise<OutboxRow[]> {
  return (await db.query<PgRow>(`SELECT ${COLUMNS} FROM fleet_outbox WHERE job = $1 ORDER BY id`, [job])).map(fromPg);
}

/** Closes the open rows of `job` (ack from anywhere); returns the episodes closed. */
export async function closePages(db: FleetDb, job: string, status: 'acked' | 'resolved', now: number): Promise<number> {
  const rows = await db.query<{ key: string }>(
    `UPDATE fleet_outbox SET status = $2, closed_at = $3 WHERE job = $1 AND status IN ('pending', 'delivered') RETURNING key`,
    [job, status, now],
  );
  return new Set(rows.map((r) => r.key)).size;
}

/** The newest local outbox id this host copied, so a link resumes after a restart or an outage. */
export async function lastCopiedPage(db: FleetDb, source: string): Promise<number> {
  const rows = await db.query<{ id: string | null }>('SELECT max(local_id) AS id FROM fleet_outbox WHERE source = $1', [source]);
  return Number(rows[0]?.id ?? 0);
}

/** Copies rows of this host's SQLite outbox (oldest first); the (host, local id) key makes a repeat a no-op. */
export async function copyPages(db: FleetDb, host: string, source: string, rows: OutboxRow[]): Promise<void> {
  if (!rows.length) return;
  await db.query(
    `INSERT INTO fleet_outbox (key, job, notifier, page, status, round, next_at, created_at, delivered_at, closed_at, host, source, local_id)
     SELECT r.key, r.job, r.notifier, r.page, r.status, r.round, r.next_at, r.created_at, r.delivered_at, r.closed_at, $1, $3, r.id
     FROM jsonb_to_recordset($2::jsonb) AS r(key text, job text, notifier text, page jsonb, status text, round int, next_at bigint, created_at bigint, delivered_at bigint, closed_at bigint, id bigint)
     ON CONFLICT DO NOTHING`,
    // A row delivered here went out before this board joined the fleet: it stays delivered (re-pages go on from the fleet).
    [host, JSON.stringify(rows), source],
  );
}

/** Closes, on the fleet, rows this host closed in its own outbox (an answer resolves, an ack acks). */
export async function copyCloses(db: FleetDb, source: string, rows: OutboxRow[]): Promise<void> {
  if (!rows.length) return;
  await db.query(
    `UPDATE fleet_outbox f SET status = r.status, closed_at = r.closed_at
     FROM jsonb_to_recordset($2::jsonb) AS r(id bigint, status text, closed_at bigint)
     WHERE f.source = $1 AND f.local_id = r.id AND f.status IN ('pending', 'delivered')`,
    [source, JSON.stringify(rows.map((r) => ({ id: r.id, status: r.status, closed_at: r.closed_at })))],
  );
}
