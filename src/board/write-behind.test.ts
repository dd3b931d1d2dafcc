import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/helpers/temp-dirs.js';
import { Board, boardPath } from './board.js';
import { WriteBehind, type WriteFailure } from './write-behind.js';
import { Outbox } from '../notify/outbox.js';
import type { Page } from '../notify/page.js';

const stateDir = tempDirs('ns-wb-');

/** Every table's rows, as the file on disk has them (read by a connection of its own). */
function dump(db: Sqlite.Database): Record<string, unknown[]> {
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all() as string[];
  return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all()]));
}

function onDisk(dir: string): Record<string, unknown[]> {
  const db = new Sqlite(boardPath(dir), { readonly: true });
  try {
    return dump(db);
  } finally {
    db.close();
  }
}

const spec = (name: string) => ({ name, command: ['true'], cwd: '/tmp' });

describe('the board written behind', () => {
  it('puts on disk exactly what the daemon wrote in memory, once durable() resolves', async () => {
    const dir = stateDir();
    const store = WriteBehind.open(dir, () => undefined);
    const board = new Board(store.db);
    const outbox = new Outbox(store.db);
    const a = board.submit(spec('a'), 1_000);
    board.submit(spec('b'), 2_000);
    board.transition(a.id, 'running', { code: 'started' }, 3_000);
    board.update(a.id, { last_activity: new Date(4_000).toISOString(), tokens_used: 7 });
    outbox.add({ key: 'k1', job: a.id } as Page, ['cli', 'ntfy'], 5_000, 5_000);
    await store.durable();
    expect(onDisk(dir)).toEqual(dump(store.db));
    expect(onDisk(dir).jobs).toHaveLength(2);
    await store.close();
  });

  it('a row write that changed no row is not handed to the writer; one that did is, and the disk matches', async () => {
    const dir = stateDir();
    const store = WriteBehind.open(dir, () => undefined);
    const outbox = new Outbox(store.db);
    await store.durable();
    expect(outbox.startRepages(10_000, 1_000)).toBe(0);
    expect(store.mark).toBe(0);
    outbox.add({ key: 'k1', job: 'j1' } as Page, ['cli'], 1_000, 1_000);
    const [row] = outbox.pending();
    outbox.delivered(row!.id, 2_000, false);
    const mark = store.mark;
    expect(outbox.startRepages(10_000, 1_000)).toBe(1);
    expect(store.mark).toBe(mark + 1);
    await store.durable();
    expect(onDisk(dir)).toEqual(dump(store.db));
    expect(onDisk(dir).notify_outbox).toMatchObject([{ status: 'pending', round: 2 }]);
    await store.close();
  });

  it('a transaction that throws leaves nothing on disk; the writes around it land', async () => {
    const dir = stateDir();
    const store = WriteBehind.open(dir, () => undefined);
    const board = new Board(store.db);
    board.submit(spec('kept'), 1_000);
    // A second job of the same name is refused inside the submit's transaction.
    expect(() => board.submit(spec('kept'), 2_000)).toThrow(/already exists/);
    expect(() =>
      store.db.transaction(() => {
        board.submit(spec('undone'), 3_000);
        throw new Error('boom');
      })(),
    ).toThrow('boom');
    board.submit(spec('after'), 4_000);
    await store.close();
    const names = (onDisk(dir).jobs as Array<{ name: string }>).map((j) => j.name);
    expect(names).toEqual(['kept', 'after']);
  });

  it('a reopened board starts from what the last one wrote, ids and sequence numbers included', async () => {
    const dir = stateDir();
    const first = WriteBehind.open(dir, () => undefined);
    const b1 = new Board(first.db);
    const j = b1.submit(spec('one'), 1_000);
    b1.transition(j.id, 'running', { code: 'started' }, 2_000);
    await first.close();
    // A reply that races the shutdown still hears that everything it did is on disk.
    await expect(first.durable()).resolves.toBeUndefined();
    const second = WriteBehind.open(dir, () => undefined);
    const b2 = new Board(second.db);
    expect(b2.require('one').state).toBe('running');
    b2.transition(j.id, 'done', { code: 'exit', exit_code: 0, signal: null }, 3_000);
    await second.durable();
    expect(onDisk(dir)).toEqual(dump(second.db));
    expect(b2.transitionsSince(0, 10).map((t) => t.state)).toEqual(['queued', 'running', 'done']);
    await second.close();
  });

  it('Buffers (the web login salts) reach the disk as blobs', async () => {
    const dir = stateDir();
    const store = WriteBehind.open(dir, () => undefined);
    store.db.exec('CREATE TABLE blobs (b BLOB NOT NULL)');
    store.db.prepare('INSERT INTO blobs (b) VALUES (?)').run(Buffer.from([1, 2, 3]));
    await store.close();
    expect(onDisk(dir).blobs).toEqual([{ b: Buffer.from([1, 2, 3]) }]);
  });

  it('a write the disk refuses is reported, durable() rejects, and it lands in order once the disk takes it', async () => {
    const dir = stateDir();
    const failures: WriteFailure[] = [];
    const store = WriteBehind.open(dir, (f) => failures.push(f));
    const board = new Board(store.db);
    board.submit(spec('first'), 1_000);
    await store.durable();
    // Another connection holds the write lock past the writer's busy timeout? Too slow for a test; a read-only
    // file is the refusal a test can make and take back.
    const blocker = new Sqlite(boardPath(dir));
    blocker.pragma('busy_timeout = 0');
    blocker.exec('BEGIN EXCLUSIVE');
    board.submit(spec('second'), 2_000);
    const pending = store.durable();
    await expect(pending).rejects.toThrow(/not on disk yet/);
    expect(failures.length).toBeGreaterThan(0);
    blocker.exec('COMMIT');
    blocker.close();
    await expect.poll(() => store.durable().then(() => true, () => false), { timeout: 30_000, interval: 200 }).toBe(true);
    expect((onDisk(dir).jobs as Array<{ name: string }>).map((j) => j.name)).toEqual(['first', 'second']);
    await store.close();
  }, 60_000);

  it('close gives up on writes the disk still refuses after its wait, says so, and returns', async () => {
    const dir = stateDir();
    const failures: WriteFailure[] = [];
    const store = WriteBehind.open(dir, (f) => failures.push(f), 500);
    const board = new Board(store.db);
    board.submit(spec('first'), 1_000);
    await store.durable();
    const blocker = new Sqlite(boardPath(dir));
    blocker.exec('BEGIN EXCLUSIVE');
    board.submit(spec('lost'), 2_000);
    // The writer sits in SQLite's busy wait (10 s) and cannot land while the blocker holds the file:
    // close returning at all, before the blocker lets go, is close not waiting for it.
    await store.close();
    expect(failures.map((f) => f.message)).toContain("the board's last writes were not on disk after 500 ms; closing without them");
    expect(() => store.db.prepare('SELECT 1')).toThrow(/not open/);
    blocker.exec('COMMIT');
    blocker.close();
  }, 60_000);
});
