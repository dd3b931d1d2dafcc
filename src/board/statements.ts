/** The board's SQL, prepared once per handle (better-sqlite3 re-uses a prepared statement cheaply). */
import type { Database } from './db.js';
import type { JobRow, TransitionRow } from './rows.js';
import type { JobState } from './types.js';

export type Statements = ReturnType<typeof prepareStatements>;

export function prepareStatements(db: Database) {
  return {
    byId: db.prepare<[string], JobRow>('SELECT * FROM jobs WHERE id = ?'),
    byName: db.prepare<[string], JobRow>('SELECT * FROM jobs WHERE name = ?'),
    all: db.prepare<[], JobRow>('SELECT * FROM jobs ORDER BY seq'),
    // Highest priority first; within a priority, submission order (FIFO).
    inState: db.prepare<[JobState], JobRow>('SELECT * FROM jobs WHERE state = ? ORDER BY priority DESC, seq'),
    counts: db.prepare<[], { state: JobState; n: number }>('SELECT state, count(*) AS n FROM jobs GROUP BY state'),
    insertJob: db.prepare<[Record<string, unknown>]>(
      `INSERT INTO jobs (id, name, state, reason, command, cwd, env, policy, rules, budgets, priority, after_ids, resume_from, created)
       VALUES (@id, @name, @state, @reason, @command, @cwd, @env, @policy, @rules, @budgets, @priority, @after_ids, @resume_from, @created)`,
    ),
    setState: db.prepare<[{ id: string; state: JobState; reason: string; started: string | null; ended: string | null; exit: string | null }]>(
      'UPDATE jobs SET state = @state, reason = @reason, started = @started, ended = @ended, exit = @exit WHERE id = @id',
    ),
    // One statement for any subset of fields: a field not given keeps its value.
    update: db.prepare<[Record<string, unknown>]>(
      `UPDATE jobs SET
         paths = CASE WHEN @has_paths THEN @paths ELSE paths END,
         exit = CASE WHEN @has_exit THEN @exit ELSE exit END,
         last_activity = CASE WHEN @has_last_activity THEN @last_activity ELSE last_activity END,
         tokens_used = CASE WHEN @has_tokens_used THEN @tokens_used ELSE tokens_used END
       WHERE id = @id`,
    ),
    insertTransition: db.prepare<[string, string, JobState, string]>(
      'INSERT INTO transitions (job, time, state, reason) VALUES (?, ?, ?, ?)',
    ),
    transitionsOf: db.prepare<[string], TransitionRow>('SELECT job, time, state, reason FROM transitions WHERE job = ? ORDER BY seq'),
    // ISO times in one format compare as text.
    doneBefore: db.prepare<[string], JobRow>("SELECT * FROM jobs WHERE state = 'done' AND ended < ? ORDER BY seq"),
    deleteTransitions: db.prepare<[string]>('DELETE FROM transitions WHERE job = ?'),
    deleteDone: db.prepare<[string]>("DELETE FROM jobs WHERE id = ? AND state = 'done'"),
    transitionsSince: db.prepare<[number, number], TransitionRow & { seq: number }>('SELECT seq, job, time, state, reason FROM transitions WHERE seq > ? ORDER BY seq LIMIT ?'),
  };
}
