/**
 * The connection to a fleet board: a `pg` pool on a postgres:// URL,
 * migrated on first use. Every caller (a CLI verb, a daemon's link, the
 * web view) goes through `tx` or `query`; a server that cannot be reached
 * is a BoardUnreachable naming the URL without its password.
 */
import pg from 'pg';
import { InputError } from '../util/errors.js';
import { migrateFleet } from './schema.js';

import { safeUrl } from './names.js';

/** The server is down or refused us: the CLI says so in one line; a daemon journals locally and retries. */
export class BoardUnreachable extends InputError {
  override name = 'BoardUnreachable';
}

/** Connection-level failures (the server went away), as opposed to a statement the server refused. */
export function isConnectionError(e: unknown): boolean {
  const err = e as { code?: string; message?: string } | null;
  if (!err) return false;
  if (e instanceof BoardUnreachable) return true;
  const code = err.code ?? '';
  // 57P01-03: admin shutdown, crash shutdown, cannot connect now; 08*: connection exceptions.
  if (/^(08|57P0[1-3])/.test(code)) return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)) return true;
  // Hung rather than refused: node-postgres' own query timeout, and pg-pool's wait for a free client.
  return /Connection terminated|connection timeout|not queryable|Client has encountered a connection error|Query read timeout|timeout exceeded when trying to connect/i.test(err.message ?? '');
}

export type Queryable = Pick<pg.PoolClient, 'query'>;

export class FleetDb {
  private migrated: Promise<void> | null = null;

  private constructor(
    readonly url: string,
    private readonly pool: pg.Pool,
  ) {}

  /** A pool of up to `max` connections. Nothing connects until the first query. */
  static open(url: string, opts: { max?: number; application?: string } = {}): FleetDb {
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.max ?? 4,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      application_name: opts.application ?? 'nightshift',
      // A dead server must not hang a statement forever: the daemon's link would stop flushing.
      query_timeout: 15_000,
      // A server that vanished without a FIN (a paused VM, a moved address) is noticed, not waited on for minutes.
      keepAlive: true,
    });
    // An idle client whose server went away emits here; the next checkout gets a fresh one.
    pool.on('error', () => undefined);
    return new FleetDb(url, pool);
  }

  get where(): string {
    return safeUrl(this.url);
  }

  /** Runs `fn` in one transaction (READ COMMITTED; claims lock their rows). */
  async tx<T>(fn: (c: Queryable) => Promise<T>): Promise<T> {
    const c = await this.client();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      c.release();
      return out;
    } catch (e) {
      if (!isConnectionError(e)) await c.query('ROLLBACK').catch(() => undefined);
      c.release(isConnectionError(e) ? (e as Error) : undefined);
      throw this.wrap(e);
    }
  }

  async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    const c = await this.client();
    try {
      const rows = (await c.query<R>(text, values)).rows;
      c.release();
      return rows;
    } catch (e) {
      // A client whose query timed out may still have it running: destroyed, not handed to the next caller.
      c.release(isConnectionError(e) ? (e as Error) : undefined);
      throw this.wrap(e);
    }
  }

  /** A client of its own for LISTEN (the caller ends it). */
  async listener(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5_000, query_timeout: 10_000, keepAlive: true, application_name: 'nightshift-listen' });
    c.on('error', () => undefined);
    try {
      await c.connect();
    } catch (e) {
      await c.end().catch(() => undefined);
      throw this.wrap(e);
    }
    return c;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  private async client(): Promise<pg.PoolClient> {
    let c: pg.PoolClient;
    try {
      c = await this.pool.connect();
    } catch (e) {
      throw this.wrap(e);
    }
    if (!this.migrated) this.migrated = migrateFleet(c, this.where);
    try {
      await this.migrated;
    } catch (e) {
      this.migrated = null;
      c.release();
      throw this.wrap(e);
    }
    return c;
  }

  private wrap(e: unknown): unknown {
    if (e instanceof InputError) return e;
    if (isConnectionError(e)) {
      const err = e as { code?: string; message?: string };
      return new BoardUnreachable(`cannot reach the fleet board at ${this.where}: ${err.code ?? err.message}`, { cause: e });
    }
    return e;
  }
}
