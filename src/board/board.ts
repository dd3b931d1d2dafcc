/**
 * The persistent task board: every job the daemon was given, its state,
 * and every transition it made, in `<stateDir>/board.sqlite`.
 *
 * All calls are synchronous (better-sqlite3) and each is one transaction,
 * so a crash leaves the board as it was before or after a call, never
 * between. Writes take the write lock up front (BEGIN IMMEDIATE): a
 * deferred transaction that reads and then writes can fail with
 * SQLITE_BUSY at once if another process wrote in between, and no busy
 * timeout helps there. Times are passed in by the caller; the board never
 * reads the clock, so tests are exact.
 */
import { InputError, NotFoundError } from '../util/errors.js';
import { openDatabase, openDatabaseReadOnly, type Database } from './db.js';
import { doneExit, isSuccess } from '../core/outcome.js';
import { illegalMove, isLegalJobMove, toReason } from './reasons.js';
import { json, newJobParams, toJobRecord, toTransitionRecord, type JobRow } from './rows.js';
import { JobNotes } from './notes.js';
import { migrateBoard } from './schema.js';
import { prepareStatements, type Statements } from './statements.js';
import type { JobReason, JobRecord, JobState, TransitionRecord } from './types.js';
import { isoTime, newJobId, validateSpec } from './validate.js';

export { openDatabase, boardPath, type Database } from './db.js';

export type JobFields = Partial<Pick<JobRecord, 'paths' | 'exit' | 'last_activity' | 'tokens_used'>>;

type DependencyOutcome = 'waiting' | 'succeeded' | 'failed';

const INTERRUPTED: JobReason = { code: 'interrupted', detail: 'the daemon stopped while it ran' };

export class Board {
  private readonly s: Statements;
  /** What each job did that its row does not hold (the digest's answers, questions, verdicts, ends). */
  readonly notes: JobNotes;

  /** Takes over `db` (see openDatabase); close() closes it. */
  constructor(readonly db: Database) {
    migrateBoard(db);
    this.s = prepareStatements(db);
    this.notes = new JobNotes(db);
  }

  static open(stateDir: string): Board {
    return new Board(openDatabase(stateDir));
  }

  /** The board as a CLI reads it beside the daemon (or with none): read-only; null when there is no board yet. */
  static openReadOnly(stateDir: string): Board | null {
    const db = openDatabaseReadOnly(stateDir);
    if (!db) return null;
    try {
      return new Board(db);
    } catch (e) {
      db.close();
      throw e;
    }
  }

  close(): void {
    this.db.close();
  }

  /** Adds a queued job. Checks everything first; on any error nothing is written. */
  /** Queues a job from a spec as it arrived; validateSpec checks every field (FLAG: problem). */
  submit(spec: unknown, now: number): JobRecord {
    const checked = validateSpec(spec);
    const created = isoTime(now);
    return this.db.transaction(() => {
      const clash = this.s.byName.get(checked.name);
      if (clash) throw new InputError(`a job named "${checked.name}" already exists (id ${clash.id})`);
      // Stored as ids: the record then says exactly which jobs it waits for.
      const after = [...new Set(checked.after.map((ref) => this.dependency(ref).id))];
      const id = newJobId(now, (candidate) => this.s.byId.get(candidate) !== undefined);
      const reason: JobReason = { code: 'submitted' };
      this.s.insertJob.run(newJobParams(id, { ...checked, after }, created, reason));
      this.s.insertTransition.run(id, created, 'queued', json(reason)!);
      return toJobRecord(this.requireRow(id));
    }).immediate();
  }

  /**
   * Takes in a job another board queued (the fleet's, src/fleet/): same id,
   * name and spec, queued here. `after` is left out: the fleet board checked
   * those jobs, which this board may never have seen.
   */
  adopt(rec: JobRecord, now: number, detail: string): JobRecord {
    const spec = validateSpec({ ...rec, after: [] });
    const created = isoTime(now);
    return this.db.transaction(() => {
      if (this.findRow(rec.id) || this.s.byName.get(rec.name)) throw new InputError(`a job named "${rec.name}" (or with id ${rec.id}) is already on this host's board`);
      const reason: JobReason = { code: 'submitted', detail };
      this.s.insertJob.run(newJobParams(rec.id, spec, rec.created, reason));
      this.s.insertTransition.run(rec.id, created, 'queued', json(reason)!);
      return toJobRecord(this.requireRow(rec.id));
    }).immediate();
  }

