/**
 * The daemon's board, written behind. The daemon reads and writes an
 * in-memory copy of board.sqlite (the same schema, the same SQL, still
 * synchronous), and every write it makes there is replayed, in order, on
 * the file by a thread of its own (board-writer.ts).
 *
 * Why: better-sqlite3 writes on the calling thread. In the 100-job scale
 * bench the daemon's thread sat in `pwrite64` of board.sqlite-wal for up
 * to 550 ms (state D, ext4 waiting for a block) while the jobs' recordings
 * kept the disk busy, and every job waited with it.
 *
 * What is kept: `durable()` resolves once everything written so far is on
 * disk, and a command's reply waits for it (command.ts), as does a page's
 * delivery mark; so nothing a person or a client was told can come undone
 * in a crash. A `kill -9` loses at most the writes nobody has seen
 * acknowledged yet: those made since the writer's last commit (a few ms;
 * as long as the disk stalls, when it stalls). The daemon is the only
 * writer of the file while it runs (its lock says so), so the copy and the
 * file cannot drift; the replay is exact because the board's SQL takes
 * every time and id as an argument, never from SQLite's clock or random().
 */
import { Worker, MessageChannel, type MessagePort } from 'node:worker_threads';
import Sqlite from 'better-sqlite3';
import { openDatabase, type Database } from './db.js';
import { workerUrl } from '../util/worker-url.js';
import type { WriterReply, WriteStep } from './write-protocol.js';
import { within } from '../util/within.js';

/** How long close() waits, by default, for a disk that refuses the last writes (the writer retries them) before it gives up on them. */
const CLOSE_WAIT_MS = 15_000;

export interface WriteFailure {
  readonly message: string;
  /** SQLite's code (SQLITE_FULL for a full disk), when it gave one. */
  readonly code: string | null;
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (e: Error) => void;
}

export class WriteBehind {
  private steps: WriteStep[] = [];
  private shipping = false;
  private seq = 0;
  private written = 0;
  private waiters: Waiter[] = [];
  private dead: Error | null = null;
  private closed: Promise<void> | null = null;

  private constructor(
    /** The board as the daemon uses it: in memory, every write captured. */
    readonly db: Database,
    private readonly worker: Worker,
    private readonly port: MessagePort,
    private readonly onFailure: (f: WriteFailure) => void,
    private readonly closeWaitMs: number,
  ) {
    port.on('message', (m: WriterReply) => this.reply(m));
    worker.on('error', (e) => this.die(e));
    worker.on('exit', () => this.die(new Error('the board writer thread exited')));
    capture(db, this);
    this.idle();
  }

  /** Opens `<stateDir>/board.sqlite` (migrating it), copies it into memory and starts its writer. */
  static open(stateDir: string, onFailure: (f: WriteFailure) => void, closeWaitMs = CLOSE_WAIT_MS): WriteBehind {
    const file = openDatabase(stateDir);
    let image: Buffer;
    try {
      image = file.serialize();
    } finally {
      file.close();
    }
    // The header says WAL (bytes 18-19 = 2), which memory cannot give: SQLite then refuses to read the copy.
    image[18] = image[19] = 1;
    const db = new Sqlite(image);
    db.pragma('foreign_keys = ON');
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(workerUrl('board/board-writer.js'), { workerData: { stateDir, port: port2 }, transferList: [port2] });
    return new WriteBehind(db, worker, port1, onFailure, closeWaitMs);
  }

  /** Called for each write the daemon made in memory; shipped when its transaction is over. */
  record(step: WriteStep): void {
    this.steps.push(step);
    if (this.shipping) return;
    this.shipping = true;
    queueMicrotask(() => this.ship());
  }

  /** Undoes the steps recorded since `mark` (their transaction rolled back). */
  rollBack(mark: number): void {
    this.steps.length = mark;
  }

  get mark(): number {
    return this.steps.length;
  }

  /** Resolves when every write made so far is on disk; rejects while the disk refuses them (they are retried). */
  durable(): Promise<void> {
    this.ship();
    // A closed board whose writes all landed is durable: a reply racing the shutdown must not fail.
    if (this.written >= this.seq && this.steps.length === 0) return Promise.resolve();
    if (this.dead) return Promise.reject(this.dead);
    return new Promise((resolve, reject) => this.waiters.push({ seq: this.seq, resolve, reject }));
  }

