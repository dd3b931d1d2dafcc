import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Board } from '../board/board.js';
import { Beat } from '../util/beat.js';
import { ACTIVITY_WRITE_MS, ActivityWrites } from './activity-writes.js';

const dirs: string[] = [];
const boards: Board[] = [];

afterEach(() => {
  vi.useRealTimers();
  for (const b of boards.splice(0)) b.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function boardWith(names: string[]): { board: Board; ids: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'nightshift-activity-'));
  dirs.push(dir);
  const board = Board.open(dir);
  boards.push(board);
  const budgets = { wall_ms: null, tokens: null, no_progress_ms: null, steps: null };
  const ids = names.map((name) => board.submit({ name, command: ['true'], cwd: '/tmp', env: {}, policy: null, rules: null, budgets, priority: 0, after: [] }, 0).id);
  return { board, ids };
}

const stamp = (board: Board, id: string) => board.require(id).last_activity;

describe('ActivityWrites', () => {
  it("gathers every job's stamp into one commit, written one interval after the first", () => {
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { board, ids } = boardWith(['a', 'b', 'c']);
    const batch = vi.spyOn(board, 'batch');
    const writes = new ActivityWrites(board, () => undefined, new Beat(250));
    ids.forEach((id, i) => writes.touch(id, 1_000 + i));
    writes.touch(ids[0]!, 900); // older than what is pending: kept as is
    vi.advanceTimersByTime(ACTIVITY_WRITE_MS - 250);
    expect(ids.map((id) => stamp(board, id))).toEqual([null, null, null]);
    vi.advanceTimersByTime(250);
    expect(batch).toHaveBeenCalledTimes(1);
    expect(ids.map((id) => stamp(board, id))).toEqual([1_000, 1_001, 1_002].map((t) => new Date(t).toISOString()));
    // Nothing pending: no more commits until something moves again.
    vi.advanceTimersByTime(10 * ACTIVITY_WRITE_MS);
    expect(batch).toHaveBeenCalledTimes(1);
    writes.touch(ids[1]!, 5_000);
    vi.advanceTimersByTime(ACTIVITY_WRITE_MS);
    expect(batch).toHaveBeenCalledTimes(2);
    expect(stamp(board, ids[1]!)).toBe(new Date(5_000).toISOString());
  });

  it("a job that ends has its pending stamp written at once, not with the others", () => {
    const { board, ids } = boardWith(['a', 'b']);
    const writes = new ActivityWrites(board, () => undefined, new Beat(250));
    writes.touch(ids[0]!, 1_000);
    writes.touch(ids[1]!, 2_000);
    writes.settle(ids[0]!);
    expect(stamp(board, ids[0]!)).toBe(new Date(1_000).toISOString());
    expect(stamp(board, ids[1]!)).toBeNull();
    writes.dispose();
    expect(stamp(board, ids[1]!)).toBe(new Date(2_000).toISOString());
  });

  it('a job the board does not have is skipped and said; the others are written', () => {
    const { board, ids } = boardWith(['a', 'b']);
    const said: string[] = [];
    const writes = new ActivityWrites(board, (msg, fields) => said.push(`${msg} ${JSON.stringify(fields)}`), new Beat(250));
    writes.touch(ids[0]!, 1_000);
    writes.touch('no-such-job', 1_000);
    writes.touch(ids[1]!, 2_000);
    writes.dispose();
    expect(stamp(board, ids[0]!)).toBe(new Date(1_000).toISOString());
    expect(stamp(board, ids[1]!)).toBe(new Date(2_000).toISOString());
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('no-such-job');
  });
});