  /** Transitions after `seq` (the log's own order), each with its seq: what a fleet link flushes. */
  transitionsSince(seq: number, limit: number): Array<TransitionRecord & { seq: number }> {
    return this.s.transitionsSince.all(seq, limit).map((r) => ({ seq: r.seq, ...toTransitionRecord(r) }));
  }

  get(idOrName: string): JobRecord | undefined {
    const row = this.findRow(idOrName);
    return row && toJobRecord(row);
  }

  require(idOrName: string): JobRecord {
    return toJobRecord(this.requireRow(idOrName));
  }

  /** Every job, in the order they were submitted. */
  list(): JobRecord[] {
    return this.s.all.all().map(toJobRecord);
  }

  /**
   * Moves a job, if the state machine allows it, and logs the move.
   * Throws IllegalTransitionError (and changes nothing) otherwise.
   */
  transition(idOrName: string, state: JobState, reason: JobReason, now: number): JobRecord {
    const time = isoTime(now);
    return this.db.transaction(() => this.move(this.requireRow(idOrName), state, reason, time)).immediate();
  }

  update(idOrName: string, fields: JobFields): JobRecord {
    const has = (k: keyof JobFields): number => (Object.hasOwn(fields, k) && fields[k] !== undefined ? 1 : 0);
    if (has('tokens_used') && fields.tokens_used !== null && !(Number.isSafeInteger(fields.tokens_used) && fields.tokens_used! >= 0)) {
      throw new RangeError(`tokens_used ${String(fields.tokens_used)} is not a whole number ≥ 0`);
    }
    return this.db.transaction(() => {
      const { id } = this.requireRow(idOrName);
      this.s.update.run({
        id,
        has_paths: has('paths'),
        paths: json(fields.paths),
        has_exit: has('exit'),
        exit: json(fields.exit),
        has_last_activity: has('last_activity'),
        last_activity: fields.last_activity ?? null,
        has_tokens_used: has('tokens_used'),
        tokens_used: fields.tokens_used ?? null,
      });
      return toJobRecord(this.requireRow(id));
    }).immediate();
  }

  /**
   * Done jobs that ended before `before` (ISO), oldest first, leaving out
   * any a job still to finish waits for: without it, that job could never run.
   */
  doneBefore(before: string): JobRecord[] {
    return this.db.transaction(() => {
      const waitedFor = new Set([...this.s.inState.all('queued'), ...this.s.inState.all('running'), ...this.s.inState.all('blocked')].flatMap((r) => JSON.parse(r.after_ids) as string[]));
      return this.s.doneBefore.all(before).filter((r) => !waitedFor.has(r.id)).map(toJobRecord);
    })();
  }

  /** Takes done jobs off the board with their transitions, in one transaction; an id that is not a done job is left. Returns the ids removed. */
  remove(ids: readonly string[]): string[] {
    return this.db.transaction(() =>
      ids.filter((id) => {
        if (this.s.byId.get(id)?.state !== 'done') return false;
        this.s.deleteTransitions.run(id);
        this.notes.remove(id);
        return this.s.deleteDone.run(id).changes > 0;
      }),
    ).immediate();
  }

  /** A job's moves, oldest first, starting with its submission. */
  transitions(idOrName: string): TransitionRecord[] {
    return this.db.transaction(() => this.s.transitionsOf.all(this.requireRow(idOrName).id).map(toTransitionRecord))();
  }

  /**
   * When the job entered the state it is in (ISO): the first of its last
   * run of transitions into that state, so a blocked job whose reason moved
   * on (a prompt, then a probe) has waited since it first blocked.
   */
  stateSince(idOrName: string): string | null {
    const rec = this.require(idOrName);
    const moves = this.transitions(rec.id);
    let since: string | null = null;
    for (let i = moves.length - 1; i >= 0 && moves[i]!.state === rec.state; i--) since = moves[i]!.time;
    return since;
  }

