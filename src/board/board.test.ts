import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { IllegalTransitionError } from '../core/task-state.js';
import { InputError, NotFoundError } from '../util/errors.js';
import { Board, boardPath } from './board.js';
import { BOARD_SCHEMA_VERSION } from './schema.js';
import type { JobSpecInput } from './types.js';

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
const dirs: string[] = [];
const boards: Board[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nightshift-board-'));
  dirs.push(dir);
  return dir;
}

function openBoard(dir = tempDir()): Board {
  const board = Board.open(dir);
  boards.push(board);
  return board;
}

function spec(name: string, extra: Partial<JobSpecInput> = {}): JobSpecInput {
  return {
    name,
    command: ['claude', '-p', `do ${name}`],
    cwd: '/tmp/work',
    env: { FOO: 'bar' },
    policy: null,
    rules: null,
    budgets: { wall_ms: 3_600_000, tokens: null, no_progress_ms: null, steps: null, blocked_ms: null },
    priority: 0,
    after: [],
    ...extra,
  };
}

/** Runs a job to the end: started, then done with an exit code. */
function finish(board: Board, id: string, code: number, t = T0 + 10): void {
  board.transition(id, 'running', { code: 'started' }, t);
  board.transition(id, 'done', { code: 'exit', exit_code: code, signal: null }, t + 1);
}

const names = (jobs: { name: string }[]): string[] => jobs.map((j) => j.name);

