/**
 * The fleet board's tables in PostgreSQL, versioned like the SQLite board
 * (board/schema.ts): MIGRATIONS[i] takes the database from version i to
 * i+1, a new version appends an entry and never edits an old one. The
 * version lives in fleet_schema; a transaction-scoped advisory lock makes
 * hosts that start together migrate one after another, not at once.
 *
 * A job's record is the JSON the owning host's SQLite board holds (so
 * `board --json` reads the same on either board); the columns beside it
 * are what claims and dependency checks query.
 */
import type { PoolClient } from 'pg';
import { InputError } from '../util/errors.js';

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE fleet_jobs (
    seq        bigserial PRIMARY KEY,
    id         text NOT NULL UNIQUE,
    name       text NOT NULL UNIQUE,
    state      text NOT NULL CHECK (state IN ('queued', 'running', 'blocked', 'done')),
    priority   integer NOT NULL,
    after_ids  text[] NOT NULL,
    pinned     text,
    host       text,
    claimed_at timestamptz,
    -- null until done; then whether it succeeded (core/outcome.ts), which --after reads.
    outcome    text CHECK (outcome IN ('succeeded', 'failed')),
    -- json, not jsonb: jsonb reorders keys, and board --json prints records in the SQLite board's order.
    record     json NOT NULL,
    updated    timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX fleet_jobs_queue ON fleet_jobs (priority DESC, seq) WHERE state = 'queued' AND host IS NULL;
  CREATE INDEX fleet_jobs_host ON fleet_jobs (host, state);
  CREATE TABLE fleet_transitions (
    seq       bigserial PRIMARY KEY,
    job       text NOT NULL,
    -- The host that made the move; its board (source: host and the SQLite file's own id) and
    -- that board's transition seq, so a flush repeated after an outage adds nothing.
    host      text,
    source    text,
    local_seq bigint,
    time      text NOT NULL,
    state     text NOT NULL,
    reason    jsonb NOT NULL,
    UNIQUE (source, local_seq)
  );
  CREATE INDEX fleet_transitions_job ON fleet_transitions (job, seq);
  CREATE TABLE fleet_hosts (
    name        text PRIMARY KEY,
    state       text NOT NULL CHECK (state IN ('up', 'lost', 'stopped')),
    pid         integer,
    started     timestamptz NOT NULL,
    last_seen   timestamptz NOT NULL,
    lost_at     timestamptz,
    running     integer NOT NULL DEFAULT 0,
    max_running integer NOT NULL,
    web_url     text,
    version     text
  );
  CREATE TABLE fleet_commands (
    id       bigserial PRIMARY KEY,
    host     text NOT NULL,
    job      text,
    name     text NOT NULL,
    args     jsonb NOT NULL,
    state    text NOT NULL CHECK (state IN ('pending', 'taken', 'applied', 'failed', 'expired')),
    result   jsonb,
    error    jsonb,
    created  timestamptz NOT NULL DEFAULT now(),
    expires  timestamptz NOT NULL,
    done     timestamptz
  );
  CREATE INDEX fleet_commands_pending ON fleet_commands (host, id) WHERE state = 'pending';
  CREATE TABLE fleet_screens (
    job     text PRIMARY KEY,
    host    text NOT NULL,
    screen  text NOT NULL,
    updated timestamptz NOT NULL
  );
  CREATE TABLE fleet_outbox (
    id              bigserial PRIMARY KEY,
    key             text NOT NULL,
    job             text NOT NULL,
    notifier        text NOT NULL,
    page            jsonb NOT NULL,
    status          text NOT NULL CHECK (status IN ('pending', 'delivered', 'acked', 'resolved', 'dropped')),
    round           integer NOT NULL DEFAULT 1,
    attempts        integer NOT NULL DEFAULT 0,
    next_at         bigint NOT NULL,
    in_flight_until bigint,
    leased_by       text,
    created_at      bigint NOT NULL,
    delivered_at    bigint,
    closed_at       bigint,
    last_error      text,
    -- Who queued it and its id in that host's SQLite outbox (null: queued here by the fleet itself).
    host            text,
    source          text,
    local_id        bigint,
    UNIQUE (key, notifier),
    UNIQUE (source, local_id)
  );
  CREATE INDEX fleet_outbox_due ON fleet_outbox (status, next_at);
  CREATE INDEX fleet_outbox_job ON fleet_outbox (job, id);
  `,
];

export const FLEET_SCHEMA_VERSION = MIGRATIONS.length;

/** Any number: the lock only has to be the same for every nightshift. */
const MIGRATION_LOCK = 0x6e736674;

/** Brings the database to FLEET_SCHEMA_VERSION in one transaction; refuses one from a newer nightshift. */
export async function migrateFleet(c: PoolClient, where: string): Promise<void> {
  await c.query('BEGIN');
  try {
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await c.query('CREATE TABLE IF NOT EXISTS fleet_schema (version integer PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())');
    const { rows } = await c.query<{ v: number | null }>('SELECT max(version) AS v FROM fleet_schema');
    const v = rows[0]?.v ?? 0;
    if (v > FLEET_SCHEMA_VERSION) {
      throw new InputError(`the fleet board at ${where} has schema version ${v}, newer than this nightshift understands (${FLEET_SCHEMA_VERSION}); upgrade nightshift`);
    }
    for (let i = v; i < FLEET_SCHEMA_VERSION; i++) {
      await c.query(MIGRATIONS[i]!);
      await c.query('INSERT INTO fleet_schema (version) VALUES ($1)', [i + 1]);
    }
    await c.query('COMMIT');
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
