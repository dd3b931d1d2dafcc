/**
 * A board job's row, as a sink of its events: each transition moves it
 * (done with its exit), and output is its last activity, written at most
 * every ACTIVITY_WRITE_MS.
 */
import { exitStatus, wireReason } from '../core/outcome.js';
import type { Transition } from '../core/task-state.js';
import type { Board } from '../board/board.js';
import type { JobEvent, JobSink } from '../supervisor/job-events.js';

// Each write waits for the disk (synchronous=FULL): a job's heartbeat need not be finer.
const ACTIVITY_WRITE_MS = 2_000;

export interface BoardSinkDeps {
  readonly board: Board;
  readonly now: () => number;
  readonly onLog: (msg: string, fields?: object) => void;
}

export class BoardSink implements JobSink {
  readonly name = 'board';
  private lastActivityWrite = 0;

  constructor(
    private readonly id: string,
    private readonly deps: BoardSinkDeps,
  ) {}

  event(e: JobEvent): void {
    if (e.kind === 'transition') this.transition(e.transition);
    else if (e.kind === 'output') this.guarded('last activity', () => this.progress(this.deps.now()));
  }

  /** Activity at `at` (output now, or the watchdog's last progress for the budget check), throttled. */
  progress(at: number): void {
    if (at - this.lastActivityWrite < ACTIVITY_WRITE_MS) return;
    this.lastActivityWrite = at;
    this.deps.board.update(this.id, { last_activity: new Date(at).toISOString() });
  }

  private transition(t: Transition): void {
    try {
      this.deps.board.transition(this.id, t.to, wireReason(t.reason), t.t);
      if (t.to === 'done') this.deps.board.update(this.id, { exit: { code: exitStatus(t.reason), signal: t.reason.signal ?? null } });
    } catch (e) {
      // The board refuses a move it cannot make (the job was settled elsewhere); the job's own records still have it.
      this.deps.onLog('board refused a transition', { job: this.id, to: t.to, reason: t.reason.code, err: String(e) });
    }
  }

  /** A board write that fails (SQLITE_FULL on a full disk) must not become an uncaught exception in a PTY callback. */
  private guarded(what: string, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.deps.onLog(`${what} failed`, { job: this.id, err: String(e) });
    }
  }
}