  /**
   * Queued jobs free to start: every `after` job done and successful.
   * Highest priority first, then first submitted. `now` is unused today; it
   * is in the signature so time-based rules (back-off, not-before) can be
   * added without changing callers.
   */
  runnable(_now: number): JobRecord[] {
    return this.queuedWhere((outcomes) => outcomes.every((o) => o === 'succeeded'));
  }

  /** Queued jobs that can never run: an `after` job finished without success. */
  blockedByFailedDependency(): JobRecord[] {
    return this.queuedWhere((outcomes) => outcomes.includes('failed'));
  }

  /**
   * After a daemon restart: jobs it was running (or that sat blocked) lost
   * their process with it, so they become done/interrupted. Queued jobs
   * stay queued. Returns the jobs it ended.
   */
  /** `only`: the jobs to end (default: every running or blocked one). */
  recoverAfterCrash(now: number, reasonFor: (id: string) => JobReason = () => INTERRUPTED, only?: ReadonlySet<string>): JobRecord[] {
    const time = isoTime(now);
    return this.db.transaction(() => {
      const orphans = [...this.s.inState.all('running'), ...this.s.inState.all('blocked')].filter((r) => !only || only.has(r.id)).sort((a, b) => a.seq - b.seq);
      return orphans.map((row) => this.move(row, 'done', reasonFor(row.id), time));
    }).immediate();
  }

  counts(): Record<JobState, number> {
    const counts: Record<JobState, number> = { queued: 0, running: 0, blocked: 0, done: 0 };
    for (const { state, n } of this.s.counts.all()) counts[state] = n;
    return counts;
  }

  /** Applies one legal move inside the caller's transaction. */
  private move(row: JobRow, to: JobState, reason: JobReason, time: string): JobRecord {
    if (!isLegalJobMove(row.state, to, reason)) throw illegalMove(row.name, row.state, to, reason);
    this.s.setState.run({
      id: row.id,
      state: to,
      reason: json(reason)!,
      started: row.started ?? (to === 'running' ? time : null),
      ended: to === 'done' ? time : row.ended,
      exit: to === 'done' && row.exit === null ? exitFromReason(reason) : row.exit,
    });
    this.s.insertTransition.run(row.id, time, to, json(reason)!);
    return toJobRecord(this.requireRow(row.id));
  }

  /** Queued jobs whose dependency outcomes pass `test`, read in one snapshot. */
  private queuedWhere(test: (outcomes: DependencyOutcome[]) => boolean): JobRecord[] {
    return this.db.transaction(() => {
      const rows = this.s.inState.all('queued');
      return rows.filter((row) => test(this.outcomes(row))).map(toJobRecord);
    })();
  }

  private outcomes(row: JobRow): DependencyOutcome[] {
    return (JSON.parse(row.after_ids) as string[]).map((id) => dependencyOutcome(this.s.byId.get(id)));
  }

  private findRow(idOrName: string): JobRow | undefined {
    if (typeof idOrName !== 'string') return undefined;
    return this.s.byId.get(idOrName) ?? this.s.byName.get(idOrName);
  }

  private requireRow(idOrName: string): JobRow {
    const row = this.findRow(idOrName);
    if (!row) throw new NotFoundError(`no job "${idOrName}"; nightshift board lists them`);
    return row;
  }

  private dependency(ref: string): JobRow {
    const row = this.findRow(ref);
    if (!row) throw new InputError(`after: no job "${ref}"; nightshift board lists them`);
    return row;
  }
}

/** Success as src/core/outcome.ts defines it (exit 0, or an agent's turn that ended clean). */
function dependencyOutcome(dep: JobRow | undefined): DependencyOutcome {
  // Jobs are removed only once nothing waits for them (doneBefore), so a missing one means a damaged board: it can never succeed.
  if (!dep) return 'failed';
  if (dep.state !== 'done') return 'waiting';
  return isSuccess(toReason(JSON.parse(dep.reason) as JobReason)) ? 'succeeded' : 'failed';
}

/** A done reason fills `exit` with its exit status (src/core/outcome.ts), so both land in one transaction. */
function exitFromReason(reason: JobReason): string | null {
  return json(doneExit(reason));
}
