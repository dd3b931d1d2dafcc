/**
 * How soon a job's budgets are looked at again. Each look reads the
 * watchdog's status, writes the board's last-progress column and the token
 * count, and checks the caps: once a second for a hundred quiet jobs it was
 * a tenth of an idle daemon's CPU, to learn nothing new. So a job whose
 * progress and tokens stood still since the last look is looked at half as
 * often each time, up to IDLE_MS; anything moving brings it back to once a
 * second. A cap still trips on time: the next look is never later than the
 * wall or no-progress deadline (on the beat's grid, as before).
 */
import { backOff } from '../util/beat.js';

export const BUDGET_CHECK_MS = 1_000;
/** The board's last-progress column of a job that wakes after a quiet spell is at most this late. */
export const BUDGET_IDLE_MS = 8_000;

export interface BudgetLook {
  readonly now: number;
  /** The interval just used. */
  readonly lastMs: number;
  /** Progress or tokens differ from the previous look. */
  readonly moved: boolean;
  /** When the wall cap trips (started + cap), if there is one. */
  readonly wallDue?: number;
  /** When the no-progress cap trips (last progress + cap), if there is one. */
  readonly noProgressDue?: number;
  /** When the wall budget's wrap-up reserve starts, if it is still to come. */
  readonly wrapUpDue?: number;
}

export function nextBudgetLook(l: BudgetLook): number {
  const paced = backOff(l.lastMs, l.moved, BUDGET_CHECK_MS, BUDGET_IDLE_MS);
  const due = Math.min(l.wallDue ?? Infinity, l.noProgressDue ?? Infinity, l.wrapUpDue ?? Infinity) - l.now;
  return Math.max(BUDGET_CHECK_MS, Math.min(paced, due));
}
