/**
 * A daemon job's budgets: wall clock, no progress and tokens, looked at on
 * the shared beat (a hundred jobs' looks are one wake-up a second, not a
 * hundred) at the pace budget-pace.ts sets. Each look writes the board's
 * last-progress column and token count; the strictest cap that trips stops
 * the job with its reason.
 */
import type { Board } from '../board/board.js';
import type { JobRecord } from '../board/types.js';
import type { PtyExit } from '../pty/host.js';
import type { JobStatus } from '../supervisor/live-job.js';
import { sharedBeat, type BeatTask } from '../util/beat.js';
import { BUDGET_CHECK_MS, nextBudgetLook } from './budget-pace.js';

/** What the budgets read of the running job. */
export interface BudgetedJob {
  status(): JobStatus;
  agentSummary(): { readonly tokens?: number | undefined } | undefined;
  readonly finished: Promise<PtyExit>;
  /** When a wall cap of `capMs` reaches the agent's wrap-up reserve, ms from the start; null: never. */
  wrapUpAt(capMs: number): number | null;
  /** The wall budget reached its reserve: ask the agent for its hand-off. */
  wrapUp(usedMs: number, capMs: number): void;
}

export interface BudgetOutlets {
  /** The board's last-progress column. */
  progress(at: number): void;
  /** A cap tripped: page why and stop the job. */
  trip(cause: string, detail: string): void;
  /** Runs a look so that a failing board write is logged, not thrown into a timer. */
  guarded<T>(what: string, fn: () => T): T | undefined;
}

export class JobBudgets {
  private readonly beat: BeatTask;
  /** When the board says the job started (read once), and the token count last written to it. */
  private startedAt: number | undefined;
  private tokensWritten: number | null | undefined;
  /** The look interval now, and what the last look saw move (see budget-pace). */
  private paceMs = BUDGET_CHECK_MS;
  private lastLook: { progress: number; tokens: number | undefined } | undefined;
  private wrapUpAsked = false;

  constructor(
    private readonly record: JobRecord,
    private readonly job: BudgetedJob,
    private readonly deps: { readonly board: Board; readonly now: () => number; readonly onLog: (msg: string, fields?: object) => void },
    private readonly out: BudgetOutlets,
  ) {
    this.beat = sharedBeat.every(BUDGET_CHECK_MS, () => {
      this.paceMs = out.guarded('budget check', () => this.check()) ?? BUDGET_CHECK_MS;
      return this.paceMs;
    });
  }

  dispose(): void {
    this.beat.dispose();
  }

  /** The strictest budget wins: whichever trips first stops the job with its reason. Otherwise the ms until the next look. */
  private check(): number | undefined {
    const b = this.record.budgets;
    const id = this.record.id;
    const now = this.deps.now();
    this.startedAt ??= Date.parse(this.deps.board.require(id).started ?? new Date(now).toISOString());
    const started = this.startedAt;
    if (b.wall_ms !== null && now - started >= b.wall_ms) return this.trip('budget:wall', `ran ${Math.round((now - started) / 1000)}s, cap ${b.wall_ms / 1000}s`);
    const wrapAt = this.wrapUpAsked || b.wall_ms === null ? null : this.job.wrapUpAt(b.wall_ms);
    if (wrapAt !== null && now - started >= wrapAt) {
      this.wrapUpAsked = true;
      this.job.wrapUp(now - started, b.wall_ms!);
    }
    const status = this.job.status();
    // A busy child is progress right now (the watchdog reports it as +Infinity).
    const progress = Number.isFinite(status.lastProgress) ? status.lastProgress : now;
    this.out.progress(Number.isFinite(status.reportedProgress) ? status.reportedProgress : now);
    if (b.no_progress_ms !== null && now - progress >= b.no_progress_ms) {
      return this.trip('budget:no-progress', `no progress for ${Math.round((now - progress) / 1000)}s`);
    }
    const tokens = this.job.agentSummary()?.tokens;
    // The board is written only when the count moved, and read only for a job whose agent has said nothing yet.
    if (tokens && tokens !== this.tokensWritten) this.deps.board.update(id, { tokens_used: tokens });
    if (tokens) this.tokensWritten = tokens;
    if (b.tokens !== null) {
      if (this.tokensWritten === undefined) this.tokensWritten = this.deps.board.require(id).tokens_used;
      const used = tokens ?? this.tokensWritten;
      if (used !== null && used >= b.tokens) return this.trip('budget:tokens', `${used} tokens used, cap ${b.tokens}`);
    }
    const moved = this.lastLook === undefined || this.lastLook.progress !== progress || this.lastLook.tokens !== tokens;
    this.lastLook = { progress, tokens };
    return nextBudgetLook({
      now,
      lastMs: this.paceMs,
      moved,
      ...(b.wall_ms !== null ? { wallDue: started + b.wall_ms } : {}),
      ...(b.no_progress_ms !== null ? { noProgressDue: progress + b.no_progress_ms } : {}),
      ...(wrapAt !== null && !this.wrapUpAsked ? { wrapUpDue: started + wrapAt } : {}),
    });
  }

  private trip(cause: string, detail: string): undefined {
    this.beat.dispose();
    this.deps.onLog('budget tripped', { job: this.record.id, cause, detail });
    this.out.trip(cause, detail);
  }
}