  /** Writes what is left, closes the file and the copy. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.ship();
      if (!this.dead) await this.closeWriter();
      this.dead ??= new Error('the board is closed');
      this.db.close();
    })();
    return this.closed;
  }

  /**
   * Asks the writer to write what is queued and close the file. A writer
   * still refused by the disk after closeWaitMs is told to drop the rest
   * and left to finish on its own: terminating a thread inside a SQLite
   * call brings the whole process down (a fatal error as the call returns).
   */
  private async closeWriter(): Promise<void> {
    this.port.ref();
    const exited = new Promise<'exited'>((resolve) => this.worker.once('exit', () => resolve('exited')));
    const closed = new Promise<'closed'>((resolve) => this.port.on('message', (m: WriterReply) => m.kind === 'closed' && resolve('closed')));
    this.port.postMessage({ kind: 'close' });
    if ((await within(this.closeWaitMs, Promise.race([closed, exited]))) === 'timeout') {
      this.onFailure({ message: `the board's last writes were not on disk after ${this.closeWaitMs} ms; closing without them`, code: null });
      this.port.postMessage({ kind: 'abandon' });
      if ((await within(this.closeWaitMs, exited)) === 'timeout') {
        this.worker.unref();
        this.port.unref();
        return;
      }
    }
    await this.worker.terminate();
  }

  private ship(): void {
    this.shipping = false;
    // A transaction still open (durable() called inside one) ships when it is over.
    if (this.steps.length === 0 || this.db.inTransaction || this.dead) return;
    this.seq++;
    this.port.postMessage({ kind: 'write', seq: this.seq, steps: this.steps });
    this.steps = [];
    this.port.ref();
  }

  private reply(m: WriterReply): void {
    if (m.kind === 'written') {
      this.written = m.seq;
      this.settle(m.seq, null);
    } else if (m.kind === 'failed') {
      const f = { message: m.message, code: m.code };
      this.onFailure(f);
      this.settle(m.seq, new Error(`the board is not on disk yet (${m.message}); nightshift keeps it in memory and retries`));
    }
    this.idle();
  }

  private settle(seq: number, err: Error | null): void {
    const [due, rest] = partition(this.waiters, (w) => w.seq <= seq);
    this.waiters = rest;
    for (const w of due) err ? w.reject(err) : w.resolve();
  }

  /** Nothing in flight: the writer must not keep a finished process alive. */
  private idle(): void {
    if (this.written >= this.seq) this.port.unref();
  }

  private die(e: Error): void {
    if (this.dead) return;
    this.dead = new Error(`the board writer stopped: ${e.message}; the board is no longer saved to disk`, { cause: e });
    if (!this.closed) this.onFailure({ message: this.dead.message, code: null });
    for (const w of this.waiters) w.reject(this.dead);
    this.waiters = [];
  }
}

/** A statement that writes rows and nothing else: schema and pragma statements report no changes and count anyway. */
const ROW_WRITE = /^\s*(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;

/**
 * Records every write made through `db`: a prepared statement that returns
 * no rows, or exec. A transaction that throws rolls its steps back with it;
 * better-sqlite3 begins and commits through statements of its own, which
 * never reach prepare().
 */
function capture(db: Database, into: WriteBehind): void {
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const s = prepare(sql);
    if (s.reader) return s;
    const run = s.run.bind(s);
    const rows = ROW_WRITE.test(sql);
    s.run = (...args: unknown[]) => {
      const result = run(...args);
      // A row write that changed no row changed nothing (SQLite's triggers are per row): the copy needs no step,
      // and the pager's once-a-second re-page query would otherwise wake the writer every second of an idle night.
      if (!rows || result.changes > 0) into.record([sql, args]);
      return result;
    };
    return s;
  }) as Database['prepare'];
  const exec = db.exec.bind(db);
  db.exec = (sql: string) => {
    exec(sql);
    into.record([sql, null]);
    return db;
  };
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: (...a: unknown[]) => unknown) =>
    transaction(function (this: unknown, ...args: unknown[]) {
      const mark = into.mark;
      try {
        return fn.apply(this, args);
      } catch (e) {
        into.rollBack(mark);
        throw e;
      }
    })) as Database['transaction'];
}

function partition<T>(xs: readonly T[], test: (x: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const x of xs) (test(x) ? yes : no).push(x);
  return [yes, no];
}
