/**
 * Which moves the board accepts: the task state machine's table (the same
 * one the watchdog obeys), plus two reasons only the board gives.
 */
import { fromWire } from '../core/outcome.js';
import { IllegalTransitionError, isLegal, type Reason } from '../core/task-state.js';
import type { JobReason, JobState } from './types.js';

interface BoardReason {
  /** States a job may be in to take this reason. */
  readonly from: readonly JobState[];
  /** The state machine's code whose move (and target state) it borrows. */
  readonly as: string;
}

// A Map, not an object literal, so a code like "constructor" finds nothing.
const BOARD_REASONS: ReadonlyMap<string, BoardReason> = new Map([
  // The daemon restarted and found the job mid-run: it was stopped from
  // outside, as a cancel is. A queued job never started, so it stays queued.
  ['interrupted', { from: ['running', 'blocked'], as: 'cancelled' }],
  // Its `after` job failed, so it can never run; only a queued job waits.
  ['dependency-failed', { from: ['queued'], as: 'cancelled' }],
  // The daemon could not start it (bad cwd, no such program, job folder).
  ['start-failed', { from: ['queued', 'running'], as: 'cancelled' }],
]);

/** The state machine's view of a board reason. */
export const toReason = (r: JobReason, code?: string): Reason => fromWire(r, code);

export function isLegalJobMove(from: JobState, to: JobState, reason: JobReason): boolean {
  if (typeof reason?.code !== 'string') return false;
  const extra = BOARD_REASONS.get(reason.code);
  if (extra && !extra.from.includes(from)) return false;
  return isLegal(from, to, toReason(reason, extra?.as));
}

/** The state machine's error, with the job named so a log line is enough. */
export function illegalMove(job: string, from: JobState, to: JobState, reason: JobReason): IllegalTransitionError {
  const e = new IllegalTransitionError(from, to, toReason(reason));
  e.message = `job ${job}: ${e.message}`;
  return e;
}
