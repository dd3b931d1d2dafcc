/**
 * The state directory's SQLite file, `<stateDir>/board.sqlite`. The board
 * keeps its jobs there and the pager keeps its outbox in the same file, so
 * one handle (and one transaction) can cover both.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { InputError } from '../util/errors.js';
import { migrateBoard } from './schema.js';

export type Database = Sqlite.Database;

export const BOARD_FILE = 'board.sqlite';

/**
 * How long a statement waits for another process's lock before failing.
 * WAL readers never wait for writers, but every connection briefly needs a
 * lock while it opens, recovers the WAL index or checkpoints; a CLI reading
 * the board while the daemon writes must ride that out instead of failing.
 */
export const BUSY_TIMEOUT_MS = 10_000;

export function boardPath(stateDir: string): string {
  return join(stateDir, BOARD_FILE);
}

/**
 * Opens (creating if needed) the board file with its pragmas set and its
 * schema migrated. The file is 0600 and its folder is created 0700: jobs
 * carry their environment, which may hold secrets.
 */
export function openDatabase(stateDir: string): Database {
  const path = boardPath(stateDir);
  prepareFile(stateDir, path);
  let db: Database;
  try {
    db = new Sqlite(path, { timeout: BUSY_TIMEOUT_MS });
  } catch (cause) {
    throw new InputError(`cannot open the task board ${path}: ${(cause as Error).message}`, { file: path, cause });
  }
  try {
    configure(db);
    migrateBoard(db, path);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/**
 * Creates the file ourselves so it is born 0600: SQLite would create it
 * 0644 under the usual umask, and its -wal/-shm files copy the main file's
 * mode. An existing file (or leftovers from an older version) is tightened.
 */
function prepareFile(stateDir: string, path: string): void {
  try {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
    for (const p of [path, `${path}-wal`, `${path}-shm`]) {
      if (existsSync(p)) chmodSync(p, 0o600);
    }
  } catch (cause) {
    throw new InputError(`cannot create the task board ${path}: ${(cause as Error).message}`, { file: path, cause });
  }
}

function configure(db: Database): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // WAL: CLI readers see a consistent snapshot while the daemon writes, and
  // never block it. The mode is stored in the file, so set it only once;
  // re-asserting it on every open would take a lock for nothing.
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
  // FULL, not NORMAL: in WAL mode NORMAL survives a killed daemon but may
  // lose the last commits on power loss. Writes here are few (a submit, a
  // handful of transitions per job, throttled heartbeats), and a submit the
  // CLI acknowledged or an outbox row marked "sent" must not come undone.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
}

/**
 * The board file opened read-only, for a CLI that reads a job with or
 * without a daemon (WAL: it never blocks the daemon's writes); null when
 * the state directory has no board yet.
 */
export function openDatabaseReadOnly(stateDir: string): Database | null {
  const path = boardPath(stateDir);
  if (!existsSync(path)) return null;
  try {
    const db = new Sqlite(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return db;
  } catch (cause) {
    throw new InputError(`cannot read the task board ${path}: ${(cause as Error).message}`, { file: path, cause });
  }
}
