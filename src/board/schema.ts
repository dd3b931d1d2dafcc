/**
 * The board's tables, versioned with `PRAGMA user_version`. Each entry of
 * MIGRATIONS takes the file from version i to i+1; a new version appends
 * an entry and never edits an old one, so any older file can be brought up.
 *
 * user_version belongs to the board. Other tables in the same file (the
 * pager's outbox) must not use it for their own versioning.
 */
import type Sqlite from 'better-sqlite3';
import { InputError } from '../util/errors.js';

const MIGRATIONS: readonly string[] = [
  // 1: jobs and their transition log. Lists and records are JSON text;
  // seq gives the submission order, which is what FIFO means.
  `
  CREATE TABLE jobs (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT    NOT NULL UNIQUE,
    name          TEXT    NOT NULL UNIQUE,
    state         TEXT    NOT NULL CHECK (state IN ('queued', 'running', 'blocked', 'done')),
    reason        TEXT    NOT NULL,
    command       TEXT    NOT NULL,
    cwd           TEXT    NOT NULL,
    env           TEXT    NOT NULL,
    policy        TEXT,
    rules         TEXT,
    budgets       TEXT    NOT NULL,
    priority      INTEGER NOT NULL,
    after_ids     TEXT    NOT NULL,
    created       TEXT    NOT NULL,
    started       TEXT,
    ended         TEXT,
    last_activity TEXT,
    exit          TEXT,
    paths         TEXT,
    tokens_used   INTEGER
  );
  CREATE INDEX jobs_state ON jobs (state, priority DESC, seq);
  CREATE TABLE transitions (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    job    TEXT NOT NULL REFERENCES jobs (id),
    time   TEXT NOT NULL,
    state  TEXT NOT NULL,
    reason TEXT NOT NULL
  );
  CREATE INDEX transitions_job ON transitions (job, seq);
  `,
  // 2: where a resumed job's transcript picks up (JSON, null for a fresh job).
  `ALTER TABLE jobs ADD COLUMN resume_from TEXT;`,
  // 3: the web view's people, single-use codes and browser sessions (src/people/auth-store.ts).
  // Secrets are never stored: a token's secret as scrypt(secret, salt), codes and
  // session ids as their SHA-256. Times are ms. IF NOT EXISTS: a test (or a person)
  // that winds user_version back must not find the step impossible to replay.
  `
  CREATE TABLE IF NOT EXISTS web_people (
    name      TEXT    PRIMARY KEY,
    role      TEXT    NOT NULL CHECK (role IN ('viewer', 'operator')),
    token_id  TEXT    NOT NULL UNIQUE,
    salt      BLOB    NOT NULL,
    hash      BLOB    NOT NULL,
    created   INTEGER NOT NULL,
    last_used INTEGER,
    revoked   INTEGER
  );
  CREATE TABLE IF NOT EXISTS web_codes (
    hash    TEXT    PRIMARY KEY,
    person  TEXT    NOT NULL,
    role    TEXT    NOT NULL CHECK (role IN ('viewer', 'operator')),
    purpose TEXT    NOT NULL,
    expires INTEGER NOT NULL,
    used    INTEGER
  );
  CREATE INDEX IF NOT EXISTS web_codes_person ON web_codes (person);
  CREATE TABLE IF NOT EXISTS web_sessions (
    hash      TEXT    PRIMARY KEY,
    person    TEXT    NOT NULL,
    role      TEXT    NOT NULL CHECK (role IN ('viewer', 'operator')),
    csrf      TEXT    NOT NULL,
    started   INTEGER NOT NULL,
    last_seen INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS web_sessions_person ON web_sessions (person);
  `,
  // 4: a session's own end (max_until): one started from a page's link lives 12 h,
  // a token's sign-in 7 days (auth-store.ts). Sessions are only sign-ins, so the
  // table is made anew rather than altered: after the upgrade each browser signs
  // in once more, and the step can be replayed (ALTER TABLE ADD COLUMN cannot).
  `
  DROP TABLE IF EXISTS web_sessions;
  CREATE TABLE web_sessions (
    hash      TEXT    PRIMARY KEY,
    person    TEXT    NOT NULL,
    role      TEXT    NOT NULL CHECK (role IN ('viewer', 'operator')),
    csrf      TEXT    NOT NULL,
    started   INTEGER NOT NULL,
    last_seen INTEGER NOT NULL,
    max_until INTEGER NOT NULL
  );
  CREATE INDEX web_sessions_person ON web_sessions (person);
  `,
  // 5: what a job did that its row does not hold, for the digest (notes.ts): an answer
  // given by a rule, a question put to a person, a probe's verdict, how it ended. Detail is JSON.
  `
  CREATE TABLE IF NOT EXISTS job_notes (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    job    TEXT NOT NULL,
    time   TEXT NOT NULL,
    kind   TEXT NOT NULL,
    detail TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS job_notes_time ON job_notes (time);
  CREATE INDEX IF NOT EXISTS job_notes_job ON job_notes (job, seq);
  `,
];

export const BOARD_SCHEMA_VERSION = MIGRATIONS.length;

function version(db: Sqlite.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Brings the file to BOARD_SCHEMA_VERSION; refuses a file from a newer nightshift. */
export function migrateBoard(db: Sqlite.Database, file: string = db.name): void {
  // Checked outside a write transaction first: an up-to-date file (every
  // open but the first) must not take the write lock just to find that out.
  if (checkVersion(db, file) === BOARD_SCHEMA_VERSION) return;
  db.transaction(() => {
    // Re-read under the lock: another process may have migrated meanwhile.
    for (let v = checkVersion(db, file); v < BOARD_SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
    db.pragma(`user_version = ${BOARD_SCHEMA_VERSION}`);
  }).immediate();
}

function checkVersion(db: Sqlite.Database, file: string): number {
  const v = version(db);
  if (v > BOARD_SCHEMA_VERSION) {
    throw new InputError(
      `the task board has schema version ${v}, newer than this nightshift understands (${BOARD_SCHEMA_VERSION}); upgrade nightshift`,
      { file },
    );
  }
  return v;
}
