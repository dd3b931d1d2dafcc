import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../util/errors.js';
import { Board, boardPath } from './board.js';
import type { JobSpecInput } from './types.js';

const dirs: string[] = [];
const boards: Board[] = [];
afterEach(() => {
  for (const b of boards.splice(0)) if (b.db.open) b.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(dir = mkdtempSync(join(tmpdir(), 'nightshift-board-'))): Board {
  dirs.push(dir);
  const b = Board.open(dir);
  boards.push(b);
  return b;
}

const spec = (over: Partial<JobSpecInput> = {}): JobSpecInput => ({
  name: 'fix', command: ['claude', 'do it'], cwd: '/tmp', env: {}, policy: null, rules: null,
  budgets: { wall_ms: null, tokens: null, no_progress_ms: null, steps: 12, blocked_ms: null }, priority: 0, after: [], ...over,
});
const point = { job: 'j-20250102-030405-abcd', transcript: '/h/.claude/projects/p/s.jsonl', lines: 7, last_event: 's.jsonl:7:1', goal: 'do it' };

describe('a resumed job on the board: resume_from and the step budget', () => {
  it('keeps resume_from and budgets.steps; a fresh job has null for both', () => {
    const b = open();
    expect(b.submit(spec({ name: 'again', resume_from: point }), 1).resume_from).toEqual(point);
    expect(b.get('again')!.budgets.steps).toBe(12);
    const fresh = b.submit(spec({ budgets: { wall_ms: null, tokens: null, no_progress_ms: null } as never }), 2);
    expect(fresh.resume_from).toBeNull();
    expect(fresh.budgets.steps).toBeNull();
  });

  it('refuses a resume_from of the wrong shape, naming the field and the value', () => {
    const b = open();
    expect(() => b.submit(spec({ resume_from: { ...point, lines: -1 } }), 1)).toThrow(InputError);
    expect(() => b.submit(spec({ resume_from: { ...point, lines: 'x' } as never }), 1)).toThrow(/resume_from\.lines is not valid: .*"lines":"x"/);
    expect(() => b.submit(spec({ budgets: { wall_ms: null, tokens: null, no_progress_ms: null, steps: 0, blocked_ms: null } }), 1)).toThrow('--max-steps must be a whole number, at least 1 (got 0)');
  });

  it('a board of schema version 1 is brought up: its jobs read resume_from null and steps null', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nightshift-board-'));
    open(dir).submit(spec(), 1);
    boards.pop()!.close();
    const raw = new Sqlite(boardPath(dir));
    raw.exec("ALTER TABLE jobs DROP COLUMN resume_from; UPDATE jobs SET budgets = '{\"wall_ms\":null,\"tokens\":null,\"no_progress_ms\":null}'");
    raw.pragma('user_version = 1');
    raw.close();
    const job = open(dir).get('fix')!;
    expect(job.resume_from).toBeNull();
    expect(job.budgets).toEqual({ wall_ms: null, tokens: null, no_progress_ms: null, steps: null, blocked_ms: null });
  });
});
