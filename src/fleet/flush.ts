/**
 * Copies what one host's SQLite board did to the fleet board: its
 * transitions in their own order, the records that changed, the pages it
 * queued and the pages it closed. The SQLite board is the journal: after
 * an outage (or a restart) the copy resumes from where the fleet's copy
 * ends, read back from the database, and every row is keyed by this
 * board's id and its own sequence, so a repeated copy adds nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Board } from '../board/board.js';
import type { JobRecord } from '../board/types.js';
import type { Pager } from '../notify/pager.js';
import type { FleetDb } from './db.js';
import { lastPushedTransition, pushFromHost } from './jobs.js';
import { copyCloses, copyPages, lastCopiedPage } from './outbox.js';

const BATCH = 500;
/** Records not touched by a transition are compared this often. */
const RECORDS_MS = 2_000;

export class BoardFlush {
  /** The newest close copied, with the ids closed at that very ms (two closes may share it). */
  private closed = { at: 0, ids: new Set<number>() };
  /** Each record as last copied (JSON), to copy only what changed. */
  private readonly pushed = new Map<string, string>();
  private recordsAt = 0;

  private constructor(
    private readonly db: FleetDb,
    private readonly name: string,
    private readonly source: string,
    private readonly host: { readonly board: Board; readonly pager: Pager },
    private transition: number,
    private page: number,
  ) {}

  /** Where the fleet's copy of board `source` ends: the next flush starts there. */
  static async resume(db: FleetDb, name: string, source: string, host: { readonly board: Board; readonly pager: Pager }): Promise<BoardFlush> {
    return new BoardFlush(db, name, source, host, await lastPushedTransition(db, source), await lastCopiedPage(db, source));
  }

  /** Transitions and records, then new pages, then closes: a page never names a move the fleet has not seen. */
  async flush(): Promise<void> {
    await this.moves();
    const { outbox } = this.host.pager;
    for (let rows = outbox.since(this.page, BATCH); rows.length; rows = outbox.since(this.page, BATCH)) {
      await copyPages(this.db, this.name, this.source, rows);
      this.page = rows[rows.length - 1]!.id;
    }
    const c = this.closed;
    const closes = outbox.closedSince(c.at).filter((r) => r.closed_at! > c.at || !c.ids.has(r.id));
    if (!closes.length) return;
    await copyCloses(this.db, this.source, closes);
    const newest = Math.max(...closes.map((r) => r.closed_at!));
    if (newest > c.at) this.closed = { at: newest, ids: new Set() };
    for (const r of closes) if (r.closed_at === newest) this.closed.ids.add(r.id);
  }

  private async moves(): Promise<void> {
    for (;;) {
      const ts = this.host.board.transitionsSince(this.transition, BATCH);
      const records = this.changedRecords(ts.map((t) => t.job));
      if (!ts.length && !records.length) return;
      await pushFromHost(this.db, this.name, this.source, ts, records);
      for (const r of records) this.pushed.set(r.id, JSON.stringify(r));
      if (ts.length) this.transition = ts[ts.length - 1]!.seq;
      if (ts.length < BATCH) return;
    }
  }

  /** Records of `touched` jobs, and every record that changed since it was copied (looked at every few seconds). */
  private changedRecords(touched: string[]): JobRecord[] {
    const now = Date.now();
    const all = now - this.recordsAt >= RECORDS_MS;
    if (!all && !touched.length) return [];
    const want = new Set(touched);
    const { board } = this.host;
    let list = [...want].flatMap((id) => board.get(id) ?? []);
    if (all) {
      const everything = board.list();
      // A settled job is not compared again: its copy is forgotten too, so the map stays the size of the live board.
      for (const r of everything) if (settled(r, now) && !want.has(r.id)) this.pushed.delete(r.id);
      list = everything.filter((r) => want.has(r.id) || !settled(r, now));
      this.recordsAt = now;
    }
    return list.filter((r) => want.has(r.id) || this.pushed.get(r.id) !== JSON.stringify(r));
  }
}

/** A job done for a minute: its record no longer changes (fields written after the end come within seconds). */
function settled(r: JobRecord, now: number): boolean {
  return r.state === 'done' && r.ended !== null && now - Date.parse(r.ended) > 60_000;
}

/** This SQLite board's own id: a host name reused with a fresh state directory is a new source of transitions. */
export function boardIdentity(board: Board): string {
  board.db.exec('CREATE TABLE IF NOT EXISTS fleet_identity (id TEXT NOT NULL)');
  const row = board.db.prepare('SELECT id FROM fleet_identity').get() as { id: string } | undefined;
  if (row) return row.id;
  const id = randomUUID();
  board.db.prepare('INSERT INTO fleet_identity (id) VALUES (?)').run(id);
  return id;
}