afterEach(() => {
  for (const b of boards.splice(0)) if (b.db.open) b.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('Board.submit', () => {
  it('stores a queued job that can be found by id and by name', () => {
    const board = openBoard();
    const job = board.submit(spec('build'), T0);
    expect(job.id).toMatch(/^j-20250102-030405-[0-9a-f]{4}$/);
    expect(job).toEqual({
      id: job.id, name: 'build', state: 'queued', reason: { code: 'submitted' },
      command: ['claude', '-p', 'do build'], cwd: '/tmp/work', env: { FOO: 'bar' }, policy: null, rules: null,
      budgets: { wall_ms: 3_600_000, tokens: null, no_progress_ms: null, steps: null, blocked_ms: null }, priority: 0, after: [], resume_from: null, on_unanswered: null,
      created: '2025-01-02T03:04:05.678Z', started: null, ended: null, last_activity: null,
      exit: null, paths: null, tokens_used: null,
    });
    expect(Object.keys(job)).toEqual(Object.keys(board.get('build')!));
    expect(board.get(job.id)).toEqual(job);
    expect(board.get('build')).toEqual(job);
    expect(board.get('nope')).toBeUndefined();
    expect(() => board.require('nope')).toThrow(new NotFoundError('no job "nope"; nightshift board lists them'));
    expect(board.transitions('build')).toEqual([
      { job: job.id, time: '2025-01-02T03:04:05.678Z', state: 'queued', reason: { code: 'submitted' } },
    ]);
  });

  it('keeps on_unanswered on the record (stored with the budgets, which stay as they were); refuses anything but a decline', () => {
    const board = openBoard();
    const job = board.submit(spec('ask', { on_unanswered: { after_ms: 7_200_000, do: 'decline' } }), T0);
    expect(board.get(job.id)).toMatchObject({ on_unanswered: { after_ms: 7_200_000, do: 'decline' }, budgets: spec('x').budgets });
    expect(() => board.submit(spec('bad', { on_unanswered: { after_ms: 0, do: 'decline' } }), T0)).toThrow('--on-unanswered must be at least 1ms (got 0)');
    expect(() => board.submit(spec('bad', { on_unanswered: { after_ms: 5, do: 'answer' } as never }), T0)).toThrow(
      '--on-unanswered can only decline (got "answer")',
    );
  });

  it('refuses a duplicate name and leaves the board unchanged', () => {
    const board = openBoard();
    const first = board.submit(spec('build'), T0);
    finish(board, first.id, 0);
    const before = { jobs: board.list(), transitions: board.transitions(first.id) };
    const err = (() => { try { board.submit(spec('build'), T0 + 100); } catch (e) { return e; } })();
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(`a job named "build" already exists (id ${first.id})`);
    expect({ jobs: board.list(), transitions: board.transitions(first.id) }).toEqual(before);
  });

  it('refuses bad specs with the value and what was expected', () => {
    const board = openBoard();
    expect(() => board.submit(spec('has space'), T0)).toThrow(/job name "has space" is not valid: expected a letter or digit/);
    expect(() => board.submit(spec('-x'), T0)).toThrow(InputError);
    expect(() => board.submit(spec('a'.repeat(65)), T0)).toThrow(InputError);
    expect(() => board.submit(spec('j-20250102-030405-abcd'), T0)).toThrow(/looks like a job id/);
    expect(() => board.submit(spec('x', { command: [] }), T0)).toThrow(/job command \[\] is not valid/);
    expect(() => board.submit(spec('x', { priority: 1.5 }), T0)).toThrow(/job priority 1.5 is not valid: expected a whole number/);
    expect(board.list()).toEqual([]);
    expect(board.submit(spec('a.b_c-9'), T0).name).toBe('a.b_c-9');
  });

  it('resolves after to ids and refuses an unknown one, writing nothing', () => {
    const board = openBoard();
    const build = board.submit(spec('build'), T0);
    expect(() => board.submit(spec('test', { after: ['build', 'nope'] }), T0)).toThrow(
      new InputError('after: no job "nope"; nightshift board lists them'),
    );
    expect(names(board.list())).toEqual(['build']);
    expect(board.submit(spec('test', { after: ['build', build.id] }), T0).after).toEqual([build.id]);
  });

  it('gives every job its own id, even within one second', () => {
    const board = openBoard();
    const ids = new Set(Array.from({ length: 50 }, (_, i) => board.submit(spec(`job${i}`), T0).id));
    expect(ids.size).toBe(50);
  });
});

describe('Board.transition', () => {
  it('follows legal moves, logging each and setting started, ended and exit', () => {
    const board = openBoard();
    const { id } = board.submit(spec('build'), T0);
    expect(board.transition(id, 'running', { code: 'started' }, T0 + 1).started).toBe('2025-01-02T03:04:05.679Z');
    board.transition(id, 'blocked', { code: 'prompt', rule: 'npx-install', class: 'dependency' }, T0 + 2);
    const back = board.transition(id, 'running', { code: 'prompt-cleared' }, T0 + 3);
    expect(back.started).toBe('2025-01-02T03:04:05.679Z');
    const done = board.transition(id, 'done', { code: 'exit', exit_code: 3, signal: null }, T0 + 4);
    expect(done).toMatchObject({ state: 'done', ended: '2025-01-02T03:04:05.682Z', exit: { code: 3, signal: null } });
    expect(board.transitions(id).map((t) => `${t.state}:${t.reason.code}`)).toEqual([
      'queued:submitted', 'running:started', 'blocked:prompt', 'running:prompt-cleared', 'done:exit',
    ]);
    expect(board.transitions(id)[2]!.reason).toEqual({ code: 'prompt', rule: 'npx-install', class: 'dependency' });
  });

  it('throws on an illegal move and changes nothing', () => {
    const board = openBoard();
    const { id } = board.submit(spec('build'), T0);
    const before = { job: board.get(id), log: board.transitions(id) };
    expect(() => board.transition(id, 'blocked', { code: 'hung' }, T0 + 1)).toThrow(IllegalTransitionError);
    expect(() => board.transition(id, 'done', { code: 'interrupted' }, T0 + 1)).toThrow(/job build: illegal transition queued → done/);
    expect({ job: board.get(id), log: board.transitions(id) }).toEqual(before);
    board.transition(id, 'running', { code: 'started' }, T0 + 1);
    expect(() => board.transition(id, 'blocked', { code: 'prompt' }, T0 + 2)).toThrow(IllegalTransitionError); // no rule
    expect(() => board.transition(id, 'done', { code: 'dependency-failed' }, T0 + 2)).toThrow(IllegalTransitionError);
    board.transition(id, 'done', { code: 'cancelled' }, T0 + 2);
    const after = { job: board.get(id), log: board.transitions(id) };
    expect(() => board.transition(id, 'running', { code: 'started' }, T0 + 3)).toThrow(/illegal transition done → running/);
    expect({ job: board.get(id), log: board.transitions(id) }).toEqual(after);
  });

  it('accepts the reasons the daemon gives: budget, dependency-failed, start-failed', () => {
    const board = openBoard();
    const a = board.submit(spec('a'), T0);
    board.transition(a.id, 'running', { code: 'started' }, T0);
    expect(board.transition(a.id, 'done', { code: 'budget:wall', detail: 'ran 3600s' }, T0 + 1).reason.code).toBe('budget:wall');
    expect(board.transition(board.submit(spec('b'), T0).id, 'done', { code: 'dependency-failed' }, T0).state).toBe('done');
    expect(board.transition(board.submit(spec('c'), T0).id, 'done', { code: 'start-failed' }, T0).state).toBe('done');
  });

  it('fills a done job\'s exit with its reason\'s exit status (src/core/outcome.ts), even where the reason carries none', () => {
    const board = openBoard();
    expect(board.transition(board.submit(spec('b'), T0).id, 'done', { code: 'dependency-failed' }, T0).exit).toEqual({ code: 117, signal: null });
    expect(board.transition(board.submit(spec('c'), T0).id, 'done', { code: 'start-failed' }, T0).exit).toEqual({ code: 116, signal: null });
    const d = board.submit(spec('d'), T0);
    board.transition(d.id, 'running', { code: 'started' }, T0);
    expect(board.transition(d.id, 'done', { code: 'timeout', exit_code: 124, signal: 'SIGINT' }, T0 + 1).exit).toEqual({ code: 124, signal: 'SIGINT' });
  });
});

describe('Board.update', () => {
  it('sets only the fields given', () => {
    const board = openBoard();
    const { id } = board.submit(spec('build'), T0);
    const paths = { dir: '/s/j', recording: '/s/j/r.cast', events: '/s/j/e', log: '/s/j/l', evidence: '/s/j/ev', summary: '/s/j/s' };
    board.update(id, { paths, tokens_used: 10 });
    const rec = board.update(id, { last_activity: '2025-01-02T03:04:06.000Z' });
    expect(rec).toMatchObject({ paths, tokens_used: 10, last_activity: '2025-01-02T03:04:06.000Z', exit: null });
    expect(board.update(id, { tokens_used: null }).tokens_used).toBeNull();
  });
});

describe('Board scheduling', () => {
  it('orders runnable jobs by priority, then first submitted', () => {
    const board = openBoard();
    for (const [name, priority, t] of [['a', 0, 1], ['b', 5, 2], ['c', 0, 2], ['d', 5, 2], ['e', -1, 0]] as const) {
      board.submit(spec(name, { priority }), T0 + t);
    }
    expect(names(board.runnable(T0))).toEqual(['b', 'd', 'a', 'c', 'e']);
    board.transition('b', 'running', { code: 'started' }, T0 + 3);
    expect(names(board.runnable(T0))).toEqual(['d', 'a', 'c', 'e']);
  });

  it('holds a job until its after jobs succeed, and lists it when one fails', () => {
    const board = openBoard();
    board.submit(spec('build'), T0);
    board.submit(spec('lint'), T0);
    board.submit(spec('test', { after: ['build', 'lint'], priority: 9 }), T0);
    expect(names(board.runnable(T0))).toEqual(['build', 'lint']);
    finish(board, 'build', 0);
    expect(names(board.runnable(T0))).toEqual(['lint']);
    board.transition('lint', 'running', { code: 'started' }, T0 + 1);
    expect(board.blockedByFailedDependency()).toEqual([]);
    board.transition('lint', 'done', { code: 'exit', exit_code: 0, signal: null }, T0 + 2);
    expect(names(board.runnable(T0))).toEqual(['test']);

    board.submit(spec('flaky'), T0);
    board.submit(spec('deploy', { after: ['flaky'] }), T0);
    finish(board, 'flaky', 1);
    expect(names(board.runnable(T0))).toEqual(['test']);
    expect(names(board.blockedByFailedDependency())).toEqual(['deploy']);
    board.transition('deploy', 'done', { code: 'dependency-failed' }, T0 + 3);
    expect(board.blockedByFailedDependency()).toEqual([]);
  });

  it('counts a stopped dependency as failed even if its process exited 0', () => {
    const board = openBoard();
    board.submit(spec('slow'), T0);
    board.submit(spec('next', { after: ['slow'] }), T0);
    board.transition('slow', 'running', { code: 'started' }, T0);
    board.transition('slow', 'done', { code: 'cancelled', exit_code: 0, signal: null }, T0 + 1);
    expect(board.runnable(T0)).toEqual([]);
    expect(names(board.blockedByFailedDependency())).toEqual(['next']);
  });
});

describe('Board across restarts', () => {
  it('marks running and blocked jobs interrupted after a crash; queued ones wait', () => {
    const dir = tempDir();
    const board = openBoard(dir);
    for (const n of ['run', 'stuck', 'waiting', 'over']) board.submit(spec(n), T0);
    board.transition('run', 'running', { code: 'started' }, T0 + 1);
    board.transition('stuck', 'running', { code: 'started' }, T0 + 1);
    board.transition('stuck', 'blocked', { code: 'hung' }, T0 + 2);
    finish(board, 'over', 0);
    board.close(); // the daemon dies; a new one opens the same file

    const next = openBoard(dir);
    const ended = next.recoverAfterCrash(T0 + 1000);
    expect(names(ended)).toEqual(['run', 'stuck']);
    for (const j of ended) {
      expect(j).toMatchObject({ state: 'done', ended: '2025-01-02T03:04:06.678Z', exit: { code: 119, signal: null } });
      expect(j.reason).toEqual({ code: 'interrupted', detail: 'the daemon stopped while it ran' });
    }
    expect(next.counts()).toEqual({ queued: 1, running: 0, blocked: 0, done: 3 });
    expect(names(next.runnable(T0))).toEqual(['waiting']);
    expect(next.recoverAfterCrash(T0 + 2000)).toEqual([]);
  });

  it('reads back exactly what it wrote after close and reopen', () => {
    const dir = tempDir();
    const board = openBoard(dir);
    board.submit(spec('build', { priority: 2, env: { A: '1', B: 'two words' } }), T0);
    board.submit(spec('test', { after: ['build'], policy: '/p.yaml', rules: '/r.yaml' }), T0 + 1);
    finish(board, 'build', 0);
    board.update('build', { tokens_used: 1234, last_activity: '2025-01-02T03:04:06.000Z' });
    const jobs = board.list();
    const log = board.transitions('build');
    board.close();
    const again = openBoard(dir);
    expect(again.list()).toEqual(jobs);
    expect(again.transitions('build')).toEqual(log);
    expect(names(again.runnable(T0))).toEqual(['test']);
  });

  it('creates the file 0600 in a 0700 folder, in WAL mode with a schema version', () => {
    const dir = join(tempDir(), 'state', 'deep');
    const board = openBoard(dir);
    board.submit(spec('build'), T0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of ['', '-wal', '-shm']) expect(statSync(boardPath(dir) + f).mode & 0o777).toBe(0o600);
    expect(board.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(board.db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(board.db.pragma('user_version', { simple: true })).toBe(BOARD_SCHEMA_VERSION);
  });

  it('refuses a board written by a newer nightshift', () => {
    const dir = tempDir();
    openBoard(dir).close();
    const raw = new Sqlite(boardPath(dir));
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => Board.open(dir)).toThrow(`schema version 99, newer than this nightshift understands (${BOARD_SCHEMA_VERSION})`);
  });
});

describe('Board: pruning done jobs', () => {
  const at = (ms: number) => new Date(T0 + ms).toISOString();

  it('doneBefore lists done jobs that ended before the time, but not one a job still to run waits for', () => {
    const board = openBoard();
    for (const name of ['a', 'b', 'late', 'live']) board.submit(spec(name), T0);
    board.submit(spec('waits', { after: ['b'] }), T0);
    for (const name of ['a', 'b', 'late', 'live']) board.transition(name, 'running', { code: 'started' }, T0);
    board.transition('a', 'done', { code: 'exit', exit_code: 0 }, T0 + 1_000);
    board.transition('b', 'done', { code: 'exit', exit_code: 0 }, T0 + 1_000);
    board.transition('late', 'done', { code: 'exit', exit_code: 1 }, T0 + 5_000);
    expect(board.doneBefore(at(2_000)).map((j) => j.name)).toEqual(['a']);
    expect(board.doneBefore(at(6_000)).map((j) => j.name)).toEqual(['a', 'late']);
  });

  it('remove takes done jobs and their transitions off the board, and leaves any other job', () => {
    const dir = tempDir();
    const board = openBoard(dir);
    board.submit(spec('old'), T0);
    board.submit(spec('run'), T0);
    board.transition('old', 'running', { code: 'started' }, T0);
    board.transition('old', 'done', { code: 'exit', exit_code: 0 }, T0 + 1);
    board.transition('run', 'running', { code: 'started' }, T0);
    const oldId = board.require('old').id;
    expect(board.remove([oldId, board.require('run').id, 'nosuch'])).toEqual([oldId]);
    expect(board.list().map((j) => j.name)).toEqual(['run']);
    const db = new Sqlite(boardPath(dir), { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM transitions WHERE job = ?').get(oldId)).toEqual({ n: 0 });
    db.close();
  });

  it('openReadOnly reads the board beside its writer, and is null where there is none', () => {
    const dir = tempDir();
    openBoard(dir).submit(spec('x'), T0);
    const ro = Board.openReadOnly(dir)!;
    expect(ro.get('x')?.state).toBe('queued');
    expect(() => ro.submit(spec('y'), T0)).toThrow(/readonly/);
    ro.close();
    expect(Board.openReadOnly(tempDir())).toBeNull();
  });
});
